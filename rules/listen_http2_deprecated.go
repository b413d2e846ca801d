package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var listenHTTP2Deprecated = &engine.Rule{
	Doc: engine.Doc{
		ID:    "listen-http2-deprecated",
		Title: `"listen ... http2" on nginx 1.25.1 or later`,
		Why: `nginx 1.25.1 made HTTP/2 a per-server switch, "http2 on;", and deprecated the http2
parameter of listen: nginx warns about it on every start and reload, and a parameter set on
a shared address:port applies to every server on it whatever each one says.`,
		Fix:      `Remove http2 from the listen directive and write "http2 on;" in the server. On nginx before 1.25.1 keep "listen ... http2": "http2 on" does not exist there.`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 443 ssl http2;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n        ssl_session_cache shared:SSL:10m;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        http2 on;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n        ssl_session_cache shared:SSL:10m;\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryCorrectness,
		Since:    "0.1.0",
		Versions: "1.25.1 and later",
		Sources:  []string{"nginx CHANGES 1.25.1: the http2 directive; listen ... http2 deprecated", "nginx docs: ngx_http_v2_module http2"},
	},
	Check: check(checkListenHTTP2Deprecated),
	Scope: engine.ScopeServer,
}

func checkListenHTTP2Deprecated(p *Pass) {
	if !p.AtLeast(vHTTP2Directive) {
		return
	}
	p.HTTPServers(func(s *parser.Directive, c *parser.Context) {
		first := true
		for _, l := range p.Find(s.Block, "listen") {
			i := hasArg(l, "http2")
			if i < 0 {
				continue
			}
			diag := p.DiagArg(l, i, `"listen ... http2" is deprecated since nginx 1.25.1; remove http2 here and write "http2 on;" in the server%s`,
				p.versionNote("1.25.1 and later"))
			if !p.Version.Known() {
				// information, with no fix: nothing says which side of 1.25.1
				// the tree is for, and "http2 on;" breaks nginx before it
				diag.Severity = finding.Info
				p.Report(diag)
				continue
			}
			edits := []finding.Edit{engine.RemoveArg(l, i)}
			if first && len(p.Find(s.Block, "http2")) == 0 {
				edits = append(edits, engine.InsertAfter(l, "http2 on;"))
			}
			first = false
			diag.Fix = &finding.Fix{Description: "move http2 from listen to http2 on;", Edits: edits}
			p.Report(diag)
		}
	})
}
