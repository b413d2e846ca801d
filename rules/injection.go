package rules

import (
	"regexp"
	"sort"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/parser"
)

// Rules about values the request controls (see taint.go for the model).

// pathVars start with "/" (or "?", $is_args): in a proxy_pass URL they begin
// the path or the query.
var pathVars = map[string]bool{"uri": true, "request_uri": true, "document_uri": true, "fastcgi_script_name": true, "is_args": true}

// backendPart is the part of a *_pass argument that chooses the backend:
// scheme and host[:port] of a proxy_pass URL, the whole address otherwise.
func backendPart(d *parser.Directive) string { return backendOf(d.Name, d.Arg(0)) }

// backendOf is backendPart for a directive name and a value.
func backendOf(name, arg string) string {
	rest := arg
	prefix := ""
	if sch, after, ok := strings.Cut(arg, "://"); ok {
		prefix, rest = sch+"://", after
	} else if name == protoHTTP {
		return arg // "proxy_pass $target": the variable is the whole URL
	}
	if name != protoHTTP && name != protoGRPC {
		return arg
	}
	end := len(rest)
	if strings.HasPrefix(rest, "unix:") {
		// unix:/path/to.sock:/uri: the socket's path ends at the colon
		if i := strings.IndexByte(rest[len("unix:"):], ':'); i >= 0 {
			return prefix + rest[:len("unix:")+i+1]
		}
		return arg
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		end = i
	}
	for _, r := range varsIn(rest) {
		if pathVars[r.name] && r.start < end {
			end = r.start
		}
	}
	return prefix + rest[:end]
}

// pathCapture cuts part at the first capture whose group must start with
// "/": such a capture begins the path, it cannot name the host.
func pathCapture(part string, d *parser.Directive, c *parser.Context) string {
	for _, r := range varsIn(part) {
		var src regexSource
		n, ok := 0, false
		if len(r.name) == 1 && r.name[0] >= '1' && r.name[0] <= '9' {
			src, ok = captureSource(d, c)
			n = int(r.name[0] - '0')
		} else {
			src, n, ok = namedCapture(r.name, d, c)
		}
		if !ok {
			continue
		}
		if frag, found := groupPattern(src.re, n); found && (strings.HasPrefix(frag, "/") || strings.HasPrefix(frag, `\/`)) {
			return part[:r.start]
		}
	}
	return part
}

var ssrf = &Rule{
	Doc: Doc{
		ID:    "ssrf",
		Title: "The request chooses the backend (server-side request forgery)",
		Why: `When the host of proxy_pass (or fastcgi_pass, grpc_pass, ...) is built from something the
client sends — a header, an argument, the path, a capture of it, or a "set" or "map" fed from
them — the client decides where nginx connects: internal services, the cloud metadata address
169.254.169.254, the admin port on localhost. nginx then answers with what it fetched.`,
		Fix: `Choose among fixed backends with a map whose values are fixed strings ("map $http_x_app
$backend { app1 10.0.0.1:8080; default 10.0.0.2:8080; }"), or constrain the capture with an
anchored regex of the allowed names; keep request data in the path, after a fixed host.`,
		Bad:      "events {}\nhttp {\n    server {\n        location ~ ^/fetch/([^/]+)/(.*)$ {\n            proxy_pass http://$1/$2;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location ~ ^/fetch/(app1|app2)/(.*)$ {\n            proxy_pass http://$1.internal:8080/$2;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_proxy_module proxy_pass (variables)", "docs/security.md (what the request controls)", "gixy: ssrf (the check's idea; written anew here)"},
	},
	Check: checkSsrf,
}

