package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var tryFilesProxy = &engine.Rule{
	Doc: engine.Doc{
		ID:    "try-files-proxy",
		Title: "try_files and proxy_pass in one location",
		Why: `try_files checks the disk for every request before the location's handler runs; with
proxy_pass beside it, the proxy handles only what try_files lets through, and a file that
happens to exist under the root is served from disk instead of the backend: stale copies,
or files that were never meant to be public.`,
		Fix:      `Send the fallback of try_files to a named location that proxies ("try_files $uri @app; location @app { proxy_pass ...; }").`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            try_files $uri $uri/ =404;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location / {\n            try_files $uri @app;\n        }\n        location @app {\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: engine.CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module try_files"},
	},
	Check: check(checkTryFilesProxy),
	Scope: engine.ScopeServer,
}

func checkTryFilesProxy(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if c.In() != parser.CtxLocation || engine.InStream(c) {
			return
		}
		loc := c.Blocks[len(c.Blocks)-1]
		if pp := engine.FindIn(loc.Block, "proxy_pass"); len(pp) > 0 {
			diag := p.Diag(d, "try_files serves any matching file from disk before proxy_pass at %s sees the request; send the fallback to a named location that proxies", where(pp[0]))
			diag.Related = []finding.Related{engine.RelatedTo(pp[0], "the proxy_pass")}
			p.Report(diag)
		}
	}, "try_files")
}
