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
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/internal/yamlstrict"
	"github.com/nginxtune/nginxtune/knowledge"

	"go.yaml.in/yaml/v3"

	"github.com/nginxtune/nginxtune/host"
)

//go:embed profiles/*.yaml files/*.tmpl
var embedded embed.FS

// Kind is what a site's requests go to.
type Kind string

// The kinds of site.
const (
	Static Kind = "static" // files from a document root
	Proxy  Kind = "proxy"  // an HTTP backend
	PHP    Kind = "php"    // PHP-FPM over FastCGI
	UWSGI  Kind = "uwsgi"  // a uwsgi application server
	GRPC   Kind = "grpc"   // a gRPC backend
)

// Profile is what a kind of site needs, independent of the host. The
// embedded profiles (templates/profiles/*.yaml) say why in comments.
type Profile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Kind        Kind   `yaml:"kind"`
	// Root is the document root; {site} in it stands for the site's name
	// (/var/www/{site}), so that a site never shares a root, and never
	// the one a distribution's default site serves to bare addresses
	// (Debian's /var/www/html).
	Root              string   `yaml:"root"`
	Index             []string `yaml:"index"`
	TryFiles          string   `yaml:"try_files"`
	DefaultUpstreams  []string `yaml:"default_upstreams"`
	GzipTypes         []string `yaml:"gzip_types"`
	AssetExpires      string   `yaml:"asset_expires"`
	ClientMaxBodySize string   `yaml:"client_max_body_size"`
	KeepaliveTimeout  string   `yaml:"keepalive_timeout"`
	// KeepaliveTimeoutWhy, ClientMaxBodySizeWhy and AssetExpiresWhy say
	// why, in the comment above each value (a generic one when unset).
	KeepaliveTimeoutWhy  string `yaml:"keepalive_timeout_why"`
	ClientMaxBodySizeWhy string `yaml:"client_max_body_size_why"`
	AssetExpiresWhy      string `yaml:"asset_expires_why"`
	Websockets           bool   `yaml:"websockets"`
	// NoCacheIndex is accepted from profiles written before every profile
	// that serves files revalidated its HTML; it changes nothing now.
	NoCacheIndex bool `yaml:"no_cache_index"`

	// PHPScripts says which PHP files run: "all" (any .php under the
	// root: WordPress's wp-admin/*.php, Drupal's update.php) or "front"
	// (only FrontController; every other .php is a 404, as Laravel and
	// Symfony want).
	PHPScripts      string `yaml:"php_scripts"`
	FrontController string `yaml:"front_controller"`
	// RealpathRoot passes PHP the resolved root ($realpath_root), so that a
	// release switched by moving a symbolic link is picked up at once
	// (opcache keys scripts by their real path).
	RealpathRoot bool `yaml:"realpath_root"`
	// Deny lists URIs answered 404 before anything else (regular
	// expressions, case-insensitive).
	Deny []Deny `yaml:"deny"`
	// Generated are URIs whose files the application makes on the first
	// request (Drupal's image styles): a missing file goes to the
	// fallback instead of a 404 from the asset locations.
	Generated []Deny `yaml:"generated"`
	// RateLimits are exact URIs (a login form) limited per client address.
	RateLimits []RateLimit `yaml:"rate_limits"`
	// Aliases serve a URI prefix from a directory outside the root
	// (Django's /static/ and /media/).
	Aliases []Alias `yaml:"aliases"`
	// Immutable matches the URIs of fingerprinted files (a hash in the
	// name, or a build directory that holds only such files): cached for a
	// year and never revalidated.
	Immutable string `yaml:"immutable"`
	// H2CPort is the port of a grpc profile without TLS: plaintext HTTP/2
	// has a port of its own, since before nginx 1.25.1 "listen ... http2"
	// makes a plaintext port HTTP/2-only for every server on it.
	H2CPort int `yaml:"h2c_port"`
}

// Deny is a URI pattern never served.
type Deny struct {
	Match string `yaml:"match"`
	Why   string `yaml:"why"`
}

// RateLimit limits requests to one exact URI per client address.
type RateLimit struct {
	Path  string `yaml:"path"`
	Rate  string `yaml:"rate"`
	Burst int    `yaml:"burst"`
	Why   string `yaml:"why"`
}

