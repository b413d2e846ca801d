package rules

import (
	"net"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var proxyPassNoResolver = &engine.Rule{
	Doc: engine.Doc{
		ID:    "proxy-pass-no-resolver",
		Title: "A host name in a variable proxy_pass with no resolver: every request 502",
		Why: `With a variable in its host part, proxy_pass resolves the name at request time, unless it
names an upstream block. That needs a resolver in effect; without one nginx answers every
request with 502 and logs "no resolver defined to resolve NAME" (measured with nginx 1.22.1:
"set $b backend.invalid; proxy_pass http://$b:8080;" answers 502 without looking the name up).
nginx -t does not notice.`,
		Fix:      `Add a resolver (your DNS server, e.g. "resolver 127.0.0.53 valid=30s;"), define the name as an upstream, or write the address.`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            set $b backend.internal;\n            proxy_pass http://$b:8080;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    resolver 127.0.0.53 valid=30s;\n    server {\n        location / {\n            set $b backend.internal;\n            proxy_pass http://$b:8080;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.5.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_proxy_module proxy_pass (a server name in variables is looked up by the resolver), ngx_http_core_module resolver", "measured with nginx 1.22.1"},
	},
	Check: check(checkProxyPassNoResolver),
}

func checkProxyPassNoResolver(p *Pass) {
	if p.Tree.HasUnread() {
		return // an include nginxtune did not read may hold the resolver
	}
	upstreams := map[string]bool{}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		upstreams[d.Arg(0)] = true
	}, "upstream")
	p.Each(func(d *parser.Directive, c *parser.Context) {
		// a variable in the backend part, the start of the argument, is
		// what needs a resolver: without a "$" there is none
		if engine.InStream(c) || strings.IndexByte(d.Arg(0), '$') < 0 {
			return
		}
		part := backendPart(d)
		name, whole := soleVar(strings.TrimPrefix(strings.TrimPrefix(part, "http://"), "https://"))
		host := part
		if !whole {
			// "http://$b:8080": the variable is the host
			rest := strings.TrimPrefix(strings.TrimPrefix(part, "http://"), "https://")
			v, port, _ := strings.Cut(rest, ":")
			if n, ok := soleVar(v); ok && !strings.Contains(port, "$") {
				name, whole = n, true
			}
		}
		if !whole || name == "" {
			return
		}
		sets := p.taintScope().sets[name]
		if len(sets) == 0 || len(p.taintScope().maps[name]) > 0 {
			return
		}
		for _, s := range sets {
			v := s.d.Arg(1)
			if strings.Contains(v, "$") {
				return
			}
			h := strings.TrimPrefix(strings.TrimPrefix(v, "http://"), "https://")
			h, _, _ = strings.Cut(h, "/")
			if i := strings.LastIndex(h, ":"); i > 0 && !strings.HasSuffix(h, "]") {
				h = h[:i]
			}
			if h == "" || net.ParseIP(strings.Trim(h, "[]")) != nil || upstreams[h] || strings.HasPrefix(h, "unix:") || h == "localhost" {
				return
			}
			host = h
		}
		for i := len(c.Blocks) - 1; i >= 0; i-- {
			if len(p.Find(c.Blocks[i].Block, "resolver")) > 0 {
				return
			}
		}
		p.ReportArgf(d, 0, "%s resolves %s at request time (a variable holds it), and no resolver is in effect: every request gets 502 (\"no resolver defined to resolve %s\"); add a resolver, or define %s as an upstream", d.Name, engine.Clip(host), engine.Clip(host), engine.Clip(host))
	}, protoHTTP, protoGRPC)
}