func checkSsrf(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) || len(d.Args) == 0 {
			return
		}
		part := pathCapture(backendPart(d), d, c)
		if !strings.Contains(part, "$") {
			return
		}
		t := p.taintOf(part, d, c)
		// "proxy_pass $u" with "set $u http://127.0.0.1:9000$request_uri":
		// the host is the one of the values set
		if name, whole := soleVar(part); whole && t.picks {
			if u, ok := p.setBackends(name, d.Name); ok {
				t = u
			}
		}
		if !t.picks {
			return
		}
		internal := false
		if loc := c.Enclosing(parser.CtxLocation); loc != nil && len(p.index.find(loc.Block, "internal")) > 0 {
			internal = true
		}
		// the host fixed, only the port chosen: any service of that host
		hostPart, hasScheme := part, false
		if _, after, ok := strings.Cut(part, "://"); ok {
			hostPart, hasScheme = after, true
		}
		if i := strings.LastIndex(hostPart, ":"); hasScheme && i > 0 && !strings.Contains(hostPart[i:], "]") {
			if host := hostPart[:i]; !p.taintOf(host, d, c).picks {
				diag := p.DiagArg(d, 0, "%s takes the port of %s from %s, which the client sends: it can reach any service listening on that host; map the allowed values to fixed ports",
					d.Name, clip(host), t.via)
				diag.Severity = finding.Warning
				p.Report(diag)
				return
			}
		}
		if internal {
			// reached only through a redirect of nginx's own, or a
			// backend's X-Accel-Redirect, which the tree does not show
			diag := p.DiagArg(d, 0, "%s takes its backend from %s in an internal location: clients reach it only through an internal redirect (X-Accel-Redirect, error_page, try_files); if that route carries what they send, it can make nginx connect anywhere", d.Name, t.via)
			diag.Severity = finding.Info
			p.Report(diag)
			return
		}
		p.ReportArgf(d, 0, "%s takes its backend from %s, which the client sends: it can make nginx connect anywhere (internal services, 169.254.169.254); map the allowed values to fixed backends",
			d.Name, t.via)
	}, passNames...)
}

// soleVar reports whether part is one variable and nothing else.
func soleVar(part string) (string, bool) {
	vs := varsIn(part)
	if len(vs) != 1 || vs[0].start != 0 || vs[0].end != len(part) {
		return "", false
	}
	return vs[0].name, true
}

// setBackends is the taint of the backend part of every value "set" gives
// name, when only set gives it (no map, no capture): each value is read
// as the URL it becomes.
func (p *Pass) setBackends(name, directive string) (taint, bool) {
	ts := p.taintScope()
	sets := ts.sets[name]
	if len(sets) == 0 || len(ts.maps[name]) > 0 {
		return taint{}, false
	}
	var t taint
	for _, s := range sets {
		part := pathCapture(backendOf(directive, s.d.Arg(1)), s.d, s.c)
		u := p.taintOf(part, s.d, s.c)
		if u.picks && !strings.Contains(u.via, "set $") {
			u.via = "$" + name + " (set from " + u.via + ")"
		}
		t = t.or(u)
	}
	return t, true
}

// headerValue returns the argument of d that goes into a header (or a
// redirect's Location), or -1.
func headerValue(d *parser.Directive) int {
	switch d.Name {
	case "add_header", "add_trailer", "proxy_set_header", "grpc_set_header":
		if len(d.Args) >= 2 {
			return 1
		}
	case "more_set_headers", "more_set_input_headers":
		// -s STATUSES and -t TYPES take a value: neither is the header
		for i := 0; i < len(d.Args); i++ {
			switch v := d.Args[i].Value; {
			case v == "-s" || v == "-t":
				i++
			case strings.HasPrefix(v, "-"):
			default:
				return i
			}
		}
	case "return":
		switch {
		case len(d.Args) == 2 && redirectCode(d.Arg(0)):
			return 1
		case len(d.Args) == 1 && isURL(d.Arg(0)):
			return 0
		}
	case "rewrite":
		if len(d.Args) >= 2 && (isURL(d.Arg(1)) || hasArg(d, "redirect") >= 2 || hasArg(d, "permanent") >= 2) {
			return 1
		}
	}
	return -1
}

