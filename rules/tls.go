package rules

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
)

func hasArg(d *parser.Directive, v string) int {
	for i, a := range d.Args {
		if a.Value == v {
			return i
		}
	}
	return -1
}

// isTLSServer reports whether a server block terminates TLS.
func isTLSServer(s *parser.Directive) bool {
	for _, d := range level(s.Block) {
		switch {
		case d.Name == "listen" && (hasArg(d, "ssl") >= 0 || hasArg(d, "quic") >= 0):
			return true
		case d.Name == "ssl" && d.Arg(0) == "on":
			return true
		}
	}
	return false
}

var sslSessionCache = &Rule{
	Doc: Doc{
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
		Category: CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all (warning with ssl_session_tickets off)",
		Sources:  []string{"nginx docs: ngx_http_ssl_module ssl_session_cache, ssl_session_tickets", "nginx CHANGES 1.23.2: ticket keys in the shared session cache", "docs/measurements.md: TLS handshakes per second"},
	},
	Check: checkSslSessionCache,
}

func checkSslSessionCache(p *Pass) {
	// a zone some server already declares is reused, with its size: the
	// same name declared again with another size fails nginx -t ("the size
	// ... conflicts with already declared size")
	zone := "shared:SSL:10m"
	found := false
	p.each(func(d *parser.Directive, c *parser.Context) {
		for _, a := range d.Args {
			if !found && strings.HasPrefix(a.Value, "shared:") && strings.Count(a.Value, ":") == 2 && !inStream(c) {
				zone, found = a.Value, true
			}
		}
	}, "ssl_session_cache")
	p.httpServers(func(s *parser.Directive, c *parser.Context) {
		if !isTLSServer(s) {
			return
		}
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
			diag := p.DiagSev(sev, s, "this TLS server has no ssl_session_cache; %s; write \"ssl_session_cache %s;\"", cost, clip(zone))
			if http := c.Enclosing(parser.CtxHTTP); http != nil {
				diag.Fix = &finding.Fix{Description: "add a shared session cache to the http block (" + clip(zone) + ", the zone the tree already declares where it does)",
					Edits: []finding.Edit{insertFirst(http, "ssl_session_cache "+zone+";")}}
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
	})
}

var sslDirectiveRemoved = &Rule{
	Doc: Doc{
		ID:    "ssl-directive-removed",
		Title: `The "ssl on|off" directive`,
		Why: `"ssl on;" was deprecated in nginx 1.15.0 and removed in 1.25.1: nginx -t fails with
unknown directive "ssl" from then on. TLS is a property of the listening socket:
"listen 443 ssl;".`,
		Fix:      `Delete "ssl on;" and add "ssl" to the listen directives of the server.`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 443;\n        ssl on;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n        ssl_session_cache shared:SSL:10m;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n        ssl_session_cache shared:SSL:10m;\n    }\n}\n",
		Severity: finding.Error,
		Category: CategoryCorrectness,
		Since:    "0.1.0",
		Versions: "deprecated since 1.15.0, removed in 1.25.1",
		Sources:  []string{"nginx CHANGES 1.25.1: the ssl directive was removed", "nginx docs: ngx_http_ssl_module ssl"},
	},
	Check: checkSslDirectiveRemoved,
}

func checkSslDirectiveRemoved(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
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
		fix := &finding.Fix{Description: `remove "ssl ` + d.Arg(0) + `;"`, Edits: []finding.Edit{removeStatement(d)}}
		if d.Arg(0) == "on" {
			listens := 0
			if len(c.Blocks) > 0 {
				for _, l := range findIn(c.Blocks[len(c.Blocks)-1].Block, "listen") {
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

var listenHTTP2Deprecated = &Rule{
	Doc: Doc{
		ID:    "listen-http2-deprecated",
		Title: `"listen ... http2" on nginx 1.25.1 or later`,
		Why: `nginx 1.25.1 made HTTP/2 a per-server switch, "http2 on;", and deprecated the http2
parameter of listen: nginx warns about it on every start and reload, and a parameter set on
a shared address:port applies to every server on it whatever each one says.`,
		Fix:      `Remove http2 from the listen directive and write "http2 on;" in the server. On nginx before 1.25.1 keep "listen ... http2": "http2 on" does not exist there.`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 443 ssl http2;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n        ssl_session_cache shared:SSL:10m;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        http2 on;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n        ssl_session_cache shared:SSL:10m;\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategoryCorrectness,
		Since:    "0.1.0",
		Versions: "1.25.1 and later",
		Sources:  []string{"nginx CHANGES 1.25.1: the http2 directive; listen ... http2 deprecated", "nginx docs: ngx_http_v2_module http2"},
	},
	Check: checkListenHTTP2Deprecated,
}

func checkListenHTTP2Deprecated(p *Pass) {
	if !p.AtLeast(vHTTP2Directive) {
		return
	}
	p.httpServers(func(s *parser.Directive, c *parser.Context) {
		hasDirective := len(findIn(s.Block, "http2")) > 0
		first := true
		for _, l := range findIn(s.Block, "listen") {
			i := hasArg(l, "http2")
			if i < 0 {
				continue
			}
			diag := p.DiagArg(l, i, `"listen ... http2" is deprecated since nginx 1.25.1; remove http2 here and write "http2 on;" in the server%s`,
				p.versionNote("1.25.1 and later"))
			if !p.Version.Known() {
				// information, with no fix: nothing says which side of 1.25.1
				// the tree is for, and "http2 on;" breaks nginx before it
				diag.Severity = finding.Info
				p.Report(diag)
				continue
			}
			edits := []finding.Edit{removeArg(l, i)}
			if first && !hasDirective {
				edits = append(edits, insertAfter(l, "http2 on;"))
			}
			first = false
			diag.Fix = &finding.Fix{Description: "move http2 from listen to http2 on;", Edits: edits}
			p.Report(diag)
		}
	})
}
