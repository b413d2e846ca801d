package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var rewriteCycle = &engine.Rule{
	Doc: engine.Doc{
		ID:    "rewrite-cycle",
		Title: "A rewrite that sends every request back to its own location (500)",
		Why: `A rewrite with "last" (or with no flag, when nothing after it ends the request) makes nginx
search the locations again with the new URI. When the pattern matches every URI and the
replacement is the URI itself ($uri, $request_uri, the whole match), the search finds the same
location, which rewrites again: after 10 rounds nginx gives up with "rewrite or internal
redirection cycle" and answers 500. Measured with nginx 1.22.1: "location /c { rewrite ^(.*)$
$1 last; }" answers /c with 500; "rewrite ^ $request_uri;" followed by "return 200" answers
200, since return ends the request first.`,
		Fix:      `Use "break" to stay in the location (the raw-path idiom: "rewrite ^ $request_uri break;" before proxy_pass), or rewrite to a URI another location serves.`,
		Bad:      "events {}\nhttp {\n    server {\n        location /app/ {\n            rewrite ^ $request_uri;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /app/ {\n            rewrite ^ $request_uri break;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.5.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_rewrite_module rewrite (last, break; the 10-cycle limit)", "measured with nginx 1.22.1"},
	},
	Check: check(checkRewriteCycle),
	Scope: engine.ScopeServer,
}

// matchesAll are patterns that match every URI; sameURI are replacements
// that give the URI back (keyed by whether the pattern's group 1 is the
// whole match).
var matchesAll = map[string]bool{"^": true, "^(.*)$": true, "(.*)": true, "^(.*)": true, ".*": true, "^.*$": true, "^.*": true, "^/": true, "^(/.*)$": true, "^(/.*)": true}

func checkRewriteCycle(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || c.In() != parser.CtxLocation || len(d.Args) < 2 || !matchesAll[d.Arg(0)] {
			return
		}
		flag := ""
		if len(d.Args) >= 3 {
			flag = d.Arg(2)
		}
		if flag != "" && flag != "last" {
			return
		}
		repl := d.Arg(1)
		whole := strings.Contains(d.Arg(0), "(")
		if repl != "$uri" && repl != "$request_uri" && repl != "$document_uri" && !(whole && repl == "$1") {
			return
		}
		if flag == "" {
			// with no flag the next rewrite-module directives still run:
			// a return, a break or a final rewrite ends the request first
			after := false
			for _, x := range parser.Level(c.Enclosing(parser.CtxLocation).Block) {
				if x == d {
					after = true
					continue
				}
				if after && (x.Name == "return" || x.Name == "break" || x.Name == "rewrite" || x.Name == "if") {
					return
				}
			}
		}
		p.ReportArgf(d, 1, "rewrite %s %s%s sends every request back to this location, which rewrites it again: after 10 rounds nginx answers 500 (\"rewrite or internal redirection cycle\"); use \"break\" to stay here", engine.Clip(d.Arg(0)), engine.Clip(repl), map[bool]string{true: " " + flag, false: ""}[flag != ""])
	}, "rewrite")
}
