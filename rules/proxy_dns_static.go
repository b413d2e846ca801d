package rules

import (
	"net"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var proxyDNSStatic = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategoryCorrectness,
		Since:    "0.3.0",
		Versions: "all (the upstream server's resolve parameter from 1.27.3)",
		Sources:  []string{"nginx docs: ngx_http_upstream_module server (resolve, 1.27.3)", "nginx docs: ngx_http_proxy_module proxy_pass (names resolved at start-up; variables through resolver)"},
	},
	Check: check(checkProxyDNSStatic),
	Scope: engine.ScopeTree, // a *_pass names an upstream block of any server block too
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
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		if d.Name == "server" {
			if c.In() != parser.CtxUpstream || d.Block != nil || hasArg(d, "resolve") >= 0 {
				return
			}
			if h, ok := dnsName(d.Arg(0)); ok && strings.Contains(h, ".") {
				p.ReportArgf(d, 0, "%s is resolved once, when nginx starts: later address changes are ignored until a reload; %s", engine.Clip(h), how())
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
		p.ReportArgf(d, 0, "%s is resolved once, when nginx starts: later address changes are ignored until a reload; %s", engine.Clip(h), how())
	}, "server", protoHTTP, protoFastCGI, protoGRPC, protoUWSGI, protoSCGI)
}
