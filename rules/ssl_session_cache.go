package rules

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var sslSessionCache = &engine.Rule{
	Doc: engine.Doc{
		ID:    "ssl-session-cache",
		Title: "A TLS server without a shared session cache",
		Why: `ssl_session_cache is "none" by default. Returning clients still resume without a full
handshake through session tickets, which are on by default and whose keys all workers share;
so the cost of no cache is limited to: every client, when "ssl_session_tickets off;" is set
(then the cache is the only way to resume); clients that do not use tickets; and every
client after a reload, which makes new ticket keys, unless a shared cache holds them (nginx
1.23.2 and later keep the keys in the shared zone). A full handshake is the most expensive
thing a TLS server does: nginx did 3,531 new TLS 1.3 handshakes per second on two cores. A
"builtin" cache is per worker; a shared one is one zone for all workers, about 4,000
sessions per megabyte.`,
		Fix:      `Write "ssl_session_cache shared:SSL:10m;" (about 40,000 sessions) and "ssl_session_timeout 1d;" in the http block.`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    ssl_session_cache shared:SSL:10m;\n    server {\n        listen 443 ssl;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n    }\n}\n",
		Severity: finding.Info,
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all (warning with ssl_session_tickets off)",
		Sources:  []string{"nginx docs: ngx_http_ssl_module ssl_session_cache, ssl_session_tickets", "nginx CHANGES 1.23.2: ticket keys in the shared session cache", "docs/measurements.md: TLS handshakes per second"},
	},
	Check: check(checkSslSessionCache),
}

func checkSslSessionCache(p *Pass) {
	// a zone some server already declares is reused, with its size: the
	// same name declared again with another size fails nginx -t ("the size
	// ... conflicts with already declared size")
	zone := "shared:SSL:10m"
	found := false
	p.Each(func(d *parser.Directive, c *parser.Context) {
		for _, a := range d.Args {
			if !found && strings.HasPrefix(a.Value, "shared:") && strings.Count(a.Value, ":") == 2 && !engine.InStream(c) {
				zone, found = a.Value, true
			}
		}
	}, "ssl_session_cache")
	for _, hs := range p.httpServers() {
		if hs.tls {
			checkSessionCache(p, hs.s, hs.c, zone)
		}
	}
}

// checkSessionCache judges the session cache of one TLS server: zone is
// the shared zone the tree already declares, or a new one.
func checkSessionCache(p *Pass, s *parser.Directive, c *parser.Context, zone string) {
	if rj := p.EffectiveIn(c, s, "ssl_reject_handshake"); rj.Found() && rj.Last().Arg(0) == "on" {
		return // a catch-all that refuses every handshake
	}
	tickets := p.EffectiveIn(c, s, "ssl_session_tickets")
	ticketsOff := tickets.Found() && tickets.Last().Arg(0) == "off"
	sev, cost := finding.Info, "returning clients resume with session tickets (on by default), but a reload changes their keys and clients without tickets pay a full handshake"
	if ticketsOff {
		sev, cost = finding.Warning, fmt.Sprintf("with ssl_session_tickets off (%s) every returning client pays a full handshake", where(tickets.Last()))
	}
	set := p.EffectiveIn(c, s, "ssl_session_cache")
	if !set.Found() {
		if !set.Complete {
			return
		}
		diag := p.DiagSev(sev, s, "this TLS server has no ssl_session_cache; %s; write \"ssl_session_cache %s;\"", cost, engine.Clip(zone))
		if http := c.Enclosing(parser.CtxHTTP); http != nil {
			diag.Fix = &finding.Fix{Description: "add a shared session cache to the http block (" + engine.Clip(zone) + ", the zone the tree already declares where it does)",
				Edits: []finding.Edit{engine.InsertFirst(http, "ssl_session_cache "+zone+";")}}
		}
		p.Report(diag)
		return
	}
	d := set.Last()
	shared, none := false, false
	for _, a := range d.Args {
		if strings.HasPrefix(a.Value, "shared:") {
			shared = true
		}
		if a.Value == "none" || a.Value == "off" {
			none = true
		}
	}
	if !shared && !(none && !ticketsOff) {
		p.ReportSeverityf(sev, d, "ssl_session_cache %s keeps no cache shared by the workers; %s; use \"shared:SSL:10m\"", strings.Join(d.ArgValues(), " "), cost)
	}
}
