package generate

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/templates"
)

// backendInputs reads the options that describe the backend and TLS:
// TLS (whose files must exist when the configuration is for this host),
// Concurrency, FPMMaxChildren and FPMPool.
func backendInputs(o *Options, prof *templates.Profile, in *templates.Input) error {
	if o.TLS != "" {
		tls, err := templates.ParseTLS(o.TLS)
		if err != nil {
			return err
		}
		in.TLS = tls
		if o.thisHost() {
			for _, p := range []string{tls.Cert, tls.Key} {
				if _, err := os.Stat(p); err != nil {
					return fmt.Errorf("--tls: %v: nginx cannot start without it (for another host, give --facts; for a certificate still to be issued, --acme)", unwrap(err))
				}
			}
			in.Stapling, in.StaplingWhy = stapling(tls.Cert, "/etc/resolv.conf")
		}
	}
	switch {
	case o.Concurrency < 0 || o.Concurrency > templates.MaxConcurrency:
		return fmt.Errorf("--concurrency %d: want 1 to %d", o.Concurrency, templates.MaxConcurrency)
	case o.Concurrency > 0 && prof.Kind != templates.Proxy && prof.Kind != templates.GRPC:
		return fmt.Errorf("--concurrency goes with a proxy or grpc profile, not %s", prof.Name)
	}
	in.Concurrency = o.Concurrency
	if prof.Kind != templates.PHP && (o.FPMMaxChildren != 0 || o.FPMPool != "") {
		return fmt.Errorf("--fpm-max-children and --fpm-pool go with a php profile, not %s", prof.Name)
	}
	switch {
	case o.FPMMaxChildren < 0 || o.FPMMaxChildren > templates.MaxFPMChildren:
		return fmt.Errorf("--fpm-max-children %d: want 1 to %d", o.FPMMaxChildren, templates.MaxFPMChildren)
	case o.FPMMaxChildren > 0 && o.FPMPool != "":
		return fmt.Errorf("give --fpm-max-children or --fpm-pool, not both")
	case o.FPMMaxChildren > 0:
		in.FPMMaxChildren, in.FPMWhy = o.FPMMaxChildren, "--fpm-max-children"
	case o.FPMPool != "":
		n, where, err := readFPMPool(o.FPMPool)
		if err != nil {
			return fmt.Errorf("--fpm-pool: %v", err)
		}
		in.FPMMaxChildren, in.FPMWhy = n, where
	}
	return nil
}

// readFPMPool reads pm.max_children as php-fpm reads its configuration: an
// INI file ("key = value", ";" comments) of sections, where [global] holds
// no pool and "include=PATTERN" lines (in any section) pull in more files,
// as php-fpm.conf pulls in pool.d/*.conf. The first pool that sets
// pm.max_children gives it. Every file is read bounded (1 MiB), includes at
// most 4 deep and 256 files.
func readFPMPool(path string) (int, string, error) {
	type found struct {
		n     int
		where string
	}
	var first *found
	files := 0
	var read func(p string, depth int) error
	read = func(p string, depth int) error {
		if files++; files > 256 || depth > 4 {
			return fmt.Errorf("%s: includes nest deeper than 4 or read more than 256 files", path)
		}
		b, err := boundedread.File(p, 1<<20, "")
		if err != nil {
			return unwrap(err)
		}
		section := ""
		for i, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, ";") || strings.HasPrefix(line, "#") || line == "" {
				continue
			}
			if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
				section = line
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			k = strings.TrimSpace(k)
			v = strings.Trim(strings.TrimSpace(strings.SplitN(v, ";", 2)[0]), `"'`)
			switch {
			case k == "include":
				pattern := v
				if !filepath.IsAbs(pattern) {
					pattern = filepath.Join(filepath.Dir(p), pattern)
				}
				matches, err := filepath.Glob(pattern)
				if err != nil {
					return fmt.Errorf("%s:%d: include %q: %v", p, i+1, v, err)
				}
				for _, m := range matches {
					if err := read(m, depth+1); err != nil {
						return err
					}
				}
			case k == "pm.max_children" && section != "" && section != "[global]":
				n, err := strconv.Atoi(v)
				if err != nil || n <= 0 || n > templates.MaxFPMChildren {
					return fmt.Errorf("%s:%d: pm.max_children %q is not a number from 1 to %d", p, i+1, v, templates.MaxFPMChildren)
				}
				if first == nil {
					first = &found{n, fmt.Sprintf("%s:%d %s", filepath.Base(p), i+1, section)}
				}
			}
		}
		return nil
	}
	if err := read(path, 0); err != nil {
		return 0, "", err
	}
	if first == nil {
		return 0, "", fmt.Errorf("%s: no pool sets pm.max_children (php-fpm then refuses to start the pool)", path)
	}
	return first.n, first.where, nil
}

// defaultUser picks the account nginx packages run workers as on this
// machine: www-data (Debian, Ubuntu) when it exists, else nginx (RHEL,
// Alpine, the official Docker image) when that exists, else www-data.
func defaultUser(passwd string) string {
	has := accounts(passwd)
	if !has["www-data"] && has["nginx"] {
		return "nginx"
	}
	return "www-data"
}

// accounts lists the account names of a passwd file (bounded to 4 MiB);
// none when it cannot be read.
func accounts(passwd string) map[string]bool {
	has := map[string]bool{}
	b, err := boundedread.File(passwd, 4<<20, "")
	if err != nil {
		return has
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok {
			has[name] = true
		}
	}
	return has
}
