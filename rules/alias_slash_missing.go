package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var aliasSlashMissing = &engine.Rule{
	Doc: engine.Doc{
		ID:    "alias-slash-missing",
		Title: "alias without the trailing slash its location has: every file is looked up beside the directory",
		Why: `alias replaces the part of the URI the location matched with its path, character for
character. With "location /static/ { alias /var/www/shop/static; }" a request for
/static/app.css becomes /var/www/shop/static + app.css = /var/www/shop/staticapp.css: every
file under the location answers 404 (measured with nginx 1.22.1: its error log says
open() ".../staticapp.css" failed), and nginx -t passes. Only the location's own URI finds
the directory.`,
		Fix:      `End the alias with a slash when the location ends with one ("location /static/ { alias /var/www/shop/static/; }"), or use root where the path maps one to one.`,
		Bad:      "events {}\nhttp {\n    server {\n        location /static/ {\n            alias /var/www/shop/static;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /static/ {\n            alias /var/www/shop/static/;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.6.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module alias", "nginx sources 1.22.1: src/http/ngx_http_core_module.c ngx_http_map_uri_to_path (the alias replaces the location's length of the URI); measured with real nginx (rules/nginx_test.go TestAliasSlashAgainstNginx)"},
	},
	Check: check(checkAliasSlashMissing),
	Scope: engine.ScopeServer,
}

// checkAliasSlashMissing reports an alias without a trailing slash in a
// prefix location that ends with one: the rest of the URI is glued to the
// alias's last name.
func checkAliasSlashMissing(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || c.In() != parser.CtxLocation || len(d.Args) != 1 {
			return
		}
		loc := c.Enclosing(parser.CtxLocation)
		path, ok := locationIsPrefix(loc)
		if !ok || !strings.HasPrefix(path, "/") || !strings.HasSuffix(path, "/") || templated(path) {
			return
		}
		alias := d.Arg(0)
		// a variable may end with the slash; a template's placeholder is
		// not a path yet
		if alias == "" || strings.HasSuffix(alias, "/") || strings.Contains(alias, "$") || templated(alias) {
			return
		}
		for _, x := range parser.Level(loc.Block) {
			if knowledge.Responds(x.Name) {
				return // the location answers without reading a file
			}
		}
		diag := p.DiagArg(d, 0, "alias %s under \"location %s\" reads %sapp.css for %sapp.css (the rest of the URI glued to the name): every file 404s; write \"alias %s/\"",
			engine.Clip(alias), engine.Clip(path), engine.Clip(alias), engine.Clip(path), engine.Clip(alias))
		diag.Fix = &finding.Fix{Description: "end the alias with a slash", Edits: []finding.Edit{engine.ReplaceArg(d, 0, quoteArg(alias+"/"))}}
		p.Report(diag)
	}, "alias")
}
