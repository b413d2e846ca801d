package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var ifIsEvil = &engine.Rule{
	Doc: engine.Doc{
		ID:    "if-is-evil",
		Title: `"if" in a location with directives other than return and rewrite`,
		Why: `Inside a location, "if" creates a nested location of its own: when the condition holds,
the request is handled by that inner location, which inherits some settings and not others.
try_files, proxy_pass with a URI, add_header and the like behave unexpectedly there, and some
combinations crash workers. return and rewrite ... last are the safe uses; set and rewrite ...
break are safe only where the location has no try_files, which the if's location does not
inherit (measured with nginx 1.22.1: "location / { try_files $uri /index.html; if ($arg_x) {
set $a 1; } }" answers /missing?x=1 with 404, /missing with index.html).`,
		Fix:      `Keep only return, rewrite or set inside "if"; move the rest into a location of its own, a map, or the directives' own conditions.`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            if ($arg_debug) {\n                add_header X-Debug on;\n            }\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location / {\n            if ($arg_debug) {\n                return 403;\n            }\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: engine.CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_rewrite_module if", "nginx wiki: If is Evil"},
	},
	Check: check(checkIfIsEvil),
	Scope: engine.ScopeServer,
}

// ifSafe are the directives that behave as written inside "if" in a
// location; anything else runs in a location nginx builds for the if, with
// surprising inheritance (the nginx wiki's "If is Evil").
var ifSafe = map[string]bool{"return": true, "rewrite": true, "set": true, "break": true, "if": true, "access_log": true}

func checkIfIsEvil(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Block == nil || engine.InStream(c) || c.In() != parser.CtxLocation {
			return
		}
		lvl := parser.Level(d.Block)
		for _, x := range lvl {
			if x.Name == "return" {
				return // the request ends in the rewrite phase: nothing else here takes effect on it but logging
			}
		}
		for _, x := range lvl {
			if !ifSafe[x.Name] {
				p.Reportf(x, "%s inside \"if\" in a location runs in a location nginx makes for the if, with its own inheritance; keep return, rewrite or set there and move %s out", x.Name, x.Name)
				return
			}
		}
		// set or rewrite ... break keep the request in the if's location,
		// which has no try_files of its own (measured with nginx 1.22.1: a
		// 404 where the location's fallback answers without the condition)
		loc := c.Enclosing(parser.CtxLocation)
		if loc == nil || len(p.Find(loc.Block, "try_files")) == 0 {
			return
		}
		for _, x := range lvl {
			if x.Name == "rewrite" && len(x.Args) >= 3 && x.Arg(2) != "break" {
				return // last re-runs the location search; redirect and permanent end the request
			}
		}
		tf := p.Find(loc.Block, "try_files")[0]
		p.Reportf(d, "when this \"if\" holds, the if's own location handles the request, and \"try_files %s\" is skipped (it is not inherited; measured: a 404 where the fallback answers otherwise); set the value with a map outside the location, or end the if with return or rewrite ... last", engine.Clip(strings.Join(tf.ArgValues(), " ")))
	}, "if")
}
