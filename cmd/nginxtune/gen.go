package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/lazyre"

	"github.com/nginxtune/nginxtune/knowledge"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/report"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
	"github.com/nginxtune/nginxtune/templates"
)

// defaultGenVersion is the nginx version gen writes for when neither a flag
// nor the host says: the current stable line.
const defaultGenVersion = "1.30.0"

type genFlags struct {
	profile, profileFile string
	serverNames          []string
	root                 string
	user                 string
	upstreams            []string
	tls                  string
	acme                 bool
	acmeRoot             string
	factsFile            string
	cpus                 int
	memory               string
	nofile               string
	nginxVersion         string
	out                  string
	force, diff          bool
	verify               bool
	fpmMaxChildren       int
	concurrency          int
	fpmPool              string
	layout, into, site   string
	tuneMain             bool
	osRoot               string
	nginxTest            bool
	noSecurityHeaders    bool
	csp                  string
	hstsSubdomains       bool
	hstsPreload          bool
	tlsProfile           string
	wwwRedirect          bool
	brotli               string
}

func newGenCmd() *cobra.Command {
	var f genFlags
	c := &cobra.Command{
		Use:   "gen --profile NAME",
		Short: "Write a tuned nginx configuration sized to the host, with the OS settings it needs",
		Long: `Write a complete nginx configuration for a profile (static, spa, proxy, php) or a
preset (wordpress, drupal, laravel, node, django, grpc) sized to a host: this machine
by default, the facts saved with "nginxtune facts" (--facts FILE), or the numbers given
with --cpus, --memory and --nofile. Every sized directive carries a comment saying
what it was computed from.

--out DIR writes a complete configuration in a layout (--layout prefix, debian, rhel,
docker). --into DIR adds a site to an existing configuration (Debian's sites-available
with its link in sites-enabled, RHEL's or the Docker image's conf.d), keeping its
nginx.conf; --tune-main also sets the worker numbers there.

Besides nginx.conf and the site file, gen writes the OS half the numbers rely on:
sysctl.d/60-nginxtune.conf (only the kernel settings this host needs changed) and
systemd/nginx.service.d/nginxtune.conf (LimitNOFILE). With --acme it adds the
challenge location, the HTTP-to-HTTPS redirect and a certbot deploy hook that
reloads nginx after a renewal.

The syntax follows the nginx version: --nginx-version, else the installed nginx's,
else ` + defaultGenVersion + ` ("http2 on" from 1.25.1, the upstream keepalive defaults of 1.29.7,
"ssl_session_tickets off" before 1.23.2). Before anything is written, nginxtune reads
the target tree with the new files in it and refuses what nginx would; when an nginx
binary of a compatible version is installed and gen runs as root, nginx -t checks gen's
files in a temporary prefix, and the whole target tree only when it is the live
configuration or --nginx-test is given (nginx -t reads every file a tree names).

Without --out the files are printed. --out DIR writes them atomically and refuses
to replace existing files unless --force; --diff shows what would change.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return runGen(c, &f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.profile, "profile", "", "profile: "+strings.Join(templates.Profiles(), ", "))
	fl.StringVar(&f.profileFile, "profile-file", "", "a profile of your own (YAML, same keys as the built-in ones)")
	// an array, split on commas here: a slice flag reads its value as CSV,
	// which would silently drop what follows a line break
	listVar(fl, &f.serverNames, "server-name", "", nil, false, "server names (comma-separated or repeated)")
	fl.StringVar(&f.root, "root", "", "document root (default from the profile)")
	fl.StringVar(&f.user, "user", "", "the account nginx's workers run as (default: www-data, or nginx where this machine has that account and no www-data, as on RHEL and Alpine)")
	listVar(fl, &f.upstreams, "upstream", "", nil, false, "backend host:port (or unix:/path) for proxy and php; repeatable")
	fl.StringVar(&f.tls, "tls", "", "serve HTTPS with these files: `CERT,KEY`")
	fl.BoolVar(&f.acme, "acme", false, "HTTPS with Let's Encrypt: challenge location, redirect, renewal hook (certificates under /etc/letsencrypt/live/NAME unless --tls)")
	fl.StringVar(&f.acmeRoot, "acme-root", "/var/www/acme", "webroot for ACME http-01 challenges")
	fl.StringVar(&f.factsFile, "facts", "", "size for the host facts in FILE (saved with nginxtune facts)")
	fl.IntVar(&f.cpus, "cpus", 0, "size for this many CPUs")
	fl.StringVar(&f.memory, "memory", "", "size for this much memory, e.g. 4GiB")
	fl.StringVar(&f.nofile, "nofile", "", "the open-file limit of the host, N or SOFT:HARD")
	fl.StringVar(&f.nginxVersion, "nginx-version", "", "nginx version to write for (default: the installed nginx's, else "+defaultGenVersion+")")
	fl.StringVarP(&f.out, "out", "o", "", "write the files into DIR")
	fl.BoolVar(&f.force, "force", false, "replace existing files in --out")
	fl.BoolVar(&f.diff, "diff", false, "show what would change in --out, write nothing")
	fl.IntVar(&f.concurrency, "concurrency", 0, "proxy profile: requests you expect to be in flight to the backends at once, to size the upstream keepalive pool (default: nginx's 32 per worker)")
	fl.IntVar(&f.fpmMaxChildren, "fpm-max-children", 0, "php profile: php-fpm's pm.max_children, to size the kept FastCGI connections (default: none kept)")
	fl.StringVar(&f.fpmPool, "fpm-pool", "", "php profile: read pm.max_children from this php-fpm pool file (e.g. /etc/php/8.2/fpm/pool.d/www.conf)")
	fl.BoolVar(&f.verify, "verify", true, "check the output with nginx -t when a compatible nginx is installed and gen runs as root")
	fl.StringVar(&f.layout, "layout", "", "where the files go: "+strings.Join(templates.LayoutNames(), ", ")+" (default: prefix with --out, found from the tree with --into)")
	fl.StringVar(&f.into, "into", "", "add the site to the existing configuration in `DIR` (Debian's sites-available with a link in sites-enabled, RHEL's or the Docker image's conf.d), keeping its nginx.conf")
	fl.StringVar(&f.site, "site", "", "name of the site's files (default: the first server name)")
	fl.BoolVar(&f.tuneMain, "tune-main", false, "with --into: also set worker_processes, worker_connections and worker_rlimit_nofile in the tree's nginx.conf (only those values change), and write the OS half they need")
	fl.StringVar(&f.osRoot, "os-root", "", "with --into: install the OS half (sysctl.d, the systemd drop-in, the ACME hook) under `DIR` (/ for this host)")
	fl.BoolVar(&f.nginxTest, "nginx-test", false, "verify with nginx -t over the whole tree in --out or --into even when it is not the live /etc/nginx (nginx -t reads every file the tree names, loads its modules and creates its log paths: only for a tree you trust)")
	fl.BoolVar(&f.noSecurityHeaders, "no-security-headers", false, "leave out X-Content-Type-Options, X-Frame-Options, Referrer-Policy and Permissions-Policy (HSTS stays with HTTPS)")
	fl.StringVar(&f.csp, "csp", "", "a Content-Security-Policy to send, e.g. \"default-src 'self'\"")
	fl.BoolVar(&f.hstsSubdomains, "hsts-subdomains", false, "Strict-Transport-Security with includeSubDomains")
	fl.BoolVar(&f.hstsPreload, "hsts-preload", false, "Strict-Transport-Security with includeSubDomains and preload (submit the name to hstspreload.org; hard to undo)")
	fl.StringVar(&f.tlsProfile, "tls-profile", "intermediate", "Mozilla's TLS guideline: intermediate (TLS 1.2 and 1.3) or modern (TLS 1.3 only)")
	fl.BoolVar(&f.wwwRedirect, "www-redirect", false, "answer the other form of the first server name (www.NAME or NAME) with a permanent redirect to it")
	fl.StringVar(&f.brotli, "brotli", "auto", "brotli compression: auto (when the host's nginx has the ngx_brotli modules), on, off")
	return c
}

func runGen(c *cobra.Command, f *genFlags) error {
	var prof *templates.Profile
	var err error
	switch {
	case f.profileFile != "" && f.profile != "":
		return failf(ExitError, "give --profile or --profile-file, not both")
	case f.profileFile != "":
		b, rerr := boundedread.File(f.profileFile, 1<<20, "")
		if rerr != nil {
			return failf(ExitError, "--profile-file: %v", unwrap(rerr))
		}
		prof, err = templates.ParseProfile(b, f.profileFile)
	case f.profile != "":
		prof, err = templates.LoadProfile(f.profile)
	default:
		return failf(ExitError, "--profile is required (%s)", strings.Join(templates.Profiles(), ", "))
	}
	if err != nil {
		return failf(ExitError, "%v", err)
	}
	if f.diff && f.out == "" && f.into == "" {
		return failf(ExitError, "--diff needs --out or --into DIR to compare with")
	}

	facts, err := genFacts(c, f)
	if err != nil {
		return err
	}
	version, versionWhy := rules.Version{}, ""
	switch {
	case f.nginxVersion != "":
		if version, err = knowledge.ParseVersion(f.nginxVersion); err != nil {
			return failf(ExitError, "--nginx-version: %v", err)
		}
	case facts.NginxVersion.Known():
		version, err = knowledge.ParseVersion(facts.NginxVersion.Value)
		versionWhy = "from " + facts.NginxVersion.Source
	default:
		// whatever sizing flags say, the nginx installed here reads the
		// output unless the facts describe another host
		if bin := nginxcheck.Binary(); bin != "" && f.factsFile == "" {
			if out := nginxcheck.Version(bin); out != "" {
				version, err = knowledge.ParseVersion(out)
				versionWhy = "the installed " + bin
			}
		}
	}
	if !version.Known() || err != nil {
		version, versionWhy = knowledge.MustVersion(defaultGenVersion), "no nginx version given or installed: writing for the current stable "+defaultGenVersion
	}
	if versionWhy != "" {
		fmt.Fprintf(c.ErrOrStderr(), "nginxtune: nginx %s (%s)\n", version, versionWhy)
	}

	var names []string
	for _, v := range f.serverNames {
		names = append(names, strings.Split(v, ",")...)
	}
	switch {
	case f.into != "" && f.out != "":
		return failf(ExitError, "give --out (a complete configuration) or --into (a site added to one), not both")
	case f.into != "" && f.diff:
		// --diff compares with what --into DIR holds
	case f.into == "" && (f.tuneMain || f.osRoot != ""):
		return failf(ExitError, "--tune-main and --os-root go with --into")
	}
	var ex *existingTree
	lay := templates.Layouts["prefix"]
	if f.layout != "" {
		if lay, err = templates.LookupLayout(f.layout); err != nil {
			return failf(ExitError, "--layout: %v", err)
		}
	}
	if f.into != "" {
		if ex, err = loadExisting(f.into, f.layout); err != nil {
			return failf(ExitError, "%v", err)
		}
		lay = ex.layout
		fmt.Fprintf(c.ErrOrStderr(), "nginxtune: layout %s (%s)\n", lay.Name, ex.why)
	}
	user := f.user
	switch {
	case user != "":
	case ex != nil && ex.user != "":
		user = ex.user
	case f.layout == "" && thisHost(f):
		user = defaultUser("/etc/passwd")
	}
	in := templates.Input{ServerNames: names, User: user, Root: f.root, Upstreams: f.upstreams, ACME: f.acme, ACMERoot: f.acmeRoot,
		Layout: lay, Site: f.site, NoSecurityHeaders: f.noSecurityHeaders, CSP: f.csp, HSTSSubdomains: f.hstsSubdomains || f.hstsPreload,
		HSTSPreload: f.hstsPreload, TLSProfile: f.tlsProfile, WWWRedirect: f.wwwRedirect}
	target := f.out
	if f.into != "" {
		target = f.into
	}
	if target != "" {
		if abs, err := filepath.Abs(target); err == nil && (abs == "/etc/nginx" || strings.HasPrefix(abs, "/etc/")) {
			in.ConfDir = abs
		}
	}
	if err := backendInputs(f, prof, &in); err != nil {
		return err
	}
	if len(f.upstreams) > 0 && prof.Kind == "static" {
		return failf(ExitError, "--upstream: profile %s serves files and has no backend", prof.Name)
	}
	if in.Brotli, in.BrotliStatic, in.BrotliWhy, err = brotliFor(f, facts, lay, ex); err != nil {
		return failf(ExitError, "%v", err)
	}
	if ex != nil {
		ex.survey(templates.OwnPaths(lay, templates.SiteName(in)))
		ex.facts.TuneMain = f.tuneMain
		in.Existing = &ex.facts
	}
	files, plan, err := templates.Render(prof, facts, version, in)
	if err != nil {
		return failf(ExitError, "%v", err)
	}
	if f.out != "" {
		if err := distributionConf(filepath.Join(f.out, "nginx.conf")); err != nil {
			return failf(ExitError, "%v; nothing written", err)
		}
	}
	// --tune-main: the tree's files that hold the main numbers, changed
	edits, err := tuneMain(c, f, ex, plan, names)
	if err != nil {
		return err
	}
	if f.verify {
		trusted := f.nginxTest || (target != "" && isLive(target))
		var theirs []templates.File
		for _, e := range edits {
			theirs = append(theirs, templates.File{Path: e.rel, Content: string(e.data), Mode: 0o644})
		}
		if err := verifyOutput(c.ErrOrStderr(), files, theirs, version, target, trusted, lay, ex != nil); err != nil {
			return failf(ExitError, "%v; nothing written", err)
		}
	}

	if target == "" {
		printGen(c.OutOrStdout(), files)
		return nil
	}
	return writeGen(c, f, files, edits, ex, target, lay)
}

// backendInputs reads the flags that describe the backend and TLS:
// --tls (whose files must exist when the configuration is for this host),
// --concurrency, --fpm-max-children and --fpm-pool.
func backendInputs(f *genFlags, prof *templates.Profile, in *templates.Input) error {
	if f.tls != "" {
		cert, key, ok := strings.Cut(f.tls, ",")
		if !ok || cert == "" || key == "" {
			return failf(ExitError, "--tls %q: want CERT,KEY", f.tls)
		}
		in.TLS = &templates.TLS{Cert: cert, Key: key}
		if thisHost(f) {
			for _, p := range []string{cert, key} {
				if _, err := os.Stat(p); err != nil {
					return failf(ExitError, "--tls: %v: nginx cannot start without it (for another host, give --facts; for a certificate still to be issued, --acme)", unwrap(err))
				}
			}
			in.Stapling, in.StaplingWhy = stapling(cert, "/etc/resolv.conf")
		}
	}
	switch {
	case f.concurrency < 0 || f.concurrency > templates.MaxConcurrency:
		return failf(ExitError, "--concurrency %d: want 1 to %d", f.concurrency, templates.MaxConcurrency)
	case f.concurrency > 0 && prof.Kind != "proxy" && prof.Kind != "grpc":
		return failf(ExitError, "--concurrency goes with a proxy or grpc profile, not %s", prof.Name)
	}
	in.Concurrency = f.concurrency
	if prof.Kind != "php" && (f.fpmMaxChildren != 0 || f.fpmPool != "") {
		return failf(ExitError, "--fpm-max-children and --fpm-pool go with a php profile, not %s", prof.Name)
	}
	switch {
	case f.fpmMaxChildren < 0 || f.fpmMaxChildren > templates.MaxFPMChildren:
		return failf(ExitError, "--fpm-max-children %d: want 1 to %d", f.fpmMaxChildren, templates.MaxFPMChildren)
	case f.fpmMaxChildren > 0 && f.fpmPool != "":
		return failf(ExitError, "give --fpm-max-children or --fpm-pool, not both")
	case f.fpmMaxChildren > 0:
		in.FPMMaxChildren, in.FPMWhy = f.fpmMaxChildren, "--fpm-max-children"
	case f.fpmPool != "":
		n, where, err := readFPMPool(f.fpmPool)
		if err != nil {
			return failf(ExitError, "--fpm-pool: %v", err)
		}
		in.FPMMaxChildren, in.FPMWhy = n, where
	}
	return nil
}

// treeEdit is --tune-main's change to one file of the tree: the file that
// holds the numbers it sets (nginx.conf, or a file it includes), as it was
// read (its real path, device and inode: only that file is written), at
// rel in the tree.
type treeEdit struct {
	file *parser.File
	rel  string
	data []byte
}

// tuneMain is the tree's files with the main numbers the plan sets, when
// --tune-main asks for it (said either way); none when nothing changes. A
// number set in a file outside the tree (a live configuration may include
// one) is refused, saying where it is.
func tuneMain(c *cobra.Command, f *genFlags, ex *existingTree, plan templates.Plan, names []string) ([]treeEdit, error) {
	var out []treeEdit
	if ex != nil {
		edits, said, err := ex.mainEdits(plan)
		switch {
		case err != nil && f.tuneMain:
			return nil, failf(ExitError, "--tune-main: %v; nothing written", err)
		case err != nil:
			fmt.Fprintf(c.ErrOrStderr(), "nginxtune: nginx.conf left as it is; --tune-main would refuse: %v\n", err)
		case len(edits) == 0:
		case f.tuneMain:
			for file, fe := range edits {
				rel, err := filepath.Rel(ex.dir, file.Path)
				if err != nil || !filepath.IsLocal(rel) {
					return nil, failf(ExitError, "--tune-main: %s sets the worker numbers and is outside %s: change them there; nothing written", report.Escape(file.Path), report.Escape(f.into))
				}
				b, err := engine.ApplyEdits(file.Src, fe)
				if err != nil {
					return nil, failf(ExitError, "--tune-main: %s: %v", report.Escape(rel), err)
				}
				out = append(out, treeEdit{file, rel, b})
			}
			sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
			for _, l := range said {
				fmt.Fprintf(c.ErrOrStderr(), "nginxtune: --tune-main: %s\n", report.Escape(l))
			}
		default:
			for _, l := range said {
				fmt.Fprintf(c.ErrOrStderr(), "nginxtune: nginx.conf left as it is; --tune-main would set %s\n", report.Escape(l))
			}
		}
		if ex.facts.Default80 != "" && len(names) > 0 {
			fmt.Fprintf(c.ErrOrStderr(), "nginxtune: %s is the default server for port 80 and answers names no site serves; no catch-all added (disable it to have unknown names closed)\n", report.Escape(ex.facts.Default80))
		}
	}
	return out, nil
}

// printGen writes the files gen made to standard output, each under a
// header naming it.
func printGen(w io.Writer, files []templates.File) {
	for i, file := range files {
		if i > 0 {
			fmt.Fprintln(w)
		}
		// what gen prints holds text from flags and profile files: written
		// as every output (a CI log runs no workflow command from it)
		if file.Link != "" {
			fmt.Fprintf(w, "# ==> %s -> %s (symbolic link) <==\n", report.Escape(file.Path), report.Escape(file.Link))
			continue
		}
		if file.Stock {
			fmt.Fprintf(w, "# ==> %s: nginxtune's own (%d lines), written with --out where the tree has none <==\n", report.Escape(file.Path), strings.Count(file.Content, "\n"))
			continue
		}
		fmt.Fprintf(w, "# ==> %s <==\n%s", report.Escape(file.Path), report.EscapeLines(file.Content))
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// osPath is where a file of the OS half is installed on a host, relative
// to its root.
func osPath(p string) string {
	switch {
	case strings.HasPrefix(p, "sysctl.d/"):
		return "etc/" + p
	case strings.HasPrefix(p, "systemd/"):
		return "etc/systemd/system/" + strings.TrimPrefix(p, "systemd/")
	case strings.HasPrefix(p, "letsencrypt/"):
		return "etc/" + p
	}
	return p
}

// linkUnder returns the first symbolic link on the way from dir to
// dir/rel (the file itself included), "" when there is none.
func linkUnder(dir, rel string) string {
	p := dir
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		p = filepath.Join(p, part)
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// genFacts reads the facts to size for, with the flag overrides applied.
func genFacts(c *cobra.Command, f *genFlags) (*host.Facts, error) {
	var facts *host.Facts
	if f.factsFile != "" {
		hf, err := host.LoadFile(f.factsFile)
		if err != nil {
			return nil, failf(ExitError, "--facts: %v", err)
		}
		facts = hf
	} else if f.cpus == 0 || f.memory == "" {
		facts = readHost("/")
	} else {
		facts = &host.Facts{}
	}
	var spec []string
	if f.cpus < 0 || f.cpus > 65536 || (f.cpus == 0 && c.Flags().Changed("cpus")) {
		return nil, failf(ExitError, "--cpus %d: want 1 to 65536", f.cpus)
	}
	if f.cpus > 0 {
		spec = append(spec, fmt.Sprintf("cpus=%d", f.cpus))
	}
	if f.memory != "" {
		spec = append(spec, "mem="+f.memory)
	}
	if f.nofile != "" {
		spec = append(spec, "nofile="+f.nofile)
	}
	if len(spec) > 0 {
		over, err := host.ParseSpec(strings.Join(spec, " "))
		if err != nil {
			return nil, failf(ExitError, "%v", err)
		}
		if over.CPUOnline.Known() {
			facts.CPUOnline, facts.CPUAffinity, facts.CPUQuota = over.CPUOnline, over.CPUOnline, host.Fact[float64]{}
			facts.CPUOnline.Source, facts.CPUAffinity.Source = "--cpus", "--cpus"
		}
		if over.MemTotal.Known() {
			facts.MemTotal, facts.MemLimit = over.MemTotal, host.Fact[uint64]{}
			facts.MemTotal.Source = "--memory"
		}
		if over.NoFile.Known() {
			facts.NoFile = over.NoFile
			facts.NoFile.Source = "--nofile"
		}
	}
	return facts, nil
}

// certPaths lists the certificate and key files the generated files name.
func certPaths(files []templates.File) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		for _, l := range strings.Split(f.Content, "\n") {
			t := strings.Fields(strings.TrimSuffix(strings.TrimSpace(l), ";"))
			if len(t) == 2 && (t[0] == "ssl_certificate" || t[0] == "ssl_certificate_key") && !seen[t[1]] {
				seen[t[1]] = true
				out = append(out, t[1])
			}
		}
	}
	return out
}

// replaceDirective points every "NAME value;" line at path.
func replaceDirective(content, name, path string) string {
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, name) {
			lines[i] = l[:len(l)-len(strings.TrimLeft(l, " \t"))] + name + path + ";"
		}
	}
	return strings.Join(lines, "\n")
}

// thisHost reports whether gen sizes for the machine it runs on.
func thisHost(f *genFlags) bool { return f.factsFile == "" && (f.cpus == 0 || f.memory == "") }

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

// upstreamServerRe reads an upstream's "server HOST[:PORT] ...;" line.
var upstreamServerRe = lazyre.New(`(?m)^(\s*server\s+)([A-Za-z][A-Za-z0-9.-]*)((?::[0-9]+)?(?:\s[^;]*)?;)`)

// standInUpstreams replaces, for nginx -t, the upstream servers named by a
// host name with 127.0.0.1: nginx -t resolves every name, and one that
// exists only where the configuration runs (a container network's
// "app:3000") fails it with "host not found" although the configuration is
// fine. No name is looked up here, by nginx -t or by gen. It returns the
// names replaced.
func standInUpstreams(content string) (string, []string) {
	var names []string
	out := upstreamServerRe().ReplaceAllStringFunc(content, func(m string) string {
		sub := upstreamServerRe().FindStringSubmatch(m)
		name := sub[2]
		if name == "localhost" || strings.HasPrefix(name, "unix") || net.ParseIP(name) != nil {
			return m
		}
		names = append(names, name)
		return sub[1] + "127.0.0.1" + sub[3]
	})
	return out, names
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

// distributionIncludes are what distributions' nginx.conf include: the
// dynamic modules, and the directories their sites live in.
var distributionIncludes = []string{"modules-enabled", "sites-enabled", "conf.d", "default.d"}

// distributionConf refuses to replace an nginx.conf that gen did not write
// and that includes a distribution's directories: gen's own nginx.conf
// would drop them, and with them the dynamic modules and every site they
// load. --force does not change that.
func distributionConf(p string) error {
	b, err := boundedread.File(p, 1<<20, "")
	if err != nil {
		return nil // nothing there (or nothing gen could read to replace)
	}
	if strings.HasPrefix(string(b), "# Written by nginxtune gen") {
		return nil
	}
	var found []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), ";"))
		if len(f) != 2 || f[0] != "include" {
			continue
		}
		for _, d := range distributionIncludes {
			if strings.Contains(f[1], d+"/") {
				found = append(found, f[1])
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("%s is not gen's: it includes %s, which gen's nginx.conf would drop with the modules and sites they load, even with --force; to add the site to this configuration, give --into %s instead of --out (--tune-main also sets its worker numbers)", p, report.Escape(strings.Join(found, ", ")), report.Escape(filepath.Dir(p)))
}
