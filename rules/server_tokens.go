package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var serverTokens = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module server_tokens", "gixy: version_disclosure (the check's idea; written anew here)"},
	},
	Check: check(checkServerTokens),
}

func checkServerTokens(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if v := d.Arg(0); v == "on" || v == "build" {
			p.ReportArgf(d, 0, "server_tokens %s puts nginx's version in every Server header and error page; write \"server_tokens off;\"", v)
		}
	}, "server_tokens")
	roots := map[*parser.File]bool{}
	for _, r := range mainRoots(p.Tree) {
		roots[r] = true
	}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Block == nil || c.In() != parser.CtxMain || !roots[c.Root] {
			return
		}
		if len(p.Find(d.Block, "server_tokens")) > 0 {
			return
		}
		servers, hidden := 0, 0
		for _, s := range parser.Level(d.Block) {
			if s.Name == "server" && s.Block != nil {
				servers++
				if st := p.Find(s.Block, "server_tokens"); len(st) > 0 && st[len(st)-1].Arg(0) == "off" {
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
