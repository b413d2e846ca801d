package rules

import (
	"slices"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var headerInjection = &engine.Rule{
	Doc: engine.Doc{
		ID:    "header-injection",
		Title: "A header or redirect built from a value that can hold a line break (response splitting)",
		Why: `nginx percent-decodes the path before it matches locations: $uri, $document_uri and captures
of the path hold the decoded text, %0d%0a included. Written into add_header, a redirect's
Location or a header sent to the backend, that line break ends the header, and what follows is
a header (or a body) of the attacker's choosing: Set-Cookie, a cache-poisoning
Content-Length, a script. Measured with nginx 1.22.1: "add_header X-U $uri;" answers
/u/a%0d%0aX-Inj:1 with an "X-Inj: 1" header. $request_uri, $args and $arg_* are not decoded and
keep %0d%0a as written; "." in a regex does not match a line feed, "[^/]" does. A named capture
((?<tail>...)) is a variable and is copied raw everywhere; a numbered capture copied by set or a
rewrite is escaped again (a%0D%0A), used directly in add_header, return or proxy_pass it is not.
A carriage return alone (%0d) is matched by "." and sent raw ("Location: a\rX-Inj:1", measured):
some clients and proxies end a header line there, so it is reported as a warning.`,
		Fix: `Use $request_uri (the path as the client sent it, still encoded) instead of $uri; capture with
a class that excludes line breaks ("[^/\r\n]+", "[^\r\n]*") instead of "[^/]+" or "(.*)".`,
		Bad:      "events {}\nhttp {\n    server {\n        location /old/ {\n            return 301 https://example.com$uri;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /old/ {\n            return 301 https://example.com$request_uri;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"docs/security.md (measured on nginx 1.22.1)", "RFC 9110 5.5 (field values)", "gixy: http_splitting (the check's idea; written anew here)"},
	},
	Check: check(checkHeaderInjection),
	Slow:  3,
	// a value's taint takes from the rest of the tree only what the
	// tree's set and map directives define and which servers answer
	// unknown names (taintSummary)
	Scope:   engine.ScopeSummary,
	Summary: summary((*Pass).taintSummary),
}

func checkHeaderInjection(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		if d.Name == protoHTTP {
			// the URI part of proxy_pass goes into the request line (a
			// value without "$" carries nothing of the request)
			if strings.IndexByte(d.Arg(0), '$') < 0 {
				return
			}
			switch t := p.taintOf(strings.TrimPrefix(d.Arg(0), backendPart(d)), d, c); {
			case t.newline:
				p.ReportArgf(d, 0, "proxy_pass sends %s, which holds the decoded path and can carry %%0d%%0a, in the request line to the backend (request splitting); use $request_uri, or a capture that excludes line breaks", t.via)
			case t.cr:
				diag := p.DiagArg(d, 0, "proxy_pass sends %s, which holds the decoded path and can carry a carriage return (%%0d), raw, in the request line to the backend; a backend that ends lines at it reads a second request; use $request_uri, or a capture that excludes \\r", t.via)
				diag.Severity = finding.Warning
				p.Report(diag)
			}
			return
		}
		i := headerValue(d)
		if i < 0 {
			return
		}
		t := p.taintOf(d.Arg(i), d, c)
		if d.Name == "rewrite" {
			// a rewrite's replacement is a script: its numbered captures are
			// escaped again (measured: a%0D%0AX-Inj:1 in the Location)
			t = p.scriptTaint(d.Arg(i), d, c, 0)
		}
		what := "the header"
		if d.Name == "return" || d.Name == "rewrite" {
			what = "the redirect's Location"
		}
		switch {
		case t.newline:
			p.ReportArgf(d, i, "%s puts %s into %s; it can carry %%0d%%0a and add headers of the client's choosing; use $request_uri or a capture that excludes line breaks", d.Name, t.via, what)
		case t.cr:
			diag := p.DiagArg(d, i, "%s puts %s into %s; it can carry a carriage return (%%0d), which nginx sends raw and some clients and proxies take as a line end; use $request_uri or a capture that excludes \\r and \\n ([^\\r\\n]*)", d.Name, t.via, what)
			diag.Severity = finding.Warning
			p.Report(diag)
		}
	}, headerOrRedirect...)
}

// headerOrRedirect are the directives header-injection reads: the header
// setters, the redirects (return, rewrite: their Location) and proxy_pass
// (its URI goes into the request line).
var headerOrRedirect = append(slices.Clone(headerSetters), "return", "rewrite", protoHTTP)
