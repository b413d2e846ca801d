package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var keepaliveDisabled = &engine.Rule{
	Doc: engine.Doc{
		ID:    "keepalive-disabled",
		Title: "Client keep-alive is turned off",
		Why: `"keepalive_timeout 0" closes every client connection after one response, so each request
pays a new TCP handshake, and over HTTPS a new TLS handshake: nginx did 3,531 new TLS 1.3
handshakes per second on two cores, against 79,169 requests per second for 1 KB over
kept-alive HTTPS.`,
		Fix:      `Use a timeout of 15-75s (the default is 75s; 20-30s suits busy static servers).`,
		Bad:      "events {}\nhttp {\n    keepalive_timeout 0;\n}\n",
		Good:     "events {}\nhttp {\n    keepalive_timeout 30s;\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module keepalive_timeout", "docs/measurements.md: TLS handshakes per second"},
	},
	Check: check(checkKeepaliveDisabled),
	Scope: engine.ScopeServer,
}

func checkKeepaliveDisabled(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Name == "keepalive_timeout" && c.In() != parser.CtxUpstream && !engine.InStream(c) {
			if c.In() == parser.CtxLocation && probeLocation(c.Blocks[len(c.Blocks)-1]) {
				return // a health check or status page: one request per connection is its nature
			}
			if v := d.Arg(0); v == "0" || v == "0s" || v == "0ms" {
				p.ReportArgf(d, 0, "keepalive_timeout %s closes every client connection after one response; each request pays a new TCP (and TLS) handshake (3,531 new TLS handshakes/s against 79,169 kept requests/s); write \"keepalive_timeout 30s;\"", v)
			}
		}
	}, "keepalive_timeout")
}

var probePath = lazyre.New(`(?i)(health|status|ping|alive|ready|metrics|heartbeat)`)

// probeLocation reports whether a location answers health checks or status
// requests: its path says so, or it only returns a fixed response.
func probeLocation(loc *parser.Directive) bool {
	for _, a := range loc.Args {
		if probePath().MatchString(a.Value) {
			return true
		}
	}
	for _, d := range parser.Level(loc.Block) {
		if d.Name == "stub_status" || d.Name == "empty_gif" {
			return true
		}
	}
	return false
}
