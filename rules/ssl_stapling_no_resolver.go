package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var sslStaplingNoResolver = &engine.Rule{
	Doc: engine.Doc{
		ID:    "ssl-stapling-no-resolver",
		Title: "OCSP stapling without a resolver",
		Why: `With "ssl_stapling on" nginx fetches OCSP responses from the certificate authority's
responder, by name; without a resolver (and without ssl_stapling_file or
ssl_stapling_responder given as an address) it cannot resolve that name, logs "no resolver
defined to resolve ..." and staples nothing, so clients check revocation themselves, slower.`,
		Fix:      `Add "resolver 127.0.0.53 valid=300s;" (or your DNS server) where stapling is on, or ssl_stapling_file.`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        ssl_stapling on;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    resolver 127.0.0.53 valid=300s;\n    server {\n        listen 443 ssl;\n        ssl_stapling on;\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_ssl_module ssl_stapling, ssl_stapling_file; ngx_http_core_module resolver"},
	},
	Check: check(checkSslStaplingNoResolver),
}

func checkSslStaplingNoResolver(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) != "on" || engine.InStream(c) {
			return
		}
		for _, name := range []string{"resolver", "ssl_stapling_file", "ssl_stapling_responder"} {
			if s := p.Effective(c.Blocks, c.Root, name); s.Found() || !s.Complete {
				return
			}
		}
		// servers below may bring their own
		below := false
		if len(c.Blocks) > 0 {
			engine.WalkDirs(c.Blocks[len(c.Blocks)-1].Block, func(x *parser.Directive) {
				below = below || x.Name == "resolver" || x.Name == "ssl_stapling_file" || x.Name == "ssl_stapling_responder"
			})
		}
		if below {
			return
		}
		p.Reportf(d, "ssl_stapling on without a resolver: nginx cannot look up the OCSP responder and staples nothing; add \"resolver <DNS server> valid=300s;\"")
	}, "ssl_stapling")
}