func redirectCode(s string) bool {
	switch s {
	case "301", "302", "303", "307", "308":
		return true
	}
	return false
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "$scheme://")
}

var headerInjection = &Rule{
	Doc: Doc{
		ID:    "header-injection",
		Title: "A header or redirect built from a value that can hold a line break (response splitting)",
		Why: `nginx percent-decodes the path before it matches locations: $uri, $document_uri and captures
of the path hold the decoded text, %0d%0a included. Written into add_header, a redirect's
Location or a header sent to the backend, that line break ends the header, and what follows is
a header (or a body) of the attacker's choosing: Set-Cookie, a cache-poisoning
Content-Length, a script. Measured with nginx 1.22.1: "add_header X-U $uri;" answers
/u/a%0d%0aX-Inj:1 with an "X-Inj: 1" header. $request_uri, $args and $arg_* are not decoded and
keep %0d%0a as written; "." in a regex does not match a line feed, "[^/]" does. A named capture
((?<tail>...)) is a variable and is copied raw everywhere; a numbered capture copied by set or a
rewrite is escaped again (a%0D%0A), used directly in add_header, return or proxy_pass it is not.
A carriage return alone (%0d) is matched by "." and sent raw ("Location: a\rX-Inj:1", measured):
some clients and proxies end a header line there, so it is reported as a warning.`,
		Fix: `Use $request_uri (the path as the client sent it, still encoded) instead of $uri; capture with
a class that excludes line breaks ("[^/\r\n]+", "[^\r\n]*") instead of "[^/]+" or "(.*)".`,
		Bad:      "events {}\nhttp {\n    server {\n        location /old/ {\n            return 301 https://example.com$uri;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /old/ {\n            return 301 https://example.com$request_uri;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"docs/security.md (measured on nginx 1.22.1)", "RFC 9110 5.5 (field values)", "gixy: http_splitting (the check's idea; written anew here)"},
	},
	Check: checkHeaderInjection,
}

func checkHeaderInjection(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) {
			return
		}
		if d.Name == protoHTTP {
			// the URI part of proxy_pass goes into the request line
			switch t := p.taintOf(strings.TrimPrefix(d.Arg(0), backendPart(d)), d, c); {
			case t.newline:
				p.ReportArgf(d, 0, "proxy_pass sends %s, which holds the decoded path and can carry %%0d%%0a, in the request line to the backend (request splitting); use $request_uri, or a capture that excludes line breaks", t.via)
			case t.cr:
				diag := p.DiagArg(d, 0, "proxy_pass sends %s, which holds the decoded path and can carry a carriage return (%%0d), raw, in the request line to the backend; a backend that ends lines at it reads a second request; use $request_uri, or a capture that excludes \\r", t.via)
				diag.Severity = finding.Warning
				p.Report(diag)
			}
			return
		}
		i := headerValue(d)
		if i < 0 {
			return
		}
		t := p.taintOf(d.Arg(i), d, c)
		if d.Name == "rewrite" {
			// a rewrite's replacement is a script: its numbered captures are
			// escaped again (measured: a%0D%0AX-Inj:1 in the Location)
			t = p.scriptTaint(d.Arg(i), d, c, 0)
		}
		what := "the header"
		if d.Name == "return" || d.Name == "rewrite" {
			what = "the redirect's Location"
		}
		switch {
		case t.newline:
			p.ReportArgf(d, i, "%s puts %s into %s; it can carry %%0d%%0a and add headers of the client's choosing; use $request_uri or a capture that excludes line breaks", d.Name, t.via, what)
		case t.cr:
			diag := p.DiagArg(d, i, "%s puts %s into %s; it can carry a carriage return (%%0d), which nginx sends raw and some clients and proxies take as a line end; use $request_uri or a capture that excludes \\r and \\n ([^\\r\\n]*)", d.Name, t.via, what)
			diag.Severity = finding.Warning
			p.Report(diag)
		}
	}, "add_header", "add_trailer", "proxy_set_header", "grpc_set_header", "more_set_headers", "more_set_input_headers", "return", "rewrite", protoHTTP)
}

