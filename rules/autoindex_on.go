package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var autoindexOn = &engine.Rule{
	Doc: engine.Doc{
		ID:    "autoindex-on",
		Title: "Directory listings for anyone",
		Why: `"autoindex on" answers a request for a directory with the list of its files: backups,
editor swap files and anything copied there by mistake become discoverable. Where a listing is
meant, it is usually meant for some people only.`,
		Fix:      `Turn it off, or limit the location with allow/deny or auth_basic.`,
		Bad:      "events {}\nhttp {\n    server {\n        location /files/ {\n            autoindex on;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /files/ {\n            autoindex on;\n            auth_basic \"files\";\n            auth_basic_user_file /etc/nginx/htpasswd;\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: engine.CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_autoindex_module"},
	},
	Check: check(checkAutoindexOn),
	Scope: engine.ScopeServer,
}

func checkAutoindexOn(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) != "on" || p.restricted(c) {
			return
		}
		p.Reportf(d, "autoindex on lists the files of every directory here to anyone; limit it with allow/deny or auth_basic, or turn it off")
	}, "autoindex", "fancyindex")
}
