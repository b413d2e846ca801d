package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var returnBypassesAccess = &engine.Rule{
	Doc: engine.Doc{
		ID:    "return-bypasses-access",
		Title: "return answers before allow/deny and auth are checked",
		Why: `nginx handles a request in phases: rewrite (return, rewrite, set, if) runs before access
(allow/deny, auth_basic, auth_request). A "return 200 ..." in a location guarded by "deny
all;" or auth_basic — its own or inherited — answers everyone, and the guard never runs.
Redirects and error codes are usually harmless; a 2xx with content is the guarded content.`,
		Fix:      `Move the answer into a handler that runs after access (a file, or proxy_pass), or check the client in the rewrite phase too ("if ($remote_addr != ...) { return 403; }", or a geo/map).`,
		Bad:      "events {}\nhttp {\n    server {\n        location /health {\n            allow 10.0.0.0/8;\n            deny all;\n            return 200 \"db=ok queue=12\";\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    geo $internal { default 0; 10.0.0.0/8 1; }\n    server {\n        location /health {\n            if ($internal = 0) { return 403; }\n            return 200 \"db=ok queue=12\";\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: Development guide, HTTP phases (rewrite before access)", "nginx docs: ngx_http_rewrite_module return"},
	},
	Check: check(checkReturnBypassesAccess),
	Scope: engine.ScopeServer,
}

// accessDirectives are checked in nginx's access phase, after rewrite.
var accessDirectives = append([]string{"deny"}, knowledge.AccessChecks()...)

func checkReturnBypassesAccess(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || len(d.Args) == 0 || c.In() == parser.CtxMain || c.In() == parser.CtxHTTP {
			return
		}
		code := d.Arg(0)
		if !strings.HasPrefix(code, "2") || code == "204" || len(code) != 3 {
			return // redirects, errors and empty answers give nothing away
		}
		for _, name := range accessDirectives {
			s := p.Effective(c.Blocks, c.Root, name)
			if !s.Found() || s.Last().Arg(0) == "off" || name == "satisfy" {
				continue
			}
			diag := p.Diag(d, "return %s answers in the rewrite phase, before the %s at %s is checked: everyone gets this answer; check the client in the rewrite phase (geo/map + if) or serve it from a handler",
				code, name, where(s.Last()))
			diag.Related = []finding.Related{engine.RelatedTo(s.Last(), "the "+name+" this return bypasses")}
			p.Report(diag)
			return
		}
	}, "return")
}
