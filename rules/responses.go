package rules

import (
	"net"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/parser"
)

// Rules about how responses reach clients.

var addHeaderContentType = &Rule{
	Doc: Doc{
		ID:    "add-header-content-type",
		Title: "add_header Content-Type adds a second Content-Type",
		Why: `nginx sets Content-Type itself (from types and default_type); add_header does not replace it
but adds another: measured with nginx 1.22.1, "add_header Content-Type text/plain;" answers with
two Content-Type headers. Clients pick one of them as they please (browsers and proxies differ),
and a type chosen by the wrong header is how a file gets rendered or sniffed as something else.`,
		Fix: `Set the type with "default_type text/plain;" in the location (or a "types { }" block for the
files it serves). A proxied response's type is the backend's, which default_type does not change
(measured with nginx 1.22.1): there write "proxy_hide_header Content-Type;" (fastcgi_hide_header,
uwsgi_hide_header... for the other protocols) beside the add_header, with "always" if error
responses should carry it too (without it they then carry no Content-Type).`,
		Bad:      "events {}\nhttp {\n    server {\n        location /feed {\n            add_header Content-Type application/json;\n            return 200 \"{}\";\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /feed {\n            default_type application/json;\n            return 200 \"{}\";\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategoryCorrectness,
		Since:    "0.5.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_headers_module add_header, ngx_http_core_module default_type", "measured with nginx 1.22.1 (docs/security.md)"},
	},
	Check: checkAddHeaderContentType,
}

// hideHeaderOf names, for each directive that passes a request to a
// backend, the directive that drops a header of the backend's response.
var hideHeaderOf = map[string]string{
	protoHTTP: "proxy_hide_header", protoFastCGI: "fastcgi_hide_header", protoUWSGI: "uwsgi_hide_header",
	protoSCGI: "scgi_hide_header", protoGRPC: "grpc_hide_header",
}

func checkAddHeaderContentType(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) || !strings.EqualFold(d.Arg(0), "Content-Type") {
			return
		}
		loc := c.Enclosing(parser.CtxLocation)
		if c.In() != parser.CtxLocation || loc == nil {
			p.ReportArgf(d, 0, "add_header Content-Type sends a second Content-Type beside nginx's own (measured: two headers); set the type with default_type (or types) instead, "+
				"or, where a backend's response is passed, hide the backend's with proxy_hide_header Content-Type (default_type does not change a proxied response's type)")
			return
		}
		// a proxied location: the type is the backend's, which default_type
		// does not change (measured with nginx 1.22.1); the backend's
		// header is dropped with *_hide_header, and add_header then gives
		// the only one
		for _, pass := range passNames {
			hide := hideHeaderOf[pass]
			if hide == "" || len(p.index.find(loc.Block, pass)) == 0 {
				continue
			}
			hidden := p.Effective(c.Blocks, c.Root, hide)
			for _, h := range hidden.Dirs {
				if strings.EqualFold(h.Arg(0), "Content-Type") {
					return // the backend's is dropped: add_header gives the one
				}
			}
			always := strings.EqualFold(d.Arg(len(d.Args)-1), "always")
			diag := p.DiagArg(d, 0, "add_header Content-Type on a response from %s sends a second Content-Type beside the backend's (measured: two headers), "+
				"and default_type does not change a proxied response's type; write \"%s Content-Type;\" beside it, so that the added one is the only one%s",
				pass, hide, map[bool]string{true: "", false: " (add_header without \"always\" sets it on 2xx and 3xx responses only: the others then carry no Content-Type)"}[always])
			// written in the location, where it replaces the inherited
			// ones: only where there are none, or it sets its own
			if always && (hidden.Complete && !hidden.Found() || hidden.Found() && hidden.Level == loc) {
				diag.Fix = &finding.Fix{Description: "hide the backend's Content-Type", Edits: []finding.Edit{insertBefore(d, hide+" Content-Type;")}}
			}
			p.Report(diag)
			return
		}
		diag := p.DiagArg(d, 0, "add_header Content-Type sends a second Content-Type beside nginx's own (measured: two headers); set the type with default_type (or types) instead")
		if len(d.Args) >= 2 && !strings.Contains(d.Arg(1), "$") && len(p.index.find(loc.Block, "default_type")) == 0 {
			diag.Fix = &finding.Fix{Description: "use default_type", Edits: []finding.Edit{replaceStmt(d, "default_type "+d.Args[1].Raw+";")}}
		}
		p.Report(diag)
	}, "add_header")
}

