package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var proxyBufferingOff = &engine.Rule{
	Doc: engine.Doc{
		ID:    "proxy-buffering-off",
		Title: "proxy_buffering off where clients download from a backend",
		Why: `With proxy_buffering off nginx passes the response to the client as it reads it, no
faster than the client takes it: the backend's connection, and the application worker behind
it, stay busy for as long as the slowest client needs (a phone on a bad network holds a
backend worker for the whole download). With buffering, nginx reads the response at the
backend's speed and frees it, then feeds the client from its buffers. Off is right for
responses that must arrive as they are produced: server-sent events, long polling, streamed
output. A backend can ask for that per response ("X-Accel-Buffering: no") while buffering
stays on for the rest.`,
		Fix:      `Remove "proxy_buffering off;" and let the streaming responses send "X-Accel-Buffering: no", or keep it only in the location that streams.`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            proxy_buffering off;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /events/ {\n            proxy_buffering off;\n            proxy_pass http://127.0.0.1:8080;\n        }\n        location / {\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: engine.CategoryPerformance,
		Since:    "0.5.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_proxy_module proxy_buffering, X-Accel-Buffering"},
	},
	Check: check(checkProxyBufferingOff),
	Scope: engine.ScopeServer,
}

// streamingPath are location names that say the responses stream.
var streamingPath = lazyre.New(`(?i)(event|stream|sse|live|push|poll|socket|ws\b|notif|subscribe|chat|channel|realtime|hub)`)

func checkProxyBufferingOff(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || d.Arg(0) != "off" {
			return
		}
		// in a location that names a stream, it is what the location is for
		for _, b := range c.Blocks {
			if b.Name == "location" && streamingPath().MatchString(strings.Join(b.ArgValues(), " ")) {
				return
			}
		}
		if c.In() == parser.CtxLocation {
			loc := c.Enclosing(parser.CtxLocation)
			if len(p.Find(loc.Block, "proxy_pass")) == 0 {
				return // set for locations below or a proxy_pass elsewhere: nothing to judge here
			}
		}
		p.ReportArgf(d, 0, "proxy_buffering off makes the backend wait for each client's download: a slow client holds a backend connection (and the worker behind it) to the end; keep it for streaming locations only, or let those responses send \"X-Accel-Buffering: no\"")
	}, "proxy_buffering")
}
