package rules

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var headerInheritance = &engine.Rule{
	Doc: engine.Doc{
		ID:    "header-inheritance",
		Title: "add_header (or proxy_set_header, fastcgi_param, ...) in a block drops every inherited one",
		Why: `add_header, proxy_set_header, fastcgi_param and their kin are inherited from the outer block
only when a block has none of its own. One "add_header Cache-Control ..." in a location
silently removes the Strict-Transport-Security, Content-Security-Policy and X-Frame-Options
the server sets; one proxy_set_header in a location drops the server's Host and
X-Forwarded-For; one fastcgi_param drops everything "include fastcgi_params" set outside.
nginx reports nothing. From nginx 1.29.3 "add_header_inherit merge;" makes add_header
(add_trailer_inherit for trailers) add to the inherited set instead.`,
		Fix: `Repeat the inherited ones in the block (put them in a snippet and include it at both levels),
or, with nginx 1.29.3 or later, "add_header_inherit merge;".`,
		Bad:      "events {}\nhttp {\n    server {\n        add_header X-Frame-Options DENY;\n        location /static/ {\n            add_header Cache-Control \"max-age=3600\";\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        add_header X-Frame-Options DENY;\n        location /static/ {\n            add_header X-Frame-Options DENY;\n            add_header Cache-Control \"max-age=3600\";\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all (add_header_inherit from 1.29.3)",
		Sources:  []string{"nginx docs: ngx_http_headers_module add_header, add_header_inherit (1.29.3)", "nginx docs: ngx_http_proxy_module proxy_set_header", "gixy: add_header_redefinition (the check's idea; written anew here)"},
	},
	Check: check(checkHeaderInheritance),
	Scope: engine.ScopeServer,
	Slow:  5,
}

// arrayFamilies are the directives an inner block replaces as a whole, and
// the handler that makes them matter ("" when they always do).
var arrayFamilies = knowledge.Arrays()

// securityHeaders are named first when dropped.
var securityHeaders = map[string]bool{
	"strict-transport-security": true, "content-security-policy": true, "x-frame-options": true,
	"x-content-type-options": true, "referrer-policy": true, "permissions-policy": true,
	"cross-origin-opener-policy": true, "cross-origin-embedder-policy": true, "cross-origin-resource-policy": true,
}

// usesHandler reports whether a block or a block below it passes requests
// with the named directive.
func usesHandler(b *parser.Directive, name string) bool {
	found := false
	engine.WalkDirs(b.Block, func(x *parser.Directive) { found = found || x.Name == name })
	return found
}

// sameLower reports whether two header names are one: equal lowered (as
// strings.ToLower lowers them), compared in place when both are ASCII.
func sameLower(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return strings.EqualFold(a, b)
	}
	// not EqualFold: it folds where ToLower does not ("ς" and "σ")
	la, lb := strings.ToLower(a), strings.ToLower(b)
	return la == lb
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// checkHeaderInheritance visits the directives of the families, not every
// block: each block that sets one is judged once per family.
func checkHeaderInheritance(p *Pass) {
	// the directives of one block share their context: a block is judged
	// when the walk first meets one of its directives of a family (a block
	// met again after a nested one reports the same finding, which Run
	// drops as a duplicate)
	// (by the name's number, Pass.VisitNames: a map by name was looked
	// up for each of the families' directives)
	ids, _ := p.VisitNames()
	var last []*parser.Context
	names := make([]string, len(arrayFamilies))
	handler := map[string]string{}
	for i, f := range arrayFamilies {
		names[i] = f.Name
		handler[f.Name] = f.Handler
	}
	p.EachAt(func(vi int, d *parser.Directive, c *parser.Context) {
		n := len(c.Blocks)
		if n == 0 || engine.InStream(c) {
			return
		}
		b := c.Blocks[n-1]
		id := int(ids[vi])
		if id >= len(last) {
			last = append(last, make([]*parser.Context, id+1-len(last))...)
		}
		if last[id] == c {
			return
		}
		last[id] = c
		switch b.Name {
		case "server", "location", "limit_except":
		case "if":
			if len(c.Names) < 2 || c.Names[len(c.Names)-2] != parser.CtxLocation {
				return
			}
		default:
			return
		}
		fam := d.Name
		outer := p.Effective(c.Blocks[:n-1], c.Root, fam)
		if !outer.Found() {
			return
		}
		if h := handler[fam]; h != "" && !usesHandler(b, h) {
			return
		}
		if fam == "add_header" || fam == "add_trailer" {
			inherit := "add_header_inherit" // (a constant: not joined for each block)
			if fam == "add_trailer" {
				inherit = "add_trailer_inherit"
			}
			if s := p.Effective(c.Blocks, c.Root, inherit); s.Found() && s.Last().Arg(0) != "on" {
				return // merge adds to the inherited set; off drops it on purpose
			}
		}
		inner := p.Find(b.Block, fam)
		// the names compared without lowering each (a copy of every
		// header name of every block): a block sets a few
		have := func(name string) bool {
			for _, x := range inner {
				if sameLower(x.Arg(0), name) {
					return true
				}
			}
			return false
		}
		var first, rest []string
		seen := func(name string) bool {
			for _, l := range [2][]string{first, rest} {
				for _, n := range l {
					if sameLower(n, name) {
						return true
					}
				}
			}
			return false
		}
		for _, x := range outer.Dirs {
			name := x.Arg(0)
			if have(name) || seen(name) || x.Arg(1) == "" && fam != "proxy_hide_header" {
				continue // an empty value sets nothing to lose
			}
			if securityHeaders[strings.ToLower(name)] {
				first = append(first, x.Arg(0))
			} else {
				rest = append(rest, x.Arg(0))
			}
		}
		dropped := append(first, rest...)
		if len(dropped) == 0 || len(inner) == 0 {
			return
		}
		list := strings.Join(dropped, ", ")
		if len(dropped) > 6 {
			list = strings.Join(dropped[:6], ", ") + fmt.Sprintf(" and %d more", len(dropped)-6)
		}
		from := "the enclosing block"
		if outer.Level != nil {
			from = outer.Level.Name + " at " + where(outer.Level)
		} else if len(outer.Dirs) > 0 {
			from = where(outer.Dirs[0])
		}
		verb := "no longer apply"
		if len(dropped) == 1 {
			verb = "no longer applies"
		}
		diag := p.Diag(inner[0], "this %s replaces the ones inherited from %s: %s %s in this %s; repeat them here or include a shared snippet at both levels",
			fam, engine.Clip(from), engine.Clip(list), verb, b.Name)
		// first the block that loses them (an editor's jump goes where the
		// header is missing), then where each lost one is set
		// (messages joined, not formatted: a tree of thousands of such
		// blocks makes this rule the longest of a lint)
		diag.Related = make([]finding.Related, 0, min(11, 1+len(outer.Dirs)))
		diag.Related = append(diag.Related, engine.RelatedTo(b, "the "+b.Name+" that loses "+engine.Clip(list)))
		lost := ", and not inherited by the " + b.Name + " at " + where(b)
		for _, x := range outer.Dirs {
			if !have(x.Arg(0)) && len(diag.Related) < 11 {
				diag.Related = append(diag.Related, engine.RelatedTo(x, x.Name+" "+engine.Clip(x.Arg(0))+" is set here"+lost))
			}
		}
		p.Report(diag)
	}, names...)
}
