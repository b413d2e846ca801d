package templates

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/internal/untrusted"
)

// Every value gen writes into a configuration, a file name or the ACME hook
// (a shell script) comes from flags or a profile file, which may come from
// anyone: each is checked against what it stands for, and nothing carries a
// character that ends a directive, opens a block, quotes, starts a comment
// or breaks a line. A value that fails is refused (exit 2), never escaped
// into something else.

var (
	// a host name or a wildcard name as server_name takes it: labels of
	// letters, digits and hyphens, "*." in front or ".*" at the end, or a
	// leading dot (".example.com": the name and its subdomains)
	serverNameRe = lazyre.New(`^(\*\.|\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(\.\*)?$`)
	// an absolute path of ordinary characters
	pathRe = lazyre.New(`^/[A-Za-z0-9._@+=,:~/-]*$`)
	// one try_files or index argument: a URI, a variable, a named location
	// or "=code"
	uriTokenRe = lazyre.New(`^[A-Za-z0-9._@+=,:~/$?&%-]+$`)
	mimeRe     = lazyre.New(`^[a-z0-9][a-z0-9.+-]*/[a-z0-9*][a-z0-9.+*-]*$`)
	sizeRe     = lazyre.New(`^[0-9]{1,12}[kKmMgG]?$`)
	timeRe     = lazyre.New(`^([0-9]{1,9}(ms|s|m|h|d|w|M|y)?)+$`)
	hostRe     = lazyre.New(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)
	// an account name as useradd takes it
	userRe = lazyre.New(`^[A-Za-z_][A-Za-z0-9_.-]{0,31}$`)
	// a profile's name: it becomes part of comments
	nameRe = lazyre.New(`^[A-Za-z0-9._-]{1,64}$`)
)

// checkPath reports whether p is a clean absolute path of ordinary
// characters.
func checkPath(what, p string) error {
	if len(p) > 1024 || !pathRe().MatchString(p) || filepath.Clean(p) != p {
		return fmt.Errorf("%s %q: want a clean absolute path of letters, digits and . _ - / (no spaces, quotes, ';', '{', '}', '#' or '$')", what, clip(p))
	}
	return nil
}

// CheckServerName reports whether n is a name gen can write: "_", a host
// name, or a wildcard name.
func CheckServerName(n string) error {
	if n == "_" {
		return nil
	}
	if len(n) > 253 || !serverNameRe().MatchString(n) || strings.Count(n, "*") > 1 {
		return fmt.Errorf("--server-name %q: want a host name (app.example.com) or a wildcard (*.example.com), or _", clip(n))
	}
	return nil
}

// CheckUpstream reports whether u is a backend address: host:port,
// [IPv6]:port, or unix:/path.
func CheckUpstream(u string) error {
	if p, ok := strings.CutPrefix(u, "unix:"); ok {
		return checkPath("upstream unix:", p)
	}
	host, port, err := net.SplitHostPort(u)
	if err != nil {
		host, port = u, ""
		if strings.Contains(u, ":") && net.ParseIP(u) == nil {
			return fmt.Errorf("upstream %q: want HOST:PORT, [IPv6]:PORT or unix:/PATH", clip(u))
		}
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("upstream %q: port %q is not 1 to 65535", clip(u), clip(port))
		}
	}
	if net.ParseIP(host) == nil && (len(host) > 253 || !hostRe().MatchString(host)) {
		return fmt.Errorf("upstream %q: want HOST:PORT, [IPv6]:PORT or unix:/PATH", clip(u))
	}
	return nil
}

// oneLine reports whether a profile's text, written into a comment, is one
// line of at most 200 bytes with nothing an output would have to escape
// (untrusted.Escape): no control character or line separator (which would end
// the comment, or rewrite a terminal that shows the file), no character
// that reorders text, no workflow command for a CI log that shows it.
func oneLine(s string) bool {
	return len(s) <= 200 && untrusted.Escape(s) == s
}

