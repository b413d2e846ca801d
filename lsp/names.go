package lsp

import (
	"strings"

	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// definitions lists where a variable is set in the tree: set, map, geo,
// split_clients, perl_set, js_set, and named captures of regexes.
func definitions(t *loader.Tree, name string) []*parser.Directive {
	var out []*parser.Directive
	want := "$" + strings.ToLower(name)
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		switch d.Name {
		case "set", "perl_set", "js_set", "set_real_ip_from":
			if strings.EqualFold(d.Arg(0), want) {
				out = append(out, d)
			}
		case "map", "split_clients":
			if strings.EqualFold(d.Arg(len(d.Args)-1), want) {
				out = append(out, d)
			}
		case "geo":
			if strings.EqualFold(d.Arg(len(d.Args)-1), want) {
				out = append(out, d)
			}
		}
		for _, a := range d.Args {
			if strings.Contains(a.Raw, "(?<"+name+">") || strings.Contains(a.Raw, "(?P<"+name+">") || strings.Contains(a.Raw, "(?'"+name+"'") {
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

// isPass reports whether a directive passes requests to an address or an
// upstream.
func isPass(directive string) bool {
	switch directive {
	case "proxy_pass", "grpc_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "memcached_pass":
		return true
	}
	return false
}

// upstreamName is the upstream a proxy_pass-like argument names, "" when
// none.
func upstreamName(directive, arg string) string {
	if !isPass(directive) {
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