var hostSpoofing = &Rule{
	Doc: Doc{
		ID:    "host-spoofing",
		Title: "$http_host (the raw Host header) where $host is meant",
		Why: `$http_host is the Host header exactly as the client wrote it: any port, any case, and, on a
server that answers unknown names, any name. $host is the name nginx matched: lowercased, port
removed, the server's own name when the header is missing. A backend that builds links from
the Host it receives (password-reset mails, redirects, canonical URLs) or caches by it is then
steered by the client: "Host: example.com:@evil.example" passes a server_name check and turns
a link into one to evil.example. X-Forwarded-Host is a header the client writes as well.`,
		Fix:      `"proxy_set_header Host $host;" and build URLs from $host (or the literal name); pass the port separately if the backend needs it ($server_port).`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            proxy_set_header Host $http_host;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location / {\n            proxy_set_header Host $host;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module $host, $http_name", "docs/security.md", "gixy: host_spoofing (the check's idea; written anew here)"},
	},
	Check: checkHostSpoofing,
}

// rawHost finds the variables that hold the Host header as the client sent it.
var rawHost = lazyre.New(`\$\{?(http_host|http_x_forwarded_host)\b`)

// clientHost finds request headers, arguments and cookies: values the
// client writes.
var clientHost = lazyre.New(`\$\{?((?:http|arg|cookie)_[A-Za-z0-9_]+)`)

func checkHostSpoofing(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) {
			return
		}
		var i int
		switch d.Name {
		case "proxy_set_header", "grpc_set_header":
			if !strings.EqualFold(d.Arg(0), "Host") || len(d.Args) < 2 {
				return
			}
			i = 1
		default:
			if i = headerValue(d); i < 0 || d.Name == "add_header" {
				return
			}
		}
		v := d.Arg(i)
		m := rawHost().FindStringSubmatch(v)
		if m == nil {
			// any other header, argument or cookie as the Host sent to
			// the backend: the client names the site
			if d.Name == "proxy_set_header" || d.Name == "grpc_set_header" {
				if o := clientHost().FindStringSubmatch(v); o != nil {
					p.ReportArgf(d, i, "the backend gets a Host the client chooses ($%s): it names any site the backend serves, and links it builds point where the client wants; write \"%s Host $host;\"", o[1], d.Name)
				}
			}
			return
		}
		if d.Name == "proxy_set_header" || d.Name == "grpc_set_header" {
			p.ReportArgf(d, i, "the backend gets the Host header as the client wrote it ($%s: any port, and any name on a catch-all server); write \"%s Host $host;\"", m[1], d.Name)
			return
		}
		p.ReportArgf(d, i, "the redirect is built from $%s, which the client writes (any port, or userinfo such as example.com:@evil.example); use $host", m[1])
	}, "proxy_set_header", "grpc_set_header", "return", "rewrite")
}

// domainLit finds a domain name written in a pattern ("example\.com").
var domainLit = lazyre.New(`(?i)(?:[a-z0-9-]+(?:\\\.|\.))+[a-z][a-z0-9-]*[a-z]`)

// originBypass returns a value a foreign site can send that the pattern
// accepts, or "". subjectURL is true for Origin and Referer (a scheme comes
// first), false for valid_referers (matched from the host on); withPath
// when the value may carry a path (Referer, not Origin).
func originBypass(pattern string, fold, subjectURL, withPath bool) string {
	re, err := regexp.Compile(map[bool]string{true: "(?i)", false: ""}[fold] + pattern)
	if err != nil {
		return "" // PCRE only (lookarounds, backreferences): not judged
	}
	// every name the pattern spells out, longest first: each branch of
	// "(a\.example|b\.example)" is probed
	var domains []string
	for _, m := range domainLit().FindAllString(pattern, -1) {
		domains = append(domains, strings.ReplaceAll(m, `\.`, "."))
	}
	sort.SliceStable(domains, func(i, j int) bool { return len(domains[i]) > len(domains[j]) })
	for _, domain := range domains {
		if a := bypassFor(re, domain, subjectURL, withPath); a != "" {
			return a
		}
	}
	return ""
}

