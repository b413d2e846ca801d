package lsp

import (
	"slices"
	"strings"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// definitions lists where a variable is set in the tree: the directives
// that define one (knowledge.DefinesVariable), and named captures of regexes.
func definitions(t *loader.Tree, name string) []*parser.Directive {
	var out []*parser.Directive
	want := "$" + strings.ToLower(name)
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if i, ok := knowledge.DefinesVariable(d.Name, len(d.Args)); ok && strings.EqualFold(d.Arg(i), want) {
			out = append(out, d)
		}
		for _, a := range d.Args {
			if slices.Contains(knowledge.NamedCaptures(a.Raw), name) {
				out = append(out, d)
				break
			}
		}
		return true
	})
	return out
}

func upstreams(t *loader.Tree) []*parser.Directive {
	var out []*parser.Directive
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == "upstream" && d.Block != nil && len(d.Args) == 1 {
			out = append(out, d)
		}
		return true
	})
	return out
}

func namedLocations(t *loader.Tree) []*parser.Directive {
	var out []*parser.Directive
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == "location" && len(d.Args) == 1 && strings.HasPrefix(d.Arg(0), "@") {
			out = append(out, d)
		}
		return true
	})
	return out
}

// upstreamName is the upstream a proxy_pass-like argument names, "" when
// none.
func upstreamName(directive, arg string) string {
	if !knowledge.IsPassHandler(directive) {
		return ""
	}
	rest := arg
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/:"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// named keeps the blocks whose first argument is name.
func named(blocks []*parser.Directive, name string) []*parser.Directive {
	var out []*parser.Directive
	for _, b := range blocks {
		if b.Arg(0) == name {
			out = append(out, b)
		}
	}
	return out
}
