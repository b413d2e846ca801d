package rules

import (
	"net"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"

	"github.com/nginxtune/nginxtune/parser"
)

// Rules about what the server tells the world, and about how it resolves
// names.

var serverTokens = &Rule{
	Doc: Doc{
		ID:    "server-tokens",
		Title: "nginx tells every client its version",
		Why: `server_tokens is on by default: the Server header of every response and the footer of every
error page say "nginx/1.22.1". Scanners match that string against lists of known
vulnerabilities, so a version that lags behind its fixes is found and targeted first. It costs
nothing to hide.`,
		Fix:      `"server_tokens off;" in http.`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 80;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server_tokens off;\n    server {\n        listen 80;\n    }\n}\n",
		Severity: finding.Info,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module server_tokens", "gixy: version_disclosure (the check's idea; written anew here)"},
	},
	Check: checkServerTokens,
}

func checkServerTokens(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if v := d.Arg(0); v == "on" || v == "build" {
			p.ReportArgf(d, 0, "server_tokens %s puts nginx's version in every Server header and error page; write \"server_tokens off;\"", v)
		}
	}, "server_tokens")
	roots := map[*parser.File]bool{}
	for _, r := range mainRoots(p.Tree) {
		roots[r] = true
	}
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Block == nil || c.In() != parser.CtxMain || !roots[c.Root] {
			return
		}
		if len(p.index.find(d.Block, "server_tokens")) > 0 {
			return
		}
		servers, hidden := 0, 0
		for _, s := range level(d.Block) {
			if s.Name == "server" && s.Block != nil {
				servers++
				if st := p.index.find(s.Block, "server_tokens"); len(st) > 0 && st[len(st)-1].Arg(0) == "off" {
					hidden++
				}
			}
		}
		if servers > 0 && hidden == servers {
			return
		}
		p.Reportf(d, "server_tokens is on by default: every Server header and error page says which nginx version runs here; add \"server_tokens off;\" to http")
	}, "http")
}

// hstsSet reports whether a block level sends Strict-Transport-Security.
func (p *Pass) hstsSet(blocks []*parser.Directive, root *parser.File) bool {
	for _, d := range p.Effective(blocks, root, "add_header").Dirs {
		if strings.EqualFold(d.Arg(0), "Strict-Transport-Security") {
			return true
		}
	}
	for _, d := range p.Effective(blocks, root, "more_set_headers").Dirs {
		for _, a := range d.Args {
			if strings.HasPrefix(strings.ToLower(a.Value), "strict-transport-security") {
				return true
			}
		}
	}
	return false
}

var hstsMissing = &Rule{
	Doc: Doc{
		ID:    "hsts-missing",
		Title: "A TLS site without Strict-Transport-Security",
		Why: `Without HSTS a browser that is sent to http:// (a typed name, an old link) makes its first
request in clear text, and an attacker on the network answers it instead of the redirect to
https:// ("SSL stripping"). The Strict-Transport-Security header tells the browser to use
https:// only, for max-age seconds, before any request leaves it.`,
		Fix:      `add_header Strict-Transport-Security "max-age=63072000" always; in the TLS server (add includeSubDomains once every subdomain serves HTTPS).`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        root /srv/www;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        root /srv/www;\n        add_header Strict-Transport-Security \"max-age=63072000\" always;\n    }\n}\n",
		Severity: finding.Info,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"RFC 6797 (HTTP Strict Transport Security)", "Mozilla Server Side TLS guidelines (HSTS)"},
	},
	Check: checkHstsMissing,
}

