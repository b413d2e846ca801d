package rules

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var accessLogUnbuffered = &engine.Rule{
	Doc: engine.Doc{
		ID:    "access-log-unbuffered",
		Title: "An access log written to a file without a buffer",
		Why: `Without buffer=, nginx writes one log line per request with its own write() call. With
"buffer=64k flush=5s" the writes drop from one per request to about 0.002, as cheap as
"access_log off", and the log is kept.`,
		Fix:      `Add "buffer=64k flush=5s" after the log format (write the format, e.g. combined, when it is not given).`,
		Bad:      "events {}\nhttp {\n    access_log /var/log/nginx/access.log;\n}\n",
		Good:     "events {}\nhttp {\n    access_log /var/log/nginx/access.log combined buffer=64k flush=5s;\n}\n",
		Severity: finding.Info,
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_log_module access_log", "docs/measurements.md: buffered access log"},
	},
	Check: check(checkAccessLogUnbuffered),
	Scope: engine.ScopeServer,
}

func checkAccessLogUnbuffered(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "access_log" || engine.InStream(c) || len(d.Args) == 0 {
			return
		}
		path := d.Arg(0)
		if path == "off" || strings.HasPrefix(path, "syslog:") || strings.Contains(path, "$") {
			return
		}
		for _, a := range d.Args[1:] {
			if strings.HasPrefix(a.Value, "buffer=") {
				return
			}
		}
		add := "buffer=64k flush=5s"
		if len(d.Args) == 1 {
			add = "combined " + add
		}
		diag := p.Diag(d, "access_log %s writes each request's line with its own write(); add \"buffer=64k flush=5s\" to batch them", path)
		diag.Fix = &finding.Fix{Description: fmt.Sprintf("add %s", add), Edits: []finding.Edit{engine.AppendArgs(d, add)}}
		p.Report(diag)
	}, "access_log")
}
