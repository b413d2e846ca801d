package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var regexCaptureMissing = &engine.Rule{
	Doc: engine.Doc{
		ID:    "regex-capture-missing",
		Title: "A $N that its regular expression does not capture",
		Why: `$1..$9 are the groups of the last regular expression matched: a location regex, or the
rewrite's own. A reference past the groups it has is an empty string, so a rewrite or alias
built from it quietly points somewhere else (often the root of the site).`,
		Fix:      `Add the missing group to the expression, or use the number it has.`,
		Bad:      "events {}\nhttp {\n    server {\n        rewrite ^/old/(.*)$ /new/$2 permanent;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        rewrite ^/old/(.*)$ /new/$1 permanent;\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_rewrite_module rewrite", "nginx docs: ngx_http_core_module location"},
	},
	Check: check(checkRegexCaptureMissing),
	Scope: engine.ScopeServer,
}

// captureGroups counts the capture groups of a PCRE pattern: "(" that is
// not escaped, not in a character class, and not "(?" unless it names a
// group.
func captureGroups(re string) int {
	n := 0
	regexSyntax(re, func(i int) {
		if re[i] == '(' && capturing(re, i) {
			n++
		}
	})
	return n
}

func checkRegexCaptureMissing(p *Pass) {
	check := func(d *parser.Directive, groups int, values []parser.Arg, what string) {
		for _, a := range values {
			for _, r := range knowledge.VarRefs(a.Value) {
				if r.Kind != knowledge.Capture {
					continue // a named variable, or a capture written ${N}
				}
				if n := int(r.Name[0] - '0'); n > groups {
					p.ReportArgf(d, argIndex(d, a), "$%d refers to group %d, but %s has %d; it is empty at run time", n, n, what, groups)
					return
				}
			}
		}
	}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		if d.Name == "rewrite" && len(d.Args) >= 2 {
			check(d, captureGroups(d.Arg(0)), d.Args[1:2], "the rewrite's expression "+engine.Clip(d.Arg(0)))
			return
		}
		// inside an "if" with a regex test: its captures
		if c.In() == parser.CtxIf {
			b := c.Enclosing("if")
			if _, op, re, ok := ifCondition(b); ok && (op == "~" || op == "~*") {
				for _, x := range b.Block {
					if x == d {
						break
					}
					if x.Name == "rewrite" {
						return
					}
				}
				check(d, captureGroups(re), d.Args, "the if's expression "+engine.Clip(re))
			}
			return
		}
		// directives that read the location's captures
		loc := c.Enclosing(parser.CtxLocation)
		if loc == nil || len(loc.Args) != 2 || (loc.Arg(0) != "~" && loc.Arg(0) != "~*") || c.In() != parser.CtxLocation {
			return
		}
		// a rewrite earlier in the block replaces the captures
		for _, x := range loc.Block {
			if x == d {
				break
			}
			if x.Name == "rewrite" || x.Name == "if" {
				return
			}
		}
		check(d, captureGroups(loc.Arg(1)), d.Args, "the location's expression "+engine.Clip(loc.Arg(1)))
	}, "rewrite", "alias", "root", "proxy_pass", "fastcgi_param", "try_files", "return", "set", "add_header")
}

func argIndex(d *parser.Directive, a parser.Arg) int {
	for i := range d.Args {
		if d.Args[i].Offset == a.Offset {
			return i
		}
	}
	return 0
}
