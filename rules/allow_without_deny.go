package rules

import (
	"fmt"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var allowWithoutDeny = &engine.Rule{
	Doc: engine.Doc{
		ID:    "allow-without-deny",
		Title: "allow without a deny: everyone is allowed",
		Why: `allow and deny are checked in order and the default is to allow: a block with "allow
10.0.0.0/8;" and no deny lets every address in. A deny written in an outer block does not
help: an inner block's own allow/deny list replaces the inherited one.`,
		Fix:      `End the list with "deny all;".`,
		Bad:      "events {}\nhttp {\n    server {\n        location /admin/ {\n            allow 10.0.0.0/8;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /admin/ {\n            allow 10.0.0.0/8;\n            deny all;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_access_module"},
	},
	Check: check(checkAllowWithoutDeny),
	Scope: engine.ScopeServer,
}

func checkAllowWithoutDeny(p *Pass) {
	done := map[*parser.Directive]bool{}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || done[d] || d.Arg(0) == "all" {
			return
		}
		if len(c.Blocks) == 0 && c.Root != nil && c.Root.ContextSource != "root" {
			return // a snippet of allow lines, included where the deny follows
		}
		var dirs []*parser.Directive
		if len(c.Blocks) > 0 {
			dirs = c.Blocks[len(c.Blocks)-1].Block
		} else if c.Root != nil {
			dirs = c.Root.Directives
		}
		lvl := parser.Level(dirs)
		for _, x := range lvl {
			if x.Name == "allow" {
				done[x] = true
			}
		}
		for _, x := range lvl {
			if x.Name == "deny" {
				return
			}
		}
		outer := ""
		var related []finding.Related
		if len(c.Blocks) > 0 {
			if s := p.Effective(c.Blocks[:len(c.Blocks)-1], c.Root, "deny"); s.Found() {
				outer = fmt.Sprintf(" (the deny at %s does not help: this block's own allow list replaces the inherited one)", where(s.Last()))
				related = append(related, engine.RelatedTo(s.Last(), "the outer deny, replaced here"))
			}
		}
		diag := p.Diag(d, "allow %s with no deny in this block lets every address in (the default is to allow)%s; add \"deny all;\" after the allow lines", engine.Clip(d.Arg(0)), outer)
		diag.Related = related
		p.Report(diag)
	}, "allow")
}