var proxyBufferingOff = &Rule{
	Doc: Doc{
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
		Category: CategoryPerformance,
		Since:    "0.5.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_proxy_module proxy_buffering, X-Accel-Buffering"},
	},
	Check: checkProxyBufferingOff,
}

// streamingPath are location names that say the responses stream.
var streamingPath = lazyre.New(`(?i)(event|stream|sse|live|push|poll|socket|ws\b|notif|subscribe|chat|channel|realtime|hub)`)

func checkProxyBufferingOff(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) || d.Arg(0) != "off" {
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
			if len(p.index.find(loc.Block, "proxy_pass")) == 0 {
				return // set for locations below or a proxy_pass elsewhere: nothing to judge here
			}
		}
		p.ReportArgf(d, 0, "proxy_buffering off makes the backend wait for each client's download: a slow client holds a backend connection (and the worker behind it) to the end; keep it for streaming locations only, or let those responses send \"X-Accel-Buffering: no\"")
	}, "proxy_buffering")
}

var rewriteCycle = &Rule{
	Doc: Doc{
		ID:    "rewrite-cycle",
		Title: "A rewrite that sends every request back to its own location (500)",
		Why: `A rewrite with "last" (or with no flag, when nothing after it ends the request) makes nginx
search the locations again with the new URI. When the pattern matches every URI and the
replacement is the URI itself ($uri, $request_uri, the whole match), the search finds the same
location, which rewrites again: after 10 rounds nginx gives up with "rewrite or internal
redirection cycle" and answers 500. Measured with nginx 1.22.1: "location /c { rewrite ^(.*)$
$1 last; }" answers /c with 500; "rewrite ^ $request_uri;" followed by "return 200" answers
200, since return ends the request first.`,
		Fix:      `Use "break" to stay in the location (the raw-path idiom: "rewrite ^ $request_uri break;" before proxy_pass), or rewrite to a URI another location serves.`,
		Bad:      "events {}\nhttp {\n    server {\n        location /app/ {\n            rewrite ^ $request_uri;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /app/ {\n            rewrite ^ $request_uri break;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: CategoryCorrectness,
		Since:    "0.5.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_rewrite_module rewrite (last, break; the 10-cycle limit)", "measured with nginx 1.22.1"},
	},
	Check: checkRewriteCycle,
}

// matchesAll are patterns that match every URI; sameURI are replacements
// that give the URI back (keyed by whether the pattern's group 1 is the
// whole match).
var matchesAll = map[string]bool{"^": true, "^(.*)$": true, "(.*)": true, "^(.*)": true, ".*": true, "^.*$": true, "^.*": true, "^/": true, "^(/.*)$": true, "^(/.*)": true}

func checkRewriteCycle(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) || c.In() != parser.CtxLocation || len(d.Args) < 2 || !matchesAll[d.Arg(0)] {
			return
		}
		flag := ""
		if len(d.Args) >= 3 {
			flag = d.Arg(2)
		}
		if flag != "" && flag != "last" {
			return
		}
		repl := d.Arg(1)
		whole := strings.Contains(d.Arg(0), "(")
		if repl != "$uri" && repl != "$request_uri" && repl != "$document_uri" && !(whole && repl == "$1") {
			return
		}
		if flag == "" {
			// with no flag the next rewrite-module directives still run:
			// a return, a break or a final rewrite ends the request first
			after := false
			for _, x := range level(c.Enclosing(parser.CtxLocation).Block) {
				if x == d {
					after = true
					continue
				}
				if after && (x.Name == "return" || x.Name == "break" || x.Name == "rewrite" || x.Name == "if") {
					return
				}
			}
		}
		p.ReportArgf(d, 1, "rewrite %s %s%s sends every request back to this location, which rewrites it again: after 10 rounds nginx answers 500 (\"rewrite or internal redirection cycle\"); use \"break\" to stay here", clip(d.Arg(0)), clip(repl), map[bool]string{true: " " + flag, false: ""}[flag != ""])
	}, "rewrite")
}

