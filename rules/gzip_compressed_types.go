package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var gzipCompressedTypes = &engine.Rule{
	Doc: engine.Doc{
		ID:    "gzip-compressed-types",
		Title: "gzip_types lists types that are already compressed",
		Why: `JPEG, PNG, GIF, WebP, AVIF, zip and gzip archives, WOFF fonts, audio and video are
compressed already: gzip spends CPU on them for no smaller output, and on-the-fly gzip is
the most expensive thing nginx does per request (a 40 KB response went from 27,317 rps
uncompressed to 3,291 at level 1 on our machine). "gzip_types *" compresses all of them.`,
		Fix:      `List only text-like types: text/css, application/javascript, application/json, image/svg+xml, ... (text/html is always included).`,
		Bad:      "events {}\nhttp {\n    gzip on;\n    gzip_types text/css image/jpeg application/javascript;\n}\n",
		Good:     "events {}\nhttp {\n    gzip on;\n    gzip_types text/css application/javascript image/svg+xml;\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_gzip_module gzip_types", "docs/measurements.md: gzip CPU cost"},
	},
	Check: check(checkGzipCompressedTypes),
	Scope: engine.ScopeServer,
}

func checkGzipCompressedTypes(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "gzip_types" {
			return
		}
		var bad []string
		var edits []finding.Edit
		for i, a := range d.Args {
			if a.Value == "*" {
				p.ReportArgf(d, i, "gzip_types * compresses every response, including images, fonts, archives and video that are compressed already; list the text types instead")
				return
			}
			if knowledge.IsCompressedType(a.Value) {
				bad = append(bad, a.Value)
				edits = append(edits, engine.RemoveArg(d, i))
			}
		}
		if len(bad) == 0 {
			return
		}
		diag := p.Diag(d, "gzip_types lists %s, compressed already: gzip spends CPU on them for no gain", strings.Join(bad, ", "))
		if len(bad) < len(d.Args) {
			diag.Fix = &finding.Fix{Description: "remove " + strings.Join(bad, ", ") + " from gzip_types", Edits: edits}
		}
		p.Report(diag)
	}, "gzip_types")
}
