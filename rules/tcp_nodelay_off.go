package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var tcpNodelayOff = &engine.Rule{
	Doc: engine.Doc{
		ID:    "tcp-nodelay-off",
		Title: "tcp_nodelay off on kept-alive connections",
		Why: `tcp_nodelay (on by default) sends the last small packet of a response at once. Off, the
kernel holds it back (Nagle's algorithm) until the client acknowledges the previous one, and
clients delay their acknowledgements: responses on kept-alive, TLS and websocket connections
can stall for up to about 40 ms (Linux) or 200 ms (other systems) each. With sendfile and
tcp_nopush, nginx already sends full packets; tcp_nodelay on costs nothing there.`,
		Fix:      `Remove "tcp_nodelay off;" (the default is on).`,
		Bad:      "events {}\nhttp {\n    tcp_nodelay off;\n}\n",
		Good:     "events {}\nhttp {\n    tcp_nodelay on;\n}\n",
		Severity: finding.Info,
		Category: engine.CategoryPerformance,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module tcp_nodelay", "RFC 1122 4.2.3.2 (delayed acknowledgements), RFC 896 (Nagle)"},
	},
	Check: check(checkTcpNodelayOff),
	Scope: engine.ScopeServer,
}

func checkTcpNodelayOff(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) != "off" || engine.InStream(c) {
			return
		}
		diag := p.DiagArg(d, 0, "tcp_nodelay off lets the kernel hold back the last packet of each response on kept-alive, TLS and websocket connections (up to about 40 ms on Linux); remove it (the default is on)")
		diag.Fix = &finding.Fix{Description: "turn tcp_nodelay on", Edits: []finding.Edit{engine.ReplaceArg(d, 0, "on")}}
		p.Report(diag)
	}, "tcp_nodelay")
}
