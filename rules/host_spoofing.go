package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var hostSpoofing = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module $host, $http_name", "docs/security.md", "gixy: host_spoofing (the check's idea; written anew here)"},
	},
	Check: check(checkHostSpoofing),
	Scope: engine.ScopeServer,
}

// rawHost finds the variables that hold the Host header as the client sent it.
var rawHost = lazyre.New(`\$\{?(http_host|http_x_forwarded_host)\b`)

// clientHost finds request headers, arguments and cookies: values the
// client writes.
var clientHost = lazyre.New(`\$\{?((?:http|arg|cookie)_[A-Za-z0-9_]+)`)

func checkHostSpoofing(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
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