// Alias serves a URI prefix from a directory.
type Alias struct {
	Location string `yaml:"location"`
	Path     string `yaml:"path"`
	Expires  string `yaml:"expires"`
	// ExpiresWhy says why, in a comment above it.
	ExpiresWhy string `yaml:"expires_why"`
	Why        string `yaml:"why"`
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
		return nil, yamlstrict.DecodeError(name, err, untrusted.Clip)
	}
	switch p.Kind {
	case Static, Proxy, PHP, UWSGI, GRPC:
	default:
		return nil, fmt.Errorf("%s: kind %q: want static, proxy, php, uwsgi or grpc", name, p.Kind)
	}
	if p.Name == "" {
		return nil, fmt.Errorf("%s: name is required", name)
	}
	if servesFiles(&p) && (p.Root == "" || len(p.Index) == 0 || p.TryFiles == "") {
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
// DefaultVersion is the nginx version gen writes for when neither its
// options nor the host say: the current stable line.
const DefaultVersion = "1.30.0"

type TLS struct{ Cert, Key string }

// ParseTLS reads gen's --tls value, "CERT,KEY".
func ParseTLS(s string) (*TLS, error) {
	cert, key, ok := strings.Cut(s, ",")
	if !ok || cert == "" || key == "" {
		return nil, fmt.Errorf("--tls %q: want CERT,KEY", s)
	}
	return &TLS{Cert: cert, Key: key}, nil
}

// Input is what the user asked for.
type Input struct {
	ServerNames []string
	Root        string
	Upstreams   []string
	TLS         *TLS
	ACME        bool
	ACMERoot    string
	// User is the account the workers run as; empty: the layout's.
	User string
	// ConfDir is where the configuration is installed on the host (the
	// ACME hook enables the HTTPS site there); empty: the layout's.
	ConfDir string
	// FPMMaxChildren is php-fpm's pm.max_children for the php profile (0:
	// unknown), and FPMWhy where it came from.
	FPMMaxChildren int
	FPMWhy         string
	// Concurrency is how many requests the proxy profile expects in flight
	// to its backends at once (0: unknown), to size the keepalive pool.
	Concurrency int

	// Layout is where the files go; nil: prefix.
	Layout *Layout
	// Existing is the tree a site is added to (--into); nil: gen writes
	// a complete tree.
	Existing *Existing
	// Site names the site's files; empty: the first server name.
	Site string

	// NoSecurityHeaders leaves out nosniff, frame, referrer and
	// permissions headers (HSTS stays with TLS); CSP is a
	// Content-Security-Policy to send.
	NoSecurityHeaders bool
	CSP               string
	// HSTSSubdomains and HSTSPreload extend Strict-Transport-Security.
	HSTSSubdomains, HSTSPreload bool
	// TLSProfile is Mozilla's "intermediate" (default) or "modern".
	TLSProfile string
	// WWWRedirect answers the other name of www.NAME / NAME with a
	// permanent redirect to the first server name.
	WWWRedirect bool
	// Brotli and BrotliStatic say the host's nginx has the ngx_brotli
	// filter and static modules; BrotliWhy says how that is known.
	Brotli, BrotliStatic bool
	BrotliWhy            string
	// Stapling turns on OCSP stapling with these resolvers (the
	// certificate names a responder); StaplingWhy says why it is on or
	// off.
	Stapling    []string
	StaplingWhy string
}

// File is one generated file.
type File struct {
	Path    string // relative to the output directory
	Content string
	Mode    uint32
	// Link, when set, makes the file a symbolic link to Link (Debian's
	// sites-enabled/NAME -> ../sites-available/NAME); Content is empty.
	Link string
	// OS marks the OS half (sysctl.d, the systemd drop-in): files for
	// the host, not for the nginx configuration directory.
	OS bool
	// Enable, on the HTTPS site --acme stages, is where the deploy hook
	// enables it once the certificate exists: a link to Path in the
	// layout's EnabledDir, else Path renamed.
	Enable string
	// Stock marks a data file nginx's packages ship (mime.types,
	// fastcgi_params): written where the tree has none, and a file there
	// already, the package's, is kept as it is.
	Stock bool
}

// Header is a response header every answer of the site carries.
type Header struct{ Name, Value string }

// Render produces the files for a profile on a host and nginx version.
func Render(p *Profile, f *host.Facts, v knowledge.Version, in Input) ([]File, Plan, error) {
	if err := Validate(p, in); err != nil {
		return nil, Plan{}, err
	}
	in = escapeQuoted(in)
	if in.Layout == nil {
		in.Layout = Layouts["prefix"]
	}
	lay := in.Layout
	if len(in.ServerNames) == 0 {
		in.ServerNames = []string{"_"}
	}
	if in.Root == "" {
		in.Root = strings.ReplaceAll(p.Root, siteVar, rootName(SiteName(in)))
	}
	if len(in.Upstreams) == 0 {
		in.Upstreams = p.DefaultUpstreams
		// php-fpm's socket is where the layout's packages put it
		if p.Kind == PHP && len(in.Upstreams) == 1 && in.Upstreams[0] == Layouts["prefix"].PHPSocket {
			switch {
			case lay.PHPSocket != "":
				in.Upstreams = []string{lay.PHPSocket}
			default:
				return nil, Plan{}, fmt.Errorf("--upstream is required for %s in the %s layout: php-fpm runs in another container there (for example --upstream php:9000)", p.Name, lay.Name)
			}
		}
	}
	if in.ACME {
		if in.ServerNames[0] == "_" {
			return nil, Plan{}, fmt.Errorf("--acme needs --server-name: certificates are issued for names")
		}
		if !lay.OS {
			return nil, Plan{}, fmt.Errorf("--acme is not for the %s layout: certbot and its deploy hook run on a host; in a container, mount the certificates and give --tls CERT,KEY", lay.Name)
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
		in.User = lay.User
	}
	if in.ConfDir == "" {
		in.ConfDir = lay.ConfDir
	}
	if in.TLSProfile == "" {
		in.TLSProfile = "intermediate"
	}
	plan := Size(p, f, v, in)
	into := in.Existing != nil
	// a catch-all server closes unknown names; with no name given the
	// site itself answers every name, so there is none; in a tree that
	// has a default server for the port already, that one answers them
	named := in.ServerNames[0] != "_"
	catchAll80 := named && !(into && in.Existing.Default80 != "")
	catchAllTLS := named && in.TLS != nil && !v.Less(rejectHandshake) && !(into && in.Existing.Default443 != "")
	// gRPC without TLS has a port of its own, which needs its own
	catchAllH2C := named && p.Kind == GRPC && in.TLS == nil
	site := SiteName(in)
	www := ""
	if in.WWWRedirect {
		www = wwwPartner(in.ServerNames[0])
		if www == "" {
			return nil, Plan{}, fmt.Errorf("--www-redirect needs a server name with a www form (example.com or www.example.com), not %q", clip(in.ServerNames[0]))
		}
		for _, n := range in.ServerNames {
			if n == www {
				return nil, Plan{}, fmt.Errorf("--www-redirect: %s is among the server names, so it cannot be redirected to %s", www, in.ServerNames[0])
			}
		}
	}
	upgradeMap := p.Websockets && (p.Kind == Proxy)
	data := map[string]any{
		"Profile":     p,
		"Plan":        plan,
		"In":          in,
		"Layout":      lay,
		"Into":        into,
		"Version":     v.String(),
		"Host":        hostSummary(f),
		"Static":      servesFiles(p),
		"TLS":         in.TLS != nil,
		"Site":        site,
		"Ident":       ident(site),
		"Upstream":    upstreamName(p, site),
		"Websocket":   p.Websockets,
		"Headers":     headers(in),
		"TLSConf":     tlsSettings(in, f),
		"Fallback":    fallback(p),
		"FileMissing": map[bool]string{true: fallback(p), false: "=404"}[p.Kind == PHP],
		"WWW":         www,
		"Shared":      lay.SharedPath("connection-upgrade"),
		"UpgradeMap":  upgradeMap && !(into && in.Existing.UpgradeMap != ""),
		"Staged":      stagedPath(lay, site),
		"Enabled":     enabledPath(lay, site+"-tls"),
		"RunFlags":    runFlags(plan),
		"AssetExts":   assetExts,
		"ExactHome":   exactHome(p),
		"PagesFirst":  pagesFirst(p),
		"HomeTry":     homeTryFiles(p),
	}
	tmpl, err := template.New("").Option("missingkey=error").Funcs(template.FuncMap{
		"join":       strings.Join,
		"add":        func(a, b int) int { return a + b },
		"regexQuote": regexp.QuoteMeta,
		"hasSuffix":  strings.HasSuffix,
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
		return pidRe().ReplaceAllString(tidy(b.String()), "proc/PID/"), nil
	}
	// the OS half: in a complete tree beside nginx.conf, to be installed;
	// added to an existing tree, only with the main numbers it serves
	osHalf := lay.OS && (!into || in.Existing.TuneMain)
	var files []File
	for _, spec := range []struct {
		tmpl, path string
		mode       uint32
		when, os   bool
	}{
		{"nginx.conf.tmpl", "nginx.conf", 0o644, !into, false},
		{"site.conf.tmpl", lay.SitePath(site), 0o644, true, false},
		{"site-tls.conf.tmpl", stagedPath(lay, site), 0o644, in.ACME, false},
		{"sysctl.conf.tmpl", "sysctl.d/60-nginxtune.conf", 0o644, osHalf, true},
		{"systemd.conf.tmpl", "systemd/nginx.service.d/nginxtune.conf", 0o644, osHalf && plan.LimitNOFILE, true},
		{"default-server.conf.tmpl", lay.CatchAllPath("default"), 0o644, catchAll80, false},
		{"connection-upgrade.conf.tmpl", lay.SharedPath("connection-upgrade"), 0o644, data["UpgradeMap"].(bool), false},
		{"default-server-tls.conf.tmpl", lay.CatchAllPath("default-tls"), 0o644, catchAllTLS, false},
		{"default-server-h2c.conf.tmpl", lay.CatchAllPath(fmt.Sprintf("default-%d", p.H2CPort)), 0o644, catchAllH2C, false},
		{"acme-hook.tmpl", "letsencrypt/renewal-hooks/deploy/nginxtune-reload-" + site, 0o755, in.ACME, true},
	} {
		if !spec.when {
			continue
		}
		s, err := render(spec.tmpl)
		if err != nil {
			return nil, plan, err
		}
		file := File{Path: spec.path, Content: s, Mode: spec.mode, OS: spec.os}
		if spec.tmpl == "site-tls.conf.tmpl" {
			file.Enable = enabledPath(lay, site+"-tls")
		}
		files = append(files, file)
		// Debian enables a site by a link in sites-enabled (the staged
		// HTTPS site is linked by the deploy hook, once it can load)
		if lay.EnabledDir != "" && strings.HasPrefix(spec.path, lay.SiteDir+"/") && spec.tmpl != "site-tls.conf.tmpl" {
			name := path.Base(spec.path)
			files = append(files, File{Path: path.Join(lay.EnabledDir, name), Link: path.Join("..", lay.SiteDir, name), Mode: 0o777})
		}
	}
	if !into {
		files = append(files, stockFiles(p, lay)...)
	}
	return files, plan, nil
}

// escapeQuoted escapes the texts gen quotes in comments that come from
// files rather than from what was asked: the tree's file names a site is
// added to (where $connection_upgrade is defined, the default servers), a
// module's or a php-fpm pool file's path and section, a certificate's
// responder. Written as report writes them to a terminal (a line break as
// \x0a), none can end its comment and start a directive, or reach a
// terminal raw when the files are printed.
func escapeQuoted(in Input) Input {
	in.FPMWhy, in.BrotliWhy, in.StaplingWhy = untrusted.Escape(in.FPMWhy), untrusted.Escape(in.BrotliWhy), untrusted.Escape(in.StaplingWhy)
	if in.Existing != nil {
		e := *in.Existing
		e.Default80, e.Default443, e.UpgradeMap = untrusted.Escape(e.Default80), untrusted.Escape(e.Default443), untrusted.Escape(e.UpgradeMap)
		in.Existing = &e
	}
	return in
}

// assetExts are the file name extensions of the assets a page loads
// (styles, scripts and their source maps, images, fonts, media, PDF), as
// the alternatives of a location regex: cached for the profile's time, and
// the only files of a PHP project's vendor/ directories that are served.
const assetExts = "css|js|mjs|map|png|jpe?g|gif|webp|avif|svg|ico|woff2?|ttf|otf|eot|mp4|webm|ogg|mp3|m4a|wav|flac|pdf"

// siteVar in a profile's root stands for the site's name.
const siteVar = "{site}"

// rootName is a site's name as a directory under /var/www: a wildcard
// server name without its wildcard (*.example.com: example.com).
func rootName(site string) string {
	n := strings.Trim(strings.ReplaceAll(site, "*", ""), ".")
	if n == "" {
		return "default"
	}
	return n
}

// servesFiles reports whether a profile serves files from a root.
func servesFiles(p *Profile) bool { return p.Kind == Static || p.Kind == PHP }

// htmlIndex is a first index file the HTML location answers, with a name
// that needs no quoting in a location.
var htmlIndex = lazyre.New(`^[A-Za-z0-9_-][A-Za-z0-9._-]*\.(?i:html?)$`)

// exactHome reports whether a files profile answers its home page, "/"
// and the index page it leads to, from exact locations: the same
// directives as the locations that would answer them, found without
// testing a request against every regex location first. Only where none
// of the regex or ^~ locations a profile adds (deny, generated, aliases)
// could take either page from them; gen's own never do.
func exactHome(p *Profile) bool {
	return pagesFirst(p) && len(p.Aliases) == 0 && len(p.Index) > 0 && htmlIndex().MatchString(p.Index[0])
}

// pagesFirst reports whether a files profile tests a request against its
// HTML location before the deny location, with the dot-files the deny
// location hides left out of the HTML location's own regex: a page then
// costs one regex test instead of two, and every request is answered by
// the same location as before (a URI that ends in .html or .htm never ends
// in a backup's suffix, so the deny location's other part takes none of
// them). Only the static profiles, whose deny location is gen's own alone:
// a profile's deny or generated locations, and the php profiles' Composer,
// vendor/ and uploads parts, could take a page the HTML location would.
func pagesFirst(p *Profile) bool {
	return p.Kind == Static && len(p.Deny) == 0 && len(p.Generated) == 0
}

// homeTryFiles is the try_files of the exact location for "/" that
// answers with the first index page itself: that page, then the
// profile's try_files from "$uri/" on. "location /" answers "/" through
// "$uri/" ("$uri" is the root, a directory, which it never takes), whose
// index page the index module finds and redirects to, where the exact
// location of that page answers it; taking the page straight away, with
// that location's directives, sends the same answer without the redirect
// and the lookups before it, and a missing or unreadable page still goes
// on to "$uri/". "" where the home page has no exact locations or the
// profile's try_files does not begin with "$uri $uri/" (an alternative
// between them, such as "$uri.html", could answer "/" first).
func homeTryFiles(p *Profile) string {
	f := strings.Fields(p.TryFiles)
	if !exactHome(p) || len(f) < 3 || f[0] != "$uri" || f[1] != "$uri/" {
		return ""
	}
	return "/" + p.Index[0] + " " + strings.Join(f[1:], " ")
}

// stagedPath is where the HTTPS site of --acme waits for its certificate:
// Debian's sites-available without a link, elsewhere a name the sites'
// include does not match.
func stagedPath(l *Layout, site string) string {
	if l.EnabledDir != "" {
		return l.SitePath(site + "-tls")
	}
	return l.SitePath(site+"-tls") + ".off"
}

// enabledPath is where an enabled site is read from.
func enabledPath(l *Layout, name string) string {
	if l.EnabledDir != "" {
		return path.Join(l.EnabledDir, name+l.SiteSuffix)
	}
	return l.SitePath(name)
}

// wwwPartner is the other form of a name: www.example.com for
// example.com and the reverse; "" for a wildcard, "_" or a bare label.
func wwwPartner(n string) string {
	if n == "_" || strings.ContainsAny(n, "*") || strings.HasPrefix(n, ".") || !strings.Contains(n, ".") {
		return ""
	}
	if rest, ok := strings.CutPrefix(n, "www."); ok {
		if !strings.Contains(rest, ".") {
			return ""
		}
		return rest
	}
	return "www." + n
}

// fallback is the last try_files argument: where a file that is not there
// goes (=404, or the front controller).
func fallback(p *Profile) string {
	f := strings.Fields(p.TryFiles)
	if len(f) == 0 {
		return "=404"
	}
	return f[len(f)-1]
}

// headers are the response headers of every answer: HSTS with TLS, and
// the ones browsers act on (docs/gen.md says what each does).
func headers(in Input) []Header {
	var out []Header
	if in.TLS != nil {
		v := "max-age=63072000"
		if in.HSTSSubdomains || in.HSTSPreload {
			v += "; includeSubDomains"
		}
		if in.HSTSPreload {
			v += "; preload"
		}
		out = append(out, Header{"Strict-Transport-Security", v})
	}
	if in.NoSecurityHeaders {
		return out
	}
	out = append(out, Header{"X-Content-Type-Options", "nosniff"})
	if !strings.Contains(in.CSP, "frame-ancestors") {
		out = append(out, Header{"X-Frame-Options", "SAMEORIGIN"})
	}
	out = append(out,
		Header{"Referrer-Policy", "strict-origin-when-cross-origin"},
		Header{"Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()"})
	if in.CSP != "" {
		out = append(out, Header{"Content-Security-Policy", in.CSP})
	}
	return out
}

// TLSConf is what the TLS profile writes.
type TLSConf struct {
	Profile, Protocols, Ciphers, Curves, Why string
	CurvesWhy                                string
	Stapling                                 []string
	StaplingWhy                              string
}

// mlkem is the first OpenSSL that offers the X25519MLKEM768 hybrid group.
var mlkem = knowledge.MustVersion("3.5.0")

// tlsSettings follows Mozilla's server-side TLS guidelines (version 5.7,
// docs/gen.md): intermediate for clients back to 2017, modern for TLS 1.3
// only. The post-quantum hybrid group goes first where the OpenSSL nginx
// runs with has it.
func tlsSettings(in Input, f *host.Facts) TLSConf {
	c := TLSConf{Profile: in.TLSProfile, Curves: "X25519:prime256v1:secp384r1"}
	switch in.TLSProfile {
	case "modern":
		c.Protocols = "TLSv1.3"
		c.Why = "Mozilla's modern TLS guideline (5.7): TLS 1.3 only, whose cipher suites need no list; clients older than 2018-2020 (Android 9, Safari 12.1, Firefox 63) cannot connect"
	default:
		c.Protocols = "TLSv1.2 TLSv1.3"
		c.Ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
		c.Why = "Mozilla's intermediate TLS guideline (5.7), without the DHE suites (they need an ssl_dhparam file)"
	}
	switch sv, err := knowledge.ParseVersion(f.NginxOpenSSL.Value); {
	case !f.NginxOpenSSL.Known() || err != nil:
		c.CurvesWhy = "the OpenSSL nginx runs with is unknown: no post-quantum group (X25519MLKEM768 needs OpenSSL 3.5)"
	case sv.Less(mlkem):
		c.CurvesWhy = fmt.Sprintf("OpenSSL %s (%s) has no X25519MLKEM768 (3.5 and later)", f.NginxOpenSSL.Value, f.NginxOpenSSL.Source)
	default:
		c.Curves = "X25519MLKEM768:" + c.Curves
		c.CurvesWhy = fmt.Sprintf("OpenSSL %s (%s): the post-quantum hybrid X25519MLKEM768 first, for the clients that offer it", f.NginxOpenSSL.Value, f.NginxOpenSSL.Source)
	}
	c.Stapling, c.StaplingWhy = in.Stapling, in.StaplingWhy
	return c
}

// runFlags are the container runtime's flags for what the OS half would
// set on a host (docker run --ulimit, --sysctl).
func runFlags(pl Plan) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("--ulimit nofile=%d:%d", pl.LimitSoft, max(pl.LimitHard, pl.LimitSoft)))
	for _, s := range pl.Sysctls {
		if strings.HasPrefix(s.Key, "net.") {
			parts = append(parts, "--sysctl "+s.Key+"="+s.Value)
		}
	}
	return strings.Join(parts, " ")
}

// rejectHandshake is the first nginx with ssl_reject_handshake.
var rejectHandshake = knowledge.MustVersion("1.19.4")

var pidRe = lazyre.New(`proc/[0-9]+/`)

// upstreamName names a site's upstream after the site, so that the sites
// of several gen runs in one directory never declare one name twice.
func upstreamName(p *Profile, site string) string {
	base := "backend"
	switch p.Kind {
	case PHP:
		base = "php_fpm"
	case UWSGI:
		base = "uwsgi"
	case GRPC:
		base = "grpc"
	}
	if site == "default" {
		return base
	}
	return base + "_" + ident(site)
}

// ident makes a site's name a name nginx takes for zones and upstreams.
func ident(site string) string {
	return strings.Map(func(r rune) rune {
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