var proxyPassNoResolver = &Rule{
	Doc: Doc{
		ID:    "proxy-pass-no-resolver",
		Title: "A host name in a variable proxy_pass with no resolver: every request 502",
		Why: `With a variable in its host part, proxy_pass resolves the name at request time, unless it
names an upstream block. That needs a resolver in effect; without one nginx answers every
request with 502 and logs "no resolver defined to resolve NAME" (measured with nginx 1.22.1:
"set $b backend.invalid; proxy_pass http://$b:8080;" answers 502 without looking the name up).
nginx -t does not notice.`,
		Fix:      `Add a resolver (your DNS server, e.g. "resolver 127.0.0.53 valid=30s;"), define the name as an upstream, or write the address.`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            set $b backend.internal;\n            proxy_pass http://$b:8080;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    resolver 127.0.0.53 valid=30s;\n    server {\n        location / {\n            set $b backend.internal;\n            proxy_pass http://$b:8080;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: CategoryCorrectness,
		Since:    "0.5.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_proxy_module proxy_pass (a server name in variables is looked up by the resolver), ngx_http_core_module resolver", "measured with nginx 1.22.1"},
	},
	Check: checkProxyPassNoResolver,
}

func checkProxyPassNoResolver(p *Pass) {
	if p.Tree.HasUnread() {
		return // an include nginxtune did not read may hold the resolver
	}
	upstreams := map[string]bool{}
	p.each(func(d *parser.Directive, c *parser.Context) {
		upstreams[d.Arg(0)] = true
	}, "upstream")
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) {
			return
		}
		part := backendPart(d)
		name, whole := soleVar(strings.TrimPrefix(strings.TrimPrefix(part, "http://"), "https://"))
		host := part
		if !whole {
			// "http://$b:8080": the variable is the host
			rest := strings.TrimPrefix(strings.TrimPrefix(part, "http://"), "https://")
			v, port, _ := strings.Cut(rest, ":")
			if n, ok := soleVar(v); ok && !strings.Contains(port, "$") {
				name, whole = n, true
			}
		}
		if !whole || name == "" {
			return
		}
		sets := p.taintScope().sets[name]
		if len(sets) == 0 || len(p.taintScope().maps[name]) > 0 {
			return
		}
		for _, s := range sets {
			v := s.d.Arg(1)
			if strings.Contains(v, "$") {
				return
			}
			h := strings.TrimPrefix(strings.TrimPrefix(v, "http://"), "https://")
			h, _, _ = strings.Cut(h, "/")
			if i := strings.LastIndex(h, ":"); i > 0 && !strings.HasSuffix(h, "]") {
				h = h[:i]
			}
			if h == "" || net.ParseIP(strings.Trim(h, "[]")) != nil || upstreams[h] || strings.HasPrefix(h, "unix:") || h == "localhost" {
				return
			}
			host = h
		}
		for i := len(c.Blocks) - 1; i >= 0; i-- {
			if len(p.index.find(c.Blocks[i].Block, "resolver")) > 0 {
				return
			}
		}
		p.ReportArgf(d, 0, "%s resolves %s at request time (a variable holds it), and no resolver is in effect: every request gets 502 (\"no resolver defined to resolve %s\"); add a resolver, or define %s as an upstream", d.Name, clip(host), clip(host), clip(host))
	}, protoHTTP, protoGRPC)
}
