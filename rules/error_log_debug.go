package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var errorLogDebug = &engine.Rule{
	Doc: engine.Doc{
		ID:    "error-log-debug",
		Title: "error_log at the debug level",
		Why: `At the debug level an nginx built --with-debug writes dozens of lines per request (every
event, buffer and header), which costs CPU and disk and fills the log within hours on a busy
server; without --with-debug the level still logs every info message, such as each client
that closes a kept-alive connection. It is a troubleshooting setting.`,
		Fix:      `Use "error_log /var/log/nginx/error.log warn;" (or error, the default) outside troubleshooting; for one client, "debug_connection" in the events block logs only that one.`,
		Bad:      "error_log /var/log/nginx/error.log debug;\nevents {}\n",
		Good:     "error_log /var/log/nginx/error.log warn;\nevents {}\n",
		Severity: finding.Info,
		Category: engine.CategoryPerformance,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_core_module error_log, debugging log (debugging_log.xml), events debug_connection"},
	},
	Check: check(checkErrorLogDebug),
	Scope: engine.ScopeServer,
}

func checkErrorLogDebug(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		for i, a := range d.Args {
			if i > 0 && strings.EqualFold(a.Value, "debug") {
				diag := p.DiagArg(d, i, "error_log at the debug level logs every event of every request (with --with-debug) or every info message: a troubleshooting setting; write \"warn\" or \"error\", and debug_connection for one client")
				diag.Fix = &finding.Fix{Description: "log at warn", Edits: []finding.Edit{engine.ReplaceArg(d, i, "warn")}}
				p.Report(diag)
			}
		}
	}, "error_log")
}
