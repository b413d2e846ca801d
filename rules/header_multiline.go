package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var headerMultiline = &engine.Rule{
	Doc: engine.Doc{
		ID:    "header-multiline",
		Title: "A header value that spans lines",
		Why: `A quoted value with a line break puts a raw newline into a response or request header:
clients and proxies split it into a second header or reject the response, and a value built
from parts of the request becomes header injection.`,
		Fix:      `Write the value on one line.`,
		Bad:      "events {}\nhttp {\n    add_header Content-Security-Policy \"default-src 'self';\n        img-src *\";\n}\n",
		Good:     "events {}\nhttp {\n    add_header Content-Security-Policy \"default-src 'self'; img-src *\";\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"RFC 9110 5.5 (field values do not contain CR or LF)", "nginx docs: add_header, proxy_set_header"},
	},
	Check: check(checkHeaderMultiline),
	Scope: engine.ScopeServer,
}

func checkHeaderMultiline(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		more := d.Name == "more_set_headers" || d.Name == "more_set_input_headers"
		for i, a := range d.Args {
			// headers-more's -s and -t take a list of statuses or types,
			// which may span lines: not a header
			if more && i > 0 && (d.Arg(i-1) == "-s" || d.Arg(i-1) == "-t") || more && strings.HasPrefix(a.Value, "-") {
				continue
			}
			if (i > 0 || more) && lineBreak(a.Value) {
				p.ReportArgf(d, i, "the value of %s holds a line break, which splits the header in two or breaks the message; write it on one line", d.Name)
				return
			}
		}
	}, headerSetters...)
}

// lineBreak reports whether v holds a carriage return or a line feed.
func lineBreak(v string) bool {
	return strings.IndexByte(v, '\n') >= 0 || strings.IndexByte(v, '\r') >= 0
}
