package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var proxyPassNormalized = &engine.Rule{
	Doc: engine.Doc{
		ID:    "proxy-pass-normalized",
		Title: "proxy_pass with a URI part passes the decoded, normalized path",
		Why: `Without a URI part, proxy_pass sends the path as the client wrote it. With one
("proxy_pass http://app/;", "http://app/v1/"), nginx replaces the location's prefix in its own
decoded and normalized copy of the path: "%2F" arrives as "/", "/a/../b" as "/b", "//" as "/".
A backend that routes or checks permissions on encoded paths then sees something other than
what the client sent, and a path that looked harmless to nginx can address something else on
the backend. A variable such as a capture of the path passes decoded text too: "%3F" becomes
a "?" that starts a query string of the client's choosing. The other way round, a "rewrite ...
break" to a URI that keeps the client's escapes ($request_uri, or a capture of a URI an earlier
rewrite set from it) is escaped again: /1/a%2Fb reaches the backend as /a%252Fb (measured with
nginx 1.22.1), unless proxy_pass's URI part has variables, which are sent as written.`,
		Fix: `Drop the URI part when the backend can take the original path ("proxy_pass http://app;"), or
pass $request_uri (rewriting the prefix with a map or rewrite) when the backend must see the
client's encoding.`,
		Bad:      "events {}\nhttp {\n    server {\n        location ~ ^/api/(.*)$ {\n            proxy_pass http://127.0.0.1:8080/$1;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /api/ {\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_proxy_module proxy_pass (a URI part, variables)", "docs/security.md", "gixy-next: proxy_pass_normalized (the check's idea; written anew here)"},
	},
	Check: check(checkProxyPassNormalized),
	// what the URI holds takes from the rest of the tree only what its
	// variables' set and map directives define (taintSummary)
	Scope:   engine.ScopeSummary,
	Summary: summary((*Pass).taintSummary),
}

func checkProxyPassNormalized(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || len(d.Args) == 0 || !strings.Contains(d.Arg(0), "://") {
			return
		}
		uri := strings.TrimPrefix(d.Arg(0), backendPart(d))
		// a rewrite ... break to a URI that holds the client's escapes
		// ($request_uri, or a capture of a URI an earlier rewrite set from
		// it): nginx escapes the rewritten URI again for the backend, so
		// %2F arrives as %252F (measured with nginx 1.22.1). A URI part with
		// variables is sent as written instead (measured: //a%2Fb%0d).
		if loc := c.Enclosing(parser.CtxLocation); loc != nil && c.In() == parser.CtxLocation && !strings.Contains(uri, "$") {
			for _, x := range parser.Level(loc.Block) {
				if x.Name != "rewrite" || x.Arg(2) != "break" {
					continue
				}
				if t := p.rewriteTaint(x, c, 0); t.encoded {
					diag := p.DiagArg(x, 1, "rewrite to %s, which holds the client's percent-escapes as written: nginx encodes the rewritten URI again for %s, so %%2F reaches the backend as %%252F (measured); pass it as \"proxy_pass %s%s;\" instead", t.via, d.Name, engine.Clip(backendPart(d)), engine.Clip(x.Arg(1)))
					diag.Severity = finding.Warning
					p.Report(diag)
					return
				}
			}
		}
		if uri == "" {
			return
		}
		if strings.Contains(uri, "$") {
			t := p.taintOf(uri, d, c)
			if t.decoded && !t.newline && t.reserved { // with a line break, header-injection reports it
				p.ReportSeverityf(finding.Warning, d, "proxy_pass passes %s, the decoded path: %%3F becomes a \"?\" that starts a query string and %%2F a \"/\" the backend routes on; pass $request_uri, or no URI part", t.via)
			}
			return
		}
		if strings.Contains(d.Arg(0), "$") {
			return // with variables the URI part replaces the whole path: nothing of the client's is passed
		}
		loc := c.Enclosing(parser.CtxLocation)
		if loc == nil || c.In() != parser.CtxLocation {
			return
		}
		// an exact location's URI is replaced whole: nothing of the
		// client's path is passed
		prefix, ok := locationIsPrefix(loc)
		if !ok {
			return
		}
		// a rewrite ... break in the location (the raw-path idiom): nginx
		// ignores the URI part and passes the rewritten URI
		for _, x := range parser.Level(loc.Block) {
			if x.Name == "rewrite" && x.Arg(2) == "break" {
				return
			}
		}
		p.ReportArgf(d, 0, "with the URI part %s nginx replaces the prefix %s in its own decoded, normalized copy of the path, not the client's: %%2F arrives as \"/\", /a/../b as /b; write the address without a URI part if the backend can take the original path",
			engine.Clip(uri), engine.Clip(prefix))
	}, protoHTTP)
}
