package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var validReferersNone = &engine.Rule{
	Doc: engine.Doc{
		ID:    "valid-referers-none",
		Title: `"valid_referers none" lets requests without a Referer through`,
		Why: `A referer check that accepts "none" accepts every request whose Referer header is
missing, and leaving it out is up to the client: hotlinking protection or a CSRF-style check
built on $invalid_referer is bypassed by any client that sends no Referer (a privacy extension,
a script, curl).`,
		Fix:      `Remove "none" where the check protects something; keep it only where it guards nothing but bandwidth.`,
		Bad:      "events {}\nhttp {\n    server {\n        valid_referers none server_names;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        valid_referers server_names;\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_referer_module valid_referers"},
	},
	Check: check(checkValidReferersNone),
	Scope: engine.ScopeServer,
}

func checkValidReferersNone(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if i := hasArg(d, "none"); i >= 0 {
			p.ReportArgf(d, i, "valid_referers none accepts every request that sends no Referer header, which any client can omit; remove \"none\" where $invalid_referer protects something")
		}
	}, "valid_referers")
}