// checkTryFiles checks a profile's try_files: arguments of URI
// characters, where a variable can only be one that keeps the file looked
// up inside the root. $uri is the path nginx normalized (no /../ left); a
// header's or the query's value is not, and a file argument made of one
// serves any file the client names ($http_x: /../../etc/passwd). The last
// argument (where a request goes when no file is found) may add the query
// after its ?: $args, $query_string, $is_args.
func checkTryFiles(tf string) error {
	toks := strings.Split(tf, " ")
	for i, tok := range toks {
		if !uriTokenRe().MatchString(tok) || len(tok) > 256 {
			return fmt.Errorf("profile try_files %q: want arguments separated by single spaces, each a URI, @name or =code", clip(tf))
		}
		path, query, _ := strings.Cut(tok, "?")
		if i < len(toks)-1 || strings.HasPrefix(tok, "=") || strings.HasPrefix(tok, "@") {
			path, query = tok, ""
		}
		for _, part := range []struct {
			s     string
			allow map[string]bool
		}{{path, pathVars}, {query, queryVars}} {
			for _, m := range variableRe().FindAllStringSubmatch(part.s, -1) {
				if !part.allow[m[1]] {
					return fmt.Errorf("profile try_files %q: %s is not a variable gen writes there (a file argument takes $uri only, the query after the last argument's ? also $args, $query_string, $is_args): a value the client sends would name the file served", clip(tf), m[0])
				}
			}
		}
	}
	return nil
}

var (
	// a variable as nginx reads it in a value (braces are refused before)
	variableRe = lazyre.New(`\$([A-Za-z0-9_]*)`)
	pathVars   = map[string]bool{"uri": true}
	queryVars  = map[string]bool{"uri": true, "args": true, "query_string": true, "is_args": true}
)

// Validate checks a profile (built in or from a file) and what the user
// asked for before anything is rendered.
func Validate(p *Profile, in Input) error {
	if !nameRe().MatchString(p.Name) {
		return fmt.Errorf("profile name %q: want letters, digits, '.', '_' or '-'", clip(p.Name))
	}
	if !oneLine(p.Description) {
		return fmt.Errorf("profile %s: description: one line of at most 200 characters, without control characters, bidirectional marks or the start of a CI workflow command", p.Name)
	}
	if p.Root != "" {
		if err := checkPath("profile root", strings.ReplaceAll(p.Root, siteVar, "site")); err != nil {
			return err
		}
	}
	for _, ix := range p.Index {
		if !uriTokenRe().MatchString(ix) || len(ix) > 256 || strings.Contains(ix, "$") {
			return fmt.Errorf("profile index %q: want a file name (no $: nginx would read a variable there)", clip(ix))
		}
	}
	if p.TryFiles != "" {
		if err := checkTryFiles(p.TryFiles); err != nil {
			return err
		}
	}
	for _, u := range p.DefaultUpstreams {
		if err := CheckUpstream(u); err != nil {
			return fmt.Errorf("profile default_upstreams: %v", err)
		}
	}
	for _, t := range p.GzipTypes {
		if !mimeRe().MatchString(t) || len(t) > 128 {
			return fmt.Errorf("profile gzip_types %q: want a MIME type such as text/css", clip(t))
		}
	}
	switch e := p.AssetExpires; {
	case e == "", e == "off", e == "max", e == "epoch":
	case timeRe().MatchString(strings.TrimPrefix(strings.TrimPrefix(e, "modified "), "-")) && len(e) < 32:
	default:
		return fmt.Errorf("profile asset_expires %q: want a time (7d, 12h), max, off or epoch", clip(e))
	}
	if err := validateKind(p); err != nil {
		return err
	}
	if !sizeRe().MatchString(p.ClientMaxBodySize) {
		return fmt.Errorf("profile client_max_body_size %q: want a size (64m, 1g, 0)", clip(p.ClientMaxBodySize))
	}
	for _, t := range strings.Split(p.KeepaliveTimeout, " ") {
		if !timeRe().MatchString(t) || len(t) > 32 || strings.Count(p.KeepaliveTimeout, " ") > 1 {
			return fmt.Errorf("profile keepalive_timeout %q: want one or two times (30s, 75s 60s)", clip(p.KeepaliveTimeout))
		}
	}
	for _, n := range in.ServerNames {
		if err := CheckServerName(n); err != nil {
			return err
		}
		if in.ACME && (strings.Contains(n, "*") || strings.HasPrefix(n, ".")) {
			return fmt.Errorf("--acme: %q is a wildcard name; Let's Encrypt issues wildcard certificates only through DNS challenges, which --acme does not set up", clip(n))
		}
	}
	if in.User != "" && !userRe().MatchString(in.User) {
		return fmt.Errorf("--user %q: want an account name (letters, digits, '_', '-', '.'; at most 32)", clip(in.User))
	}
	if in.Root != "" {
		if err := checkPath("--root", in.Root); err != nil {
			return err
		}
	}
	if in.ACMERoot != "" {
		if err := checkPath("--acme-root", in.ACMERoot); err != nil {
			return err
		}
	}
	for _, u := range in.Upstreams {
		if err := CheckUpstream(u); err != nil {
			return fmt.Errorf("--upstream: %v", err)
		}
	}
	if in.TLS != nil {
		if err := checkPath("--tls certificate", in.TLS.Cert); err != nil {
			return err
		}
		if err := checkPath("--tls key", in.TLS.Key); err != nil {
			return err
		}
	}
	if in.CSP != "" && (len(in.CSP) > 4096 || !cspRe().MatchString(in.CSP) || untrusted.Escape(in.CSP) != in.CSP) {
		return fmt.Errorf("--csp %q: want a policy of printable characters without double quotes, backslashes or the start of a CI workflow command (default-src 'self'; img-src 'self' data:)", clip(in.CSP))
	}
	if strings.Contains(in.CSP, "$") {
		// add_header reads variables in its value: $uri holds a line
		// break the client sent as %0d%0a, a header of its choosing
		return fmt.Errorf("--csp %q: no $ (nginx would read a variable there, which a request can fill with a header of its own)", clip(in.CSP))
	}
	if in.ACME && in.ConfDir != "" {
		// the ACME hook, a shell script, names it
		if err := checkPath("the configuration directory", in.ConfDir); err != nil {
			return err
		}
	}
	if in.HSTSPreload && in.TLS == nil {
		return fmt.Errorf("--hsts-preload goes with HTTPS (--tls or --acme)")
	}
	switch in.TLSProfile {
	case "", "intermediate", "modern":
	default:
		return fmt.Errorf("--tls-profile %q: want intermediate or modern", clip(in.TLSProfile))
	}
	for _, r := range in.Stapling {
		if net.ParseIP(r) == nil {
			return fmt.Errorf("resolver %q: want an IP address", clip(r))
		}
	}
	if in.Site != "" && (!siteRe().MatchString(in.Site) || strings.HasPrefix(in.Site, "00-")) {
		return fmt.Errorf("--site %q: want a name of letters, digits, '.', '_' or '-' (not starting with 00-, which gen's shared files use)", clip(in.Site))
	}
	if in.Concurrency < 0 || in.Concurrency > MaxConcurrency {
		return fmt.Errorf("--concurrency %d: want 1 to %d", in.Concurrency, MaxConcurrency)
	}
	if in.FPMMaxChildren < 0 || in.FPMMaxChildren > MaxFPMChildren {
		return fmt.Errorf("pm.max_children %d: want 1 to %d", in.FPMMaxChildren, MaxFPMChildren)
	}
	return nil
}

