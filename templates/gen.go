// Package templates renders tuned nginx configurations, and the OS settings
// they rely on, from a profile and the facts of the host they are for.
//
// Profiles are YAML (embedded, or a user's file); the configuration files
// are text/template templates, embedded, executed with missing keys as
// errors. Every sized number carries a comment that says where it came from.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"github.com/nginxtune/nginxtune/knowledge"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/nginxtune/nginxtune/host"
	"go.yaml.in/yaml/v3"
)

//go:embed profiles/*.yaml files/*.tmpl
var embedded embed.FS

// Profile is what a kind of site needs, independent of the host.
type Profile struct {
	Name              string   `yaml:"name"`
	Description       string   `yaml:"description"`
	Kind              string   `yaml:"kind"` // static, proxy or php
	Root              string   `yaml:"root"`
	Index             []string `yaml:"index"`
	TryFiles          string   `yaml:"try_files"`
	DefaultUpstreams  []string `yaml:"default_upstreams"`
	GzipTypes         []string `yaml:"gzip_types"`
	AssetExpires      string   `yaml:"asset_expires"`
	NoCacheIndex      bool     `yaml:"no_cache_index"`
	ClientMaxBodySize string   `yaml:"client_max_body_size"`
	KeepaliveTimeout  string   `yaml:"keepalive_timeout"`
	Websockets        bool     `yaml:"websockets"`
}