// bypassFor probes a pattern through one of the names it spells out.
func bypassFor(re *regexp.Regexp, domain string, subjectURL, withPath bool) string {
	prefixes := []string{""}
	if subjectURL {
		prefixes = []string{"https://", "http://"}
	}
	var base, pre, host string
	for _, pf := range prefixes {
		for _, h := range []string{domain, "www." + domain} {
			for _, tail := range []string{"", "/", "/page"} {
				if base == "" && re.MatchString(pf+h+tail) {
					base, pre, host = pf+h+tail, pf, h
				}
			}
		}
	}
	if base == "" {
		return ""
	}
	tail := strings.TrimPrefix(base, pre+host)
	attacks := []string{
		pre + host + ".attacker.example" + tail, // suffix left open
		pre + "attacker" + host + tail,          // no boundary before the name
	}
	// an unescaped dot: only where the name it makes lies outside the
	// site's own registrable domain (a.b.example.com as axb.example.com is
	// still example.com's)
	site := registrable(host)
	for i := 0; i < len(host); i++ {
		if host[i] == '.' && i >= len(host)-len(site)-1 {
			attacks = append(attacks, pre+host[:i]+"x"+host[i+1:]+tail)
		}
	}
	if withPath {
		attacks = append(attacks, "https://attacker.example/"+base) // no "^"
	}
	for _, a := range attacks {
		if re.MatchString(a) {
			return a
		}
	}
	// open gaps between the literals ("metrika.*yandex\.ru"): a foreign
	// name put at each place of the accepted URL, kept when the regex
	// still accepts it and its host is not the site's
	for i := len(pre) + 1; i < len(base); i++ {
		for _, ins := range []string{".attacker.example/", "-attacker.example/"} {
			a := base[:i] + ins + base[i:]
			h := strings.TrimPrefix(a, pre)
			if j := strings.IndexAny(h, "/?#"); j >= 0 {
				h = h[:j]
			}
			if re.MatchString(a) && registrable(h) != site && !strings.HasSuffix(h, "."+site) && h != site {
				return a
			}
		}
	}
	return ""
}

// secondLevel are the second-level labels under which country codes let
// names be registered (co.uk, com.au): the registrable domain takes one
// label more there. An approximation of the public-suffix list, which
// nginxtune does not carry.
var secondLevel = map[string]bool{"co": true, "com": true, "net": true, "org": true, "ac": true, "gov": true, "edu": true, "ne": true, "or": true, "go": true}

// registrable is the part of a host name an owner registers: the last two
// labels, three under a country code's second level (example.co.uk).
func registrable(host string) string {
	labels := strings.Split(host, ".")
	n := 2
	if len(labels) >= 3 && len(labels[len(labels)-1]) == 2 && secondLevel[labels[len(labels)-2]] {
		n = 3
	}
	if len(labels) <= n {
		return host
	}
	return strings.Join(labels[len(labels)-n:], ".")
}

