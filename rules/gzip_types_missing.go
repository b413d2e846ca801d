package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var gzipTypesMissing = &engine.Rule{
	Doc: engine.Doc{
		ID:    "gzip-types-missing",
		Title: "gzip is on but compresses only text/html",
		Why: `gzip_types defaults to text/html alone, so "gzip on;" without it leaves CSS, JavaScript,
JSON and SVG uncompressed: usually most of a page's text bytes. Debian's stock nginx.conf
turns gzip on and leaves its gzip_types line commented out.`,
		Fix:      `Add "gzip_types ` + knowledge.GzipTypes + `;" next to "gzip on;" (text/html is always compressed).`,
		Bad:      "events {}\nhttp {\n    gzip on;\n}\n",
		Good:     "events {}\nhttp {\n    gzip on;\n    gzip_types text/css application/javascript application/json image/svg+xml;\n}\n",
		Severity: finding.Info,
		Category: engine.CategoryPerformance,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_gzip_module gzip_types (default text/html)"},
	},
	Check: check(checkGzipTypesMissing),
}

func checkGzipTypesMissing(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) != "on" || engine.InStream(c) {
			return
		}
		if s := p.Effective(c.Blocks, c.Root, "gzip_types"); s.Found() || !s.Complete {
			return
		}
		if loc := c.Enclosing(parser.CtxLocation); loc != nil && htmlOnly(loc) {
			return // the location serves HTML, which gzip compresses anyway
		}
		// types listed anywhere below may be where it compresses;
		// only a tree that lists none for sure compresses text/html alone
		if typesListed(p) {
			return
		}
		diag := p.Diag(d, "gzip is on but gzip_types is not set, so only text/html is compressed; add \"gzip_types %s;\"", knowledge.GzipTypes)
		diag.Fix = &finding.Fix{Description: "add gzip_types", Edits: []finding.Edit{engine.InsertAfter(d, "gzip_types "+knowledge.GzipTypes+";")}}
		p.Report(diag)
	}, "gzip")
}

// typesListed reports whether the tree sets gzip_types anywhere.
func typesListed(p *Pass) bool {
	found := false
	p.Each(func(d *parser.Directive, c *parser.Context) { found = true }, "gzip_types")
	return found
}

// htmlOnly reports whether a location matches only HTML files by its path.
func htmlOnly(loc *parser.Directive) bool {
	if len(loc.Args) == 0 {
		return false
	}
	v := strings.TrimSuffix(loc.Args[len(loc.Args)-1].Value, "$")
	return strings.HasSuffix(v, ".html") || strings.HasSuffix(v, ".htm")
}