func checkHstsMissing(p *Pass) {
	p.httpServers(func(s *parser.Directive, c *parser.Context) {
		if !isTLSServer(s) {
			return
		}
		// one walk of the server: what answers, and what may already say HSTS
		var fastcgi, rejects, unread, found bool
		walkLevels(s.Block, func(x *parser.Directive) {
			switch x.Name {
			case protoFastCGI, protoUWSGI, protoSCGI:
				fastcgi = true
			case "ssl_reject_handshake":
				rejects = rejects || x.Arg(0) == "on"
			case "include":
				unread = unread || len(x.Includes()) == 0 // an include nginxtune could not read may set it
			case "add_header", "more_set_headers":
				// set in some location: where it is not, header-inheritance says why
				found = found || strings.Contains(strings.ToLower(x.Arg(0)+x.Arg(1)), "strict-transport-security")
			}
		})
		if rejects || unread || found || !servesFiles(s) && !fastcgi {
			return // a proxy (the backend may send it), a server that only redirects or rejects
		}
		if p.hstsSet(append(append([]*parser.Directive(nil), c.Blocks...), s), c.Root) {
			return
		}
		p.Reportf(s, "this TLS server (%s) sends no Strict-Transport-Security: a visitor's first http:// request can be intercepted before the redirect; add \"add_header Strict-Transport-Security \"max-age=63072000\" always;\"", clip(serverName(s)))
	})
}

// publicIP reports whether an address (host or host:port) is a literal IP
// on the public internet.
func publicIP(addr string) (net.IP, bool) {
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(hostOf(addr), "["), "]"))
	if ip == nil {
		return nil, false
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || carrierNAT.Contains(ip) {
		return ip, false
	}
	return ip, true
}

// carrierNAT is the shared address space of RFC 6598 (not the internet).
var carrierNAT = func() *net.IPNet { _, n, _ := net.ParseCIDR("100.64.0.0/10"); return n }()

var resolverPublic = &Rule{
	Doc: Doc{
		ID:    "resolver-public",
		Title: "nginx resolves names through a public DNS server",
		Why: `nginx's resolver asks over plain UDP and does not validate DNSSEC: answers from a DNS server
across the internet (8.8.8.8, 1.1.1.1) can be forged by anyone on the path or by off-path
spoofing, and a forged answer sends proxied requests — with their cookies and credentials —
to the attacker, or an OCSP check to a fake responder. nginx before 1.20.1 also had a memory
corruption in the resolver reachable through forged answers (CVE-2021-23017).`,
		Fix:      `Point resolver at a caching resolver on the host or the local network (systemd-resolved: "resolver 127.0.0.53 valid=300s;", or unbound/dnsmasq), which validates and is not reachable for spoofing.`,
		Bad:      "events {}\nhttp {\n    resolver 8.8.8.8;\n}\n",
		Good:     "events {}\nhttp {\n    resolver 127.0.0.53 valid=300s;\n}\n",
		Severity: finding.Warning,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all (CVE-2021-23017 before 1.20.1)",
		Sources:  []string{"nginx docs: ngx_http_core_module resolver", "nginx security advisories: CVE-2021-23017 (1-byte memory overwrite in resolver, fixed in 1.20.1 and 1.21.0)"},
	},
	Check: checkResolverPublic,
}

func checkResolverPublic(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		for i, a := range d.Args {
			if strings.Contains(a.Value, "=") {
				continue
			}
			if ip, pub := publicIP(a.Value); pub {
				extra := ""
				if p.Version.Known() && p.Version.Less(knowledge.ResolverFix) {
					extra = "; this nginx version also has the resolver memory bug CVE-2021-23017 (fixed in 1.20.1)"
				}
				p.ReportArgf(d, i, "resolver %s is a public DNS server reached over plain UDP: a forged answer sends proxied requests to an attacker%s; use a local caching resolver (127.0.0.53)", ip, extra)
				return
			}
		}
	}, "resolver")
}

