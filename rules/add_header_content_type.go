package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var addHeaderContentType = &engine.Rule{
	Doc: engine.Doc{
		ID:    "add-header-content-type",
		Title: "add_header Content-Type adds a second Content-Type",
		Why: `nginx sets Content-Type itself (from types and default_type); add_header does not replace it
but adds another: measured with nginx 1.22.1, "add_header Content-Type text/plain;" answers with
two Content-Type headers. Clients pick one of them as they please (browsers and proxies differ),
and a type chosen by the wrong header is how a file gets rendered or sniffed as something else.`,
		Fix: `Set the type with "default_type text/plain;" in the location (or a "types { }" block for the
files it serves). A proxied response's type is the backend's, which default_type does not change
(measured with nginx 1.22.1): there write "proxy_hide_header Content-Type;" (fastcgi_hide_header,
uwsgi_hide_header... for the other protocols) beside the add_header, with "always" if error
responses should carry it too (without it they then carry no Content-Type).`,
		Bad:      "events {}\nhttp {\n    server {\n        location /feed {\n            add_header Content-Type application/json;\n            return 200 \"{}\";\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /feed {\n            default_type application/json;\n            return 200 \"{}\";\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryCorrectness,
		Since:    "0.5.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_headers_module add_header, ngx_http_core_module default_type", "measured with nginx 1.22.1 (docs/security.md)"},
	},
	Check: check(checkAddHeaderContentType),
	Scope: engine.ScopeServer,
}

// hideHeaderOf names, for each directive that passes a request to a
// backend, the directive that drops a header of the backend's response.
var hideHeaderOf = map[string]string{
	protoHTTP: "proxy_hide_header", protoFastCGI: "fastcgi_hide_header", protoUWSGI: "uwsgi_hide_header",
	protoSCGI: "scgi_hide_header", protoGRPC: "grpc_hide_header",
}

func checkAddHeaderContentType(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || !strings.EqualFold(d.Arg(0), "Content-Type") {
			return
		}
		loc := c.Enclosing(parser.CtxLocation)
		if c.In() != parser.CtxLocation || loc == nil {
			p.ReportArgf(d, 0, "add_header Content-Type sends a second Content-Type beside nginx's own (measured: two headers); set the type with default_type (or types) instead, "+
				"or, where a backend's response is passed, hide the backend's with proxy_hide_header Content-Type (default_type does not change a proxied response's type)")
			return
		}
		// a proxied location: the type is the backend's, which default_type
		// does not change (measured with nginx 1.22.1); the backend's
		// header is dropped with *_hide_header, and add_header then gives
		// the only one
		for _, pass := range passNames {
			hide := hideHeaderOf[pass]
			if hide == "" || len(p.Find(loc.Block, pass)) == 0 {
				continue
			}
			hidden := p.Effective(c.Blocks, c.Root, hide)
			for _, h := range hidden.Dirs {
				if strings.EqualFold(h.Arg(0), "Content-Type") {
					return // the backend's is dropped: add_header gives the one
				}
			}
			always := strings.EqualFold(d.Arg(len(d.Args)-1), "always")
			diag := p.DiagArg(d, 0, "add_header Content-Type on a response from %s sends a second Content-Type beside the backend's (measured: two headers), "+
				"and default_type does not change a proxied response's type; write \"%s Content-Type;\" beside it, so that the added one is the only one%s",
				pass, hide, map[bool]string{true: "", false: " (add_header without \"always\" sets it on 2xx and 3xx responses only: the others then carry no Content-Type)"}[always])
			// written in the location, where it replaces the inherited
			// ones: only where there are none, or it sets its own
			if always && (hidden.Complete && !hidden.Found() || hidden.Found() && hidden.Level == loc) {
				diag.Fix = &finding.Fix{Description: "hide the backend's Content-Type", Edits: []finding.Edit{engine.InsertBefore(d, hide+" Content-Type;")}}
			}
			p.Report(diag)
			return
		}
		diag := p.DiagArg(d, 0, "add_header Content-Type sends a second Content-Type beside nginx's own (measured: two headers); set the type with default_type (or types) instead")
		if len(d.Args) >= 2 && !strings.Contains(d.Arg(1), "$") && len(p.Find(loc.Block, "default_type")) == 0 {
			diag.Fix = &finding.Fix{Description: "use default_type", Edits: []finding.Edit{engine.ReplaceStmt(d, "default_type "+d.Args[1].Raw+";")}}
		}
		p.Report(diag)
	}, "add_header")
}