var (
	// a Content-Security-Policy: printable ASCII, no quote that would end
	// the header's string, no backslash escape
	cspRe = lazyre.New(`^[\x20-\x21\x23-\x5b\x5d-\x7e]+$`)
	// a site's name as a file name
	siteRe = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	// a location regex of a profile: printed in double quotes, so no
	// quote, backslash-quote, control character or line break
	locRegexRe = lazyre.New(`^[\x21\x23-\x7e]+$`)
	// an exact URI
	exactURIRe = lazyre.New(`^/[A-Za-z0-9._~/-]*$`)
	rateRe     = lazyre.New(`^[0-9]{1,6}r/[sm]$`)
)

// validateKind checks the keys that go with a profile's kind.
func validateKind(p *Profile) error {
	switch p.PHPScripts {
	case "", "all":
		if p.FrontController != "" {
			return fmt.Errorf("profile %s: front_controller goes with php_scripts: front", p.Name)
		}
	case "front":
		if p.Kind != PHP || !exactURIRe().MatchString(p.FrontController) || !strings.HasSuffix(p.FrontController, ".php") {
			return fmt.Errorf("profile %s: php_scripts: front needs kind php and a front_controller such as /index.php", p.Name)
		}
	default:
		return fmt.Errorf("profile %s: php_scripts %q: want all or front", p.Name, clip(p.PHPScripts))
	}
	if p.RealpathRoot && p.Kind != PHP {
		return fmt.Errorf("profile %s: realpath_root goes with kind php", p.Name)
	}
	if len(p.RateLimits) > 0 && p.Kind != PHP {
		return fmt.Errorf("profile %s: rate_limits are written for PHP scripts (kind php)", p.Name)
	}
	if p.Kind == GRPC && (p.H2CPort < 1 || p.H2CPort > 65535 || p.H2CPort == 80) {
		return fmt.Errorf("profile %s: a grpc profile needs h2c_port (1 to 65535, not 80): the port of plaintext HTTP/2", p.Name)
	}
	if p.Kind != GRPC && p.H2CPort != 0 {
		return fmt.Errorf("profile %s: h2c_port goes with kind grpc", p.Name)
	}
	why := func(what, w string) error {
		if w == "" || !oneLine(w) {
			return fmt.Errorf("profile %s: %s: why is one line of at most 200 characters without control characters, bidirectional marks or the start of a CI workflow command, and required", p.Name, what)
		}
		return nil
	}
	checkRegex := func(what, re string) error {
		if len(re) > 512 || !locRegexRe().MatchString(re) || strings.HasSuffix(re, "\\") {
			return fmt.Errorf("profile %s: %s %q: want a regular expression without spaces, quotes or a trailing backslash", p.Name, what, clip(re))
		}
		return nil
	}
	for what, w := range map[string]string{"keepalive_timeout_why": p.KeepaliveTimeoutWhy, "client_max_body_size_why": p.ClientMaxBodySizeWhy, "asset_expires_why": p.AssetExpiresWhy} {
		if err := why(what, w); w != "" && err != nil {
			return err
		}
	}
	for _, d := range p.Deny {
		if err := checkRegex("deny match", d.Match); err != nil {
			return err
		}
		if err := why("deny "+d.Match, d.Why); err != nil {
			return err
		}
	}
	for _, d := range p.Generated {
		if err := checkRegex("generated match", d.Match); err != nil {
			return err
		}
		if err := why("generated "+d.Match, d.Why); err != nil {
			return err
		}
		if p.Kind != PHP {
			return fmt.Errorf("profile %s: generated goes with kind php (the files are made by the application)", p.Name)
		}
	}
	if p.Immutable != "" {
		if err := checkRegex("immutable", p.Immutable); err != nil {
			return err
		}
	}
	for _, r := range p.RateLimits {
		if !exactURIRe().MatchString(r.Path) || !rateRe().MatchString(r.Rate) || r.Burst < 0 || r.Burst > 100000 {
			return fmt.Errorf("profile %s: rate_limits: path %q rate %q burst %d: want an exact URI, a rate such as 10r/m and a burst from 0 to 100000", p.Name, clip(r.Path), clip(r.Rate), r.Burst)
		}
		if err := why("rate limit "+r.Path, r.Why); err != nil {
			return err
		}
	}
	for _, a := range p.Aliases {
		if !exactURIRe().MatchString(a.Location) || !strings.HasSuffix(a.Location, "/") {
			return fmt.Errorf("profile %s: aliases: location %q: want a prefix ending in / (as /static/)", p.Name, clip(a.Location))
		}
		// both with a trailing slash, or a request for /staticx/../ reads
		// beside the directory (lint's alias-traversal)
		if err := checkPath("profile alias path", strings.TrimSuffix(a.Path, "/")); err != nil || !strings.HasSuffix(a.Path, "/") {
			return fmt.Errorf("profile %s: aliases: path %q: want an absolute directory ending in /", p.Name, clip(a.Path))
		}
		if a.Expires != "" && !timeRe().MatchString(a.Expires) && a.Expires != "max" {
			return fmt.Errorf("profile %s: aliases: expires %q: want a time (30d) or max", p.Name, clip(a.Expires))
		}
		if err := why("alias "+a.Location, a.Why); err != nil {
			return err
		}
		if err := why("alias "+a.Location+" expires_why", a.ExpiresWhy); a.ExpiresWhy != "" && err != nil {
			return err
		}
	}
	return nil
}

// Bounds of the sizing inputs: far above any real deployment, low enough
// that no product of them overflows.
const (
	MaxConcurrency = 1_000_000
	MaxFPMChildren = 100_000
)

// clip shortens a refused value for the message that quotes it.
func clip(s string) string { return untrusted.Clip(s) }
