package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var errorLogOff = &engine.Rule{
	Doc: engine.Doc{
		ID:    "error-log-off",
		Title: `"error_log off" writes to a file named "off"`,
		Why: `error_log takes a file (or stderr, syslog:, memory:), not a switch: "error_log off;"
makes nginx write its errors to a file called "off" in its prefix directory, where nobody
looks, and the errors that explain an outage are lost to the people who need them.`,
		Fix:      `To keep the log small, raise the level ("error_log /var/log/nginx/error.log crit;"); to discard it, "error_log /dev/null crit;".`,
		Bad:      "error_log off;\nevents {}\n",
		Good:     "error_log /var/log/nginx/error.log crit;\nevents {}\n",
		Severity: finding.Warning,
		Category: engine.CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_core_module error_log"},
	},
	Check: check(checkErrorLogOff),
	Scope: engine.ScopeServer,
}

func checkErrorLogOff(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) == "off" {
			p.ReportArgf(d, 0, "error_log off writes errors to a file named \"off\" in nginx's prefix; write \"error_log /var/log/nginx/error.log crit;\" (or /dev/null) instead")
		}
	}, "error_log")
}