// dnsName reports whether a backend address is a host name (not an IP,
// socket or upstream name) and returns it without the port.
func dnsName(hostPort string) (string, bool) {
	if strings.HasPrefix(hostPort, "unix:") || strings.HasPrefix(hostPort, "/") || strings.HasPrefix(hostPort, "[") || hostPort == "" {
		return "", false
	}
	h, _, _ := strings.Cut(hostPort, ":")
	if strings.Trim(h, "0123456789.") == "" { // an address, even one net.ParseIP refuses (127.0.0.01)
		return "", false
	}
	if net.ParseIP(h) != nil || h == "localhost" || strings.HasSuffix(h, ".localhost") || templated(h) {
		return "", false
	}
	return h, true
}

var proxyDNSStatic = &Rule{
	Doc: Doc{
		ID:    "proxy-dns-static",
		Title: "A backend host name resolved once, when nginx starts",
		Why: `nginx resolves the host names in proxy_pass and in upstream servers when it reads the
configuration and keeps those addresses until the next reload. A backend behind a cloud load
balancer, a CDN or a container platform changes addresses: requests then go to an address
that is gone (timeouts, 502) or, worse, that now belongs to someone else.`,
		Fix: `From nginx 1.27.3: "server api.example.com resolve;" in an upstream block with a "zone" and
a resolver. Before: put the name in a variable ("set $api api.example.com; proxy_pass
https://$api;") with a resolver, which re-resolves as the record's TTL (or valid=) says.`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            proxy_pass https://api.example.com;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    resolver 127.0.0.53 valid=30s;\n    server {\n        location / {\n            set $api api.example.com;\n            proxy_pass https://$api;\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: CategoryCorrectness,
		Since:    "0.3.0",
		Versions: "all (the upstream server's resolve parameter from 1.27.3)",
		Sources:  []string{"nginx docs: ngx_http_upstream_module server (resolve, 1.27.3)", "nginx docs: ngx_http_proxy_module proxy_pass (names resolved at start-up; variables through resolver)"},
	},
	Check: checkProxyDNSStatic,
}

func checkProxyDNSStatic(p *Pass) {
	ups := p.httpUpstreams()
	full := len(mainRoots(p.Tree)) > 0
	how := func() string {
		if p.Version.Known() && p.AtLeast(vResolve) {
			return "put it in an upstream with \"zone\" and \"server NAME resolve;\" and a resolver"
		}
		if !p.Version.Known() {
			return "from nginx 1.27.3 \"server NAME resolve;\" in an upstream with a zone and a resolver; before, a variable in proxy_pass with a resolver"
		}
		return "this nginx (before 1.27.3) re-resolves only names in variables: \"set $b NAME; proxy_pass http://$b;\" with a resolver"
	}
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) {
			return
		}
		if d.Name == "server" {
			if c.In() != parser.CtxUpstream || d.Block != nil || hasArg(d, "resolve") >= 0 {
				return
			}
			if h, ok := dnsName(d.Arg(0)); ok && strings.Contains(h, ".") {
				p.ReportArgf(d, 0, "%s is resolved once, when nginx starts: later address changes are ignored until a reload; %s", clip(h), how())
			}
			return
		}
		_, target, _, ok := passTarget(d)
		if !ok {
			return
		}
		if _, isUp := ups[target]; isUp {
			return
		}
		h, ok := dnsName(target)
		if !ok || !strings.Contains(h, ".") && (!full || !strings.Contains(target, ":")) {
			return // a bare name may be an upstream defined elsewhere
		}
		p.ReportArgf(d, 0, "%s is resolved once, when nginx starts: later address changes are ignored until a reload; %s", clip(h), how())
	}, "server", protoHTTP, protoFastCGI, protoGRPC, protoUWSGI, protoSCGI)
}

// walkLevels calls fn for every statement below dirs, reading included
// files where the include stands (an include nginxtune could not read is
// passed to fn as it is).
func walkLevels(dirs []*parser.Directive, fn func(*parser.Directive)) {
	for _, d := range level(dirs) {
		fn(d)
		if d.Block != nil {
			walkLevels(d.Block, fn)
		}
	}
}
