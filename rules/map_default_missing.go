package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var mapDefaultMissing = &engine.Rule{
	Doc: engine.Doc{
		ID:    "map-default-missing",
		Title: "A map that routes or guards access has no default",
		Why: `A map without "default" yields an empty string for every value it does not list. Used to
pick a backend, root or redirect, an unlisted value sends the request nowhere (proxy_pass
with an empty host fails with a 500 error) or to the site's root. Used in an access check
that tests for the "no" value ("if ($allowed = 0) { return 403; }"), an unlisted client is
empty, not 0, and is let through.`,
		Fix:      `Add the value you mean for everything else: "default 0;" (or the fallback backend).`,
		Bad:      "events {}\nhttp {\n    map $http_x_api_key $key_ok {\n        \"k-7f3a\" 1;\n        \"k-legacy\" 0;\n    }\n    server {\n        location /api/ {\n            if ($key_ok = 0) {\n                return 403;\n            }\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    map $http_x_api_key $key_ok {\n        default 0;\n        \"k-7f3a\" 1;\n    }\n    server {\n        location /api/ {\n            if ($key_ok = 0) {\n                return 403;\n            }\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_map_module (default: an empty string)"},
	},
	Check: check(checkMapDefaultMissing),
}

// denyValues are the values a map uses to say "no".
var denyValues = map[string]bool{"0": true, "off": true, "no": true, "false": true, "deny": true, "denied": true}

// mayHaveDefault reports whether a map has a default, or an include whose
// list may hold one.
func mayHaveDefault(m *parser.Directive) bool {
	for _, e := range m.Block {
		if e.Name == "default" || e.Name == "include" {
			return true
		}
	}
	return false
}

func checkMapDefaultMissing(p *Pass) {
	maps := map[string]*parser.Directive{} // by variable, the (last) map without a default
	for name, list := range p.taintScope().maps {
		for _, d := range list {
			if !mayHaveDefault(d) {
				maps[name] = d
			}
		}
	}
	// geo blocks too: an address no entry lists gets an empty string
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Block == nil || len(d.Args) == 0 || mayHaveDefault(d) {
			return
		}
		maps[strings.TrimPrefix(d.Arg(len(d.Args)-1), "$")] = d
	}, "geo")
	if len(maps) == 0 {
		return
	}
	// a source drawn from a fixed range (set_random $v 1 3) may be listed whole
	random := map[string]bool{}
	p.Each(func(d *parser.Directive, c *parser.Context) { random[d.Arg(0)] = true }, "set_random")
	for n, m := range maps {
		if random[m.Arg(0)] {
			delete(maps, n)
		}
	}
	reported := map[*parser.Directive]bool{}
	report := func(m *parser.Directive, use *parser.Directive, how string) {
		if reported[m] {
			return
		}
		reported[m] = true
		v := m.Arg(len(m.Args) - 1)
		diag := p.Diag(m, "%s %s has no default: a value it does not list gives an empty string, and %s at %s then %s; add \"default ...;\"", m.Name, v, use.Name, where(use), how)
		diag.Related = []finding.Related{engine.RelatedTo(use, "where "+v+" is used")}
		p.Report(diag)
	}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		switch d.Name {
		case "if":
			v, op, operand, ok := ifCondition(d)
			if !ok || op != "=" || !denyValues[strings.ToLower(operand)] {
				return
			}
			m := maps[strings.TrimPrefix(v, "$")]
			if m == nil {
				return
			}
			for _, x := range parser.Level(d.Block) {
				if x.Name == "return" && (strings.HasPrefix(x.Arg(0), "4") || x.Arg(0) == "444") {
					report(m, d, "lets it through")
					return
				}
			}
		default:
			if len(d.Args) == 0 {
				return
			}
			arg := d.Arg(0)
			if d.Name == "return" {
				if len(d.Args) < 2 {
					return
				}
				arg = d.Arg(1)
			}
			for _, r := range knowledge.VarRefs(arg) {
				if m := maps[r.Name]; m != nil && !guarded(c, r.Name) {
					report(m, d, "has no target")
					return
				}
			}
		}
	}, "if", "proxy_pass", "fastcgi_pass", "grpc_pass", "uwsgi_pass", "scgi_pass", "root", "alias", "return")
}

// guarded reports whether the place is inside an "if" that tests the
// variable for a value ("if ($v)", "if ($v != "")"), so that an empty
// result never reaches it.
func guarded(c *parser.Context, name string) bool {
	for _, b := range c.Blocks {
		if b.Name != "if" {
			continue
		}
		v, op, operand, ok := ifCondition(b)
		if ok && strings.TrimPrefix(v, "$") == name && (op == "" || op == "!=" && operand == "") {
			return true
		}
	}
	return false
}
