package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var sslDirectiveRemoved = &engine.Rule{
	Doc: engine.Doc{
		ID:    "ssl-directive-removed",
		Title: `The "ssl on|off" directive`,
		Why: `"ssl on;" was deprecated in nginx 1.15.0 and removed in 1.25.1: nginx -t fails with
unknown directive "ssl" from then on. TLS is a property of the listening socket:
"listen 443 ssl;".`,
		Fix:      `Delete "ssl on;" and add "ssl" to the listen directives of the server.`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 443;\n        ssl on;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n        ssl_session_cache shared:SSL:10m;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n        ssl_session_cache shared:SSL:10m;\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.1.0",
		Versions: "deprecated since 1.15.0, removed in 1.25.1",
		Sources:  []string{"nginx CHANGES 1.25.1: the ssl directive was removed", "nginx docs: ngx_http_ssl_module ssl"},
	},
	Check: check(checkSslDirectiveRemoved),
	Scope: engine.ScopeServer,
}

func checkSslDirectiveRemoved(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "ssl" || (d.Arg(0) != "on" && d.Arg(0) != "off") {
			return
		}
		sev := finding.Error
		msg := `"ssl %s" was removed in nginx 1.25.1 (nginx -t fails with unknown directive "ssl")`
		switch {
		case p.Version.Known() && p.Version.Less(vHTTP2Directive):
			sev = finding.Warning
			msg = `"ssl %s" is deprecated since nginx 1.15.0 and removed in 1.25.1`
		case !p.Version.Known():
			// no version given: the versions nginxtune knows differ
			sev = finding.Info
			msg = `"ssl %s" is deprecated, and nginx 1.25.1 removed it (from then on nginx -t fails with unknown directive "ssl")`
		}
		fix := &finding.Fix{Description: `remove "ssl ` + d.Arg(0) + `;"`, Edits: []finding.Edit{engine.RemoveStatement(d)}}
		if d.Arg(0) == "on" {
			listens := 0
			if len(c.Blocks) > 0 {
				for _, l := range engine.FindIn(c.Blocks[len(c.Blocks)-1].Block, "listen") {
					listens++
					if hasArg(l, "ssl") < 0 && hasArg(l, "quic") < 0 && len(l.Args) > 0 {
						fix.Edits = append(fix.Edits, finding.Edit{File: l.File.Path, Start: int(l.Args[0].Offset) + len(l.Args[0].Raw),
							End: int(l.Args[0].Offset) + len(l.Args[0].Raw), New: " ssl"})
					}
				}
			}
			if len(fix.Edits) > 1 || listens == 0 {
				msg += `; write "listen ... ssl" instead`
				fix.Description = `remove "ssl on;" and add ssl to the listen directives`
			} else {
				// the server's listen directives say ssl already
				msg += "; delete it (the listen directives already say ssl)"
			}
		} else {
			msg += "; delete it"
		}
		diag := p.DiagSev(sev, d, msg, d.Arg(0))
		diag.Fix = fix
		p.Report(diag)
	}, "ssl")
}