// Profiles lists the embedded profile names.
func Profiles() []string {
	entries, _ := fs.ReadDir(embedded, "profiles")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// LoadProfile returns an embedded profile by name.
func LoadProfile(name string) (*Profile, error) {
	b, err := embedded.ReadFile("profiles/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("unknown profile %q (have %s)", name, strings.Join(Profiles(), ", "))
	}
	return ParseProfile(b, name+".yaml")
}

// ParseProfile reads a profile; unknown keys and missing required ones are
// errors naming the file.
func ParseProfile(b []byte, name string) (*Profile, error) {
	var p Profile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	switch p.Kind {
	case "static", "proxy", "php":
	default:
		return nil, fmt.Errorf("%s: kind %q: want static, proxy or php", name, p.Kind)
	}
	if p.Name == "" {
		return nil, fmt.Errorf("%s: name is required", name)
	}
	if p.Kind != "proxy" && (p.Root == "" || len(p.Index) == 0 || p.TryFiles == "") {
		return nil, fmt.Errorf("%s: a %s profile needs root, index and try_files", name, p.Kind)
	}
	if p.KeepaliveTimeout == "" || p.ClientMaxBodySize == "" || len(p.GzipTypes) == 0 {
		return nil, fmt.Errorf("%s: keepalive_timeout, client_max_body_size and gzip_types are required", name)
	}
	for _, t := range p.GzipTypes {
		if knowledge.IsCompressedType(t) {
			// what lint's gzip-compressed-types would report in the output
			return nil, fmt.Errorf("%s: gzip_types lists %s, compressed already: gzip would spend CPU on it for nothing", name, t)
		}
	}
	return &p, nil
}

// TLS names the certificate files.
type TLS struct{ Cert, Key string }

// Input is what the user asked for.
type Input struct {
	ServerNames []string
	Root        string
	Upstreams   []string
	TLS         *TLS
	ACME        bool
	ACMERoot    string
	// User is the account the workers run as ("www-data" on Debian and
	// Ubuntu, "nginx" on RHEL, Alpine and the official Docker image);
	// empty: www-data.
	User string
	// ConfDir is where the configuration is installed on the host (the
	// ACME hook enables the HTTPS site there); default /etc/nginx.
	ConfDir string
	// FPMMaxChildren is php-fpm's pm.max_children for the php profile (0:
	// unknown), and FPMWhy where it came from.
	FPMMaxChildren int
	FPMWhy         string
	// Concurrency is how many requests the proxy profile expects in flight
	// to its backends at once (0: unknown), to size the keepalive pool.
	Concurrency int
}

// File is one generated file.
type File struct {
	Path    string // relative to the output directory
	Content string
	Mode    uint32
}

// Render produces the files for a profile on a host and nginx version.
func Render(p *Profile, f *host.Facts, v knowledge.Version, in Input) ([]File, Plan, error) {
	if err := Validate(p, in); err != nil {
		return nil, Plan{}, err
	}
	if len(in.ServerNames) == 0 {
		in.ServerNames = []string{"_"}
	}
	if in.Root == "" {
		in.Root = p.Root
	}
	if len(in.Upstreams) == 0 {
		in.Upstreams = p.DefaultUpstreams
	}
	if in.ACME {
		if in.ServerNames[0] == "_" {
			return nil, Plan{}, fmt.Errorf("--acme needs --server-name: certificates are issued for names")
		}
		if in.TLS == nil {
			live := "/etc/letsencrypt/live/" + in.ServerNames[0]
			in.TLS = &TLS{Cert: live + "/fullchain.pem", Key: live + "/privkey.pem"}
		}
		if in.ACMERoot == "" {
			in.ACMERoot = "/var/www/acme"
		}
	}
	if in.User == "" {
		in.User = "www-data"
	}
	if in.ConfDir == "" {
		in.ConfDir = "/etc/nginx"
	}
	plan := Size(p, f, v, in)
	// a catch-all server closes unknown names; with no name given the
	// site itself answers every name, so there is none
	catchAll := in.ServerNames[0] != "_"
	site := in.ServerNames[0]
	if site == "_" {
		site = "default"
	}
	data := map[string]any{
		"Profile":   p,
		"Plan":      plan,
		"In":        in,
		"Version":   v.String(),
		"Host":      hostSummary(f),
		"Static":    p.Kind == "static" || p.Kind == "php",
		"TLS":       in.TLS != nil,
		"Site":      site,
		"Upstream":  upstreamName(p, site),
		"Websocket": p.Websockets,
	}
	tmpl, err := template.New("").Option("missingkey=error").Funcs(template.FuncMap{
		"join": strings.Join,
	}).ParseFS(embedded, "files/*.tmpl")
	if err != nil {
		return nil, plan, err
	}
	render := func(name string) (string, error) {
		var b bytes.Buffer
		if err := tmpl.ExecuteTemplate(&b, name, data); err != nil {
			return "", err
		}
		// a process id in a fact's source (proc/1234/limits) would change
		// the output on every run: same inputs, same bytes
		return pidRe.ReplaceAllString(tidy(b.String()), "proc/PID/"), nil
	}
	var files []File
	for _, spec := range []struct {
		tmpl, path string
		mode       uint32
		when       bool
	}{
		{"nginx.conf.tmpl", "nginx.conf", 0o644, true},
		{"site.conf.tmpl", path.Join("sites", site+".conf"), 0o644, true},
		{"site-tls.conf.tmpl", path.Join("sites", site+"-tls.conf.off"), 0o644, in.ACME},
		{"sysctl.conf.tmpl", "sysctl.d/60-nginxtune.conf", 0o644, true},
		{"systemd.conf.tmpl", "systemd/nginx.service.d/nginxtune.conf", 0o644, plan.LimitNOFILE},
		{"default-server.conf.tmpl", "sites/00-default.conf", 0o644, catchAll},
		{"connection-upgrade.conf.tmpl", "sites/00-connection-upgrade.conf", 0o644, p.Kind == "proxy" && p.Websockets},
		{"default-server-tls.conf.tmpl", "sites/00-default-tls.conf", 0o644, catchAll && in.TLS != nil && !v.Less(rejectHandshake)},
		{"acme-hook.tmpl", "letsencrypt/renewal-hooks/deploy/nginxtune-reload-" + site, 0o755, in.ACME},
	} {
		if !spec.when {
			continue
		}
		s, err := render(spec.tmpl)
		if err != nil {
			return nil, plan, err
		}
		files = append(files, File{Path: spec.path, Content: s, Mode: spec.mode})
	}
	return files, plan, nil
}

// rejectHandshake is the first nginx with ssl_reject_handshake.
var rejectHandshake = knowledge.MustVersion("1.19.4")

var pidRe = regexp.MustCompile(`proc/[0-9]+/`)

// upstreamName names a site's upstream after the site, so that the sites
// of several gen runs in one directory never declare one name twice.
func upstreamName(p *Profile, site string) string {
	base := "backend"
	if p.Kind == "php" {
		base = "php_fpm"
	}
	if site == "default" {
		return base
	}
	return base + "_" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, site)
}

// tidy removes the blank lines template actions leave behind: no more than
// one blank line in a row, none after an opening brace or before a closing one.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		blank := l == ""
		if blank {
			if len(out) == 0 || out[len(out)-1] == "" || strings.HasSuffix(out[len(out)-1], "{") {
				continue
			}
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "}" {
				continue
			}
		}
		out = append(out, l)
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n") + "\n"
}

func hostSummary(f *host.Facts) string {
	var parts []string
	if n := f.UsableCPUs(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d usable CPU(s)", n))
	} else {
		parts = append(parts, "CPUs unknown")
	}
	if m := f.Memory(); m > 0 {
		parts = append(parts, humanBytes(m)+" memory")
	} else {
		parts = append(parts, "memory unknown")
	}
	if f.NoFile.Known() {
		parts = append(parts, fmt.Sprintf("open-file limit %d/%d", f.NoFile.Value.Soft, f.NoFile.Value.Hard))
	}
	return strings.Join(parts, ", ")
}