var originRegex = &Rule{
	Doc: Doc{
		ID:    "origin-regex",
		Title: "A regex on Origin or Referer that also accepts foreign sites",
		Why: `CORS answers and CSRF or hotlink checks often test $http_origin or $http_referer with a regex.
An unescaped dot matches any character, a missing "^" lets a foreign name end with yours, and
a missing "$" lets yours be the start of a foreign one: "example\.com" accepts
https://example.com.attacker.example. A site that allows credentialed CORS for the origins it
matches then lets the attacker's page read its users' data. Every name the regex spells out is
probed (each branch of an alternation), and a dot whose replacement stays inside the site's own
registrable domain (a.b.example.com as axb.example.com) is not reported; the registrable domain
is the last two labels, three under a country code's co/com/org/... (an approximation of the
public-suffix list). $http_referrer, a header no browser sends, is reported as always empty.`,
		Fix:      `Anchor both ends and escape the dots: "^https://(www\.)?example\.com$" (for Referer, end with "(/|$)").`,
		Bad:      "events {}\nhttp {\n    server {\n        location /api/ {\n            if ($http_origin ~* \"https://example\\.com\") {\n                add_header Access-Control-Allow-Origin $http_origin;\n            }\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /api/ {\n            if ($http_origin ~* \"^https://example\\.com$\") {\n                add_header Access-Control-Allow-Origin $http_origin;\n            }\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_rewrite_module if, ngx_http_map_module, ngx_http_referer_module", "Fetch standard: CORS protocol", "gixy: origins (the check's idea; written anew here)"},
	},
	Check: checkOriginRegex,
}

func checkOriginRegex(p *Pass) {
	// the header is Referer (RFC 9110 keeps the misspelling): browsers
	// never send "Referrer", so $http_referrer is always empty and a
	// check built on it passes or fails for everyone alike
	referrer := func(w string) bool {
		return strings.Contains(w, "http_referrer") && (strings.Contains(w, "$http_referrer") || strings.Contains(w, "${http_referrer}"))
	}
	for _, v := range p.visits.all {
		d := v.d
		found := referrer(d.Name)
		for i := 0; i < len(d.Args) && !found; i++ {
			found = referrer(d.Args[i].Value)
		}
		if found {
			p.ReportSeverityf(finding.Warning, d, "$http_referrer is always empty: the header is Referer, one r (browsers never send \"Referrer\"); write $http_referer")
		}
	}
	report := func(d *parser.Directive, i int, header, pattern, attack string) {
		sev := finding.Error
		if header != "Origin" {
			sev = finding.Warning // a referer check guards less than a CORS answer
		}
		diag := p.DiagSev(sev, d, "the %s regex %s also accepts %q; anchor it (^...$) and escape the dots", header, clip(pattern), attack)
		if i < len(d.Args) {
			diag.Line, diag.Col, diag.Offset = int(d.Args[i].Line), int(d.Args[i].Col), int(d.Args[i].Offset)
		}
		p.Report(diag)
	}
	header := map[string]string{"$http_origin": "Origin", "$http_referer": "Referer"}
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) {
			return
		}
		switch d.Name {
		case "if":
			v, op, re, ok := ifCondition(d)
			if !ok || header[v] == "" || strings.TrimPrefix(op, "!") != "~" && strings.TrimPrefix(op, "!") != "~*" {
				return
			}
			if a := originBypass(re, strings.HasSuffix(op, "*"), true, header[v] == "Referer"); a != "" {
				report(d, len(d.Args)-2, header[v], re, a)
			}
		case "map":
			if d.Block == nil || header[d.Arg(0)] == "" {
				return
			}
			for _, e := range d.Block {
				if !strings.HasPrefix(e.Name, "~") {
					continue
				}
				re := strings.TrimPrefix(e.Name[1:], "*")
				if a := originBypass(re, strings.HasPrefix(e.Name, "~*"), true, header[d.Arg(0)] == "Referer"); a != "" {
					report(e, len(e.Args), header[d.Arg(0)], re, a)
				}
			}
		case "valid_referers":
			for i, a := range d.Args {
				if strings.HasPrefix(a.Value, "~") {
					// matched case-insensitively against the Referer without its scheme
					if at := originBypass(a.Value[1:], true, false, true); at != "" {
						report(d, i, "Referer", a.Value[1:], at)
					}
				}
			}
		}
	}, "if", "map", "valid_referers")
}
