package rules

import (
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
)

// Rules about how long client and backend connections live, and what nginx
// does per request besides serving it.

// lowRequests is the keepalive_requests below which connections are
// recycled often enough to cost handshakes: nginx's default before 1.19.10
// was 100, since then 1000.
const lowRequests = 100

var keepaliveRequestsLow = &Rule{
	Doc: Doc{
		ID:    "keepalive-requests-low",
		Title: "keepalive_requests closes connections after a few requests",
		Why: `After keepalive_requests requests nginx closes a kept-alive connection, and the client
(or, in an upstream block, nginx itself) connects again: a new TCP handshake, over HTTPS a new
TLS handshake (nginx did 3,531 new TLS 1.3 handshakes per second on two cores against 79,169
requests per second on kept connections). A page with many assets, or a busy backend pool,
reconnects every few requests. The default has been 1000 since nginx 1.19.10 (100 before): a
configuration that still writes 100, the old default, keeps the old cost.`,
		Fix:      `Remove the directive (the default 1000 suits most sites), or set 1000 or more.`,
		Bad:      "events {}\nhttp {\n    keepalive_requests 10;\n}\n",
		Good:     "events {}\nhttp {\n    keepalive_requests 1000;\n}\n",
		Severity: finding.Info,
		Category: CategoryPerformance,
		Since:    "0.2.0",
		Versions: "all (default 1000 since 1.19.10)",
		Sources:  []string{"nginx docs: ngx_http_core_module keepalive_requests, ngx_http_upstream_module keepalive_requests", "docs/measurements.md: TLS handshakes per second"},
	},
	Check: checkKeepaliveRequestsLow,
}

func checkKeepaliveRequestsLow(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) {
			return
		}
		n, err := strconv.Atoi(d.Arg(0))
		if err != nil || n > lowRequests || n <= 0 {
			return
		}
		who := "clients reconnect, over HTTPS with a new TLS handshake"
		if c.In() == parser.CtxUpstream {
			who = "nginx reconnects to the backend"
		}
		diag := p.DiagArg(d, 0, "keepalive_requests %d closes each connection after %d request%s: %s each time; the default is 1000 (since nginx 1.19.10)", n, n, pluralS(n), who)
		diag.Fix = &finding.Fix{Description: "raise keepalive_requests to 1000", Edits: []finding.Edit{replaceArg(d, 0, "1000")}}
		p.Report(diag)
	}, "keepalive_requests")
}

var tcpNodelayOff = &Rule{
	Doc: Doc{
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
		Category: CategoryPerformance,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module tcp_nodelay", "RFC 1122 4.2.3.2 (delayed acknowledgements), RFC 896 (Nagle)"},
	},
	Check: checkTcpNodelayOff,
}

func checkTcpNodelayOff(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) != "off" || inStream(c) {
			return
		}
		diag := p.DiagArg(d, 0, "tcp_nodelay off lets the kernel hold back the last packet of each response on kept-alive, TLS and websocket connections (up to about 40 ms on Linux); remove it (the default is on)")
		diag.Fix = &finding.Fix{Description: "turn tcp_nodelay on", Edits: []finding.Edit{replaceArg(d, 0, "on")}}
		p.Report(diag)
	}, "tcp_nodelay")
}

var errorLogDebug = &Rule{
	Doc: Doc{
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
		Category: CategoryPerformance,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_core_module error_log, debugging log (debugging_log.xml), events debug_connection"},
	},
	Check: checkErrorLogDebug,
}

func checkErrorLogDebug(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		for i, a := range d.Args {
			if i > 0 && strings.EqualFold(a.Value, "debug") {
				diag := p.DiagArg(d, i, "error_log at the debug level logs every event of every request (with --with-debug) or every info message: a troubleshooting setting; write \"warn\" or \"error\", and debug_connection for one client")
				diag.Fix = &finding.Fix{Description: "log at warn", Edits: []finding.Edit{replaceArg(d, i, "warn")}}
				p.Report(diag)
			}
		}
	}, "error_log")
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
