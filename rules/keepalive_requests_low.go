package rules

import (
	"strconv"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var keepaliveRequestsLow = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategoryPerformance,
		Since:    "0.2.0",
		Versions: "all (default 1000 since 1.19.10)",
		Sources:  []string{"nginx docs: ngx_http_core_module keepalive_requests, ngx_http_upstream_module keepalive_requests", "docs/measurements.md: TLS handshakes per second"},
	},
	Check: check(checkKeepaliveRequestsLow),
	Scope: engine.ScopeServer,
}

// lowRequests is the keepalive_requests below which connections are
// recycled often enough to cost handshakes: nginx's default before 1.19.10
// was 100, since then 1000.
const lowRequests = 100

func checkKeepaliveRequestsLow(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
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
		diag.Fix = &finding.Fix{Description: "raise keepalive_requests to 1000", Edits: []finding.Edit{engine.ReplaceArg(d, 0, "1000")}}
		p.Report(diag)
	}, "keepalive_requests")
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
