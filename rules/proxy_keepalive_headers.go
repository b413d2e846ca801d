package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var proxyKeepaliveHeaders = &engine.Rule{
	Doc: engine.Doc{
		ID:    "proxy-keepalive-headers",
		Title: "A keepalive upstream is proxied to with HTTP/1.0 or Connection: close",
		Why: `Before nginx 1.29.7 proxy_pass speaks HTTP/1.0 and sends "Connection: close" unless told
otherwise, so an upstream's keepalive pool is never used: on our two-core machine an upstream
with "keepalive 32" but without the two settings served 0.97 times the requests of no upstream
at all, against 2.02 times with them. proxy_set_header is replaced, not merged: one
proxy_set_header in a location drops every proxy_set_header inherited from server and http,
including a cleared Connection header. A websocket map that yields "close" for ordinary
requests closes the backend connection after each of them too.`,
		Fix: `Where you proxy (or in the server or http block, when no inner block sets its own
proxy_set_header), write "proxy_http_version 1.1;" and "proxy_set_header Connection "";".
For websockets (the Upgrade header passed), an empty Connection header breaks the upgrade: write
"map $http_upgrade $connection_upgrade { default upgrade; '' ""; }" in http and
"proxy_set_header Connection $connection_upgrade;", and map an empty Upgrade header to "" rather
than "close".`,
		Bad: `events {}
http {
    upstream app {
        server 127.0.0.1:8080;
        keepalive 32;
    }
    server {
        listen 80;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        location / {
            proxy_set_header Host $host;
            proxy_pass http://app;
        }
    }
}
`,
		Good: `events {}
http {
    upstream app {
        server 127.0.0.1:8080;
        keepalive 32;
    }
    server {
        listen 80;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $host;
        location / {
            proxy_pass http://app;
        }
    }
}
`,
		Severity: finding.Warning,
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "before 1.29.7",
		Sources: []string{
			"nginx docs: ngx_http_upstream_module keepalive (example for versions prior to 1.29.7)",
			"nginx docs: ngx_http_proxy_module proxy_set_header (inheritance)",
			"docs/measurements.md: keepalive without the two proxy headers, 0.97x",
		},
	},
	Check: check(checkProxyKeepaliveHeaders),
}

func checkProxyKeepaliveHeaders(p *Pass) {
	if !p.Before(vUpstreamKeepalive) {
		return
	}
	ups := p.httpUpstreams()
	maps := p.connectionMaps()
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "proxy_pass" || engine.InStream(c) {
			return
		}
		_, host, _, ok := proxyTarget(d.Arg(0))
		up, isUp := ups[host]
		if !ok || !isUp || len(engine.FindIn(up.Block, "keepalive")) == 0 {
			return
		}
		h := p.keepaliveHeaders(d, c, maps)
		if len(h.problems) == 0 {
			return
		}
		diag := p.Diag(d, "upstream %q keeps idle connections that this proxy_pass cannot use; %s%s",
			host, strings.Join(h.problems, "; "), p.versionNote("before 1.29.7"))
		if h.complete {
			desc := "set proxy_http_version 1.1 and clear the Connection header"
			if h.websocket {
				desc = "set proxy_http_version 1.1 and the Connection header of the websocket map"
			}
			diag.Fix = &finding.Fix{Description: desc, Edits: h.edits, Key: h.key}
		}
		p.Report(diag)
	}, "proxy_pass")
}
