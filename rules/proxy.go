package rules

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/parser"
)

// proxyTarget splits a proxy_pass URL into scheme, host[:port] and the rest.
// ok is false when the address is computed at run time from variables.
func proxyTarget(url string) (scheme, host, rest string, ok bool) {
	scheme, hostRest, found := strings.Cut(url, "://")
	if !found {
		return "", "", "", false
	}
	if strings.HasPrefix(hostRest, "unix:") {
		// unix:/path/to.sock:/uri
		path, uri, _ := strings.Cut(strings.TrimPrefix(hostRest, "unix:"), ":")
		return scheme, "unix:" + path, uri, !strings.Contains(path, "$")
	}
	host, rest, _ = strings.Cut(hostRest, "/")
	if rest != "" || strings.HasSuffix(hostRest, "/") {
		rest = "/" + rest
	}
	return scheme, host, rest, !strings.Contains(host, "$")
}

// httpUpstreams returns the upstream blocks of the http context by name.
func (p *Pass) httpUpstreams() map[string]*parser.Directive {
	ups := map[string]*parser.Directive{}
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Block != nil && !inStream(c) {
			ups[d.Arg(0)] = d
		}
	}, "upstream")
	return ups
}

var upstreamKeepalive = &Rule{
	Doc: Doc{
		ID:    "upstream-keepalive",
		Title: "Backend connections are not reused",
		Why: `nginx reuses idle connections to a backend only for the servers of an upstream block that
keeps them. "proxy_pass http://127.0.0.1:8080" names no upstream block, so every request
opens (and then closes) a new TCP connection to the backend. Under load the proxy's
ephemeral ports end up in TIME-WAIT and connect() fails: a published 90-second run measured
627 requests/s with 44,005 errors, against 22,153 requests/s and no errors for the same
backend in an upstream block. On our own two-core machine the upstream with keepalive
served 2.02 times the requests at less than half the CPU per request.
Before nginx 1.29.7 an upstream block keeps no idle connections either unless it says
"keepalive N;"; from 1.29.7 explicit upstream blocks keep 32 per worker by default, but a
literal address in proxy_pass still gets none.`,
		Fix: `Put the backend in an upstream block and proxy to its name. Before nginx 1.29.7 also set
"keepalive" in the upstream, and "proxy_http_version 1.1;" and
"proxy_set_header Connection "";" where you proxy (see proxy-keepalive-headers).
Size the pool to the concurrency you expect per worker; 32 is nginx's own default.`,
		Bad: `events {}
http {
    server {
        listen 80;
        location / {
            proxy_pass http://127.0.0.1:8080;
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
        location / {
            proxy_pass http://app;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`,
		Severity: Warning,
		Since:    "0.1.0",
		Versions: "all (upstream blocks without keepalive: before 1.29.7)",
		Sources: []string{
			"nginx docs: ngx_http_upstream_module keepalive",
			"nginx CHANGES 1.29.7: upstream keepalive enabled by default",
			"docs/mission.md: reverse proxy measurements",
		},
	},
	Check: checkUpstreamKeepalive,
}

func checkUpstreamKeepalive(p *Pass) {
	ups := p.httpUpstreams()
	p.each(func(d *parser.Directive, c *parser.Context) {
		switch {
		case d.Name == "proxy_pass" && !inStream(c):
			scheme, host, rest, ok := proxyTarget(d.Arg(0))
			if !ok {
				return
			}
			if _, isUp := ups[host]; isUp {
				return
			}
			name := upstreamNameFor(host)
			headers := ""
			if p.Before(vUpstreamKeepalive) {
				headers = " with \"proxy_http_version 1.1;\" and \"proxy_set_header Connection \"\";\"" + p.versionNote("before 1.29.7")
			}
			diag := p.ReportArg(d, 0, "proxy_pass to the address %s opens a new backend connection for every request: "+
				"only servers in an upstream block keep idle connections (measured: 627 rps with 44,005 errors "+
				"against 22,153 rps with an upstream block); write \"upstream %s { server %s; keepalive 32; }\" "+
				"and \"proxy_pass %s://%s%s;\"%s", host, name, host, scheme, name, rest, headers)
			diag.Fix = upstreamFix(d, c, ups, name, host, scheme+"://"+name+rest)
			return
		case d.Name == "upstream" && d.Block != nil && !inStream(c) && p.Before(vUpstreamKeepalive):
			if len(findIn(d.Block, "keepalive")) > 0 {
				return
			}
			pool := max(32, 2*len(findIn(d.Block, "server")))
			diag := p.Report(d, "upstream %q keeps no idle connections: before nginx 1.29.7 an upstream needs "+
				"\"keepalive N;\" (\"keepalive %d;\" is a start; size it to the concurrent requests per worker)%s",
				d.Arg(0), pool, p.versionNote("before 1.29.7"))
			diag.Fix = &Fix{Description: fmt.Sprintf("add keepalive %d; to upstream %s", pool, d.Arg(0)),
				Edits: []Edit{insertInBlock(d, fmt.Sprintf("keepalive %d;", pool))}}
		}
	}, "proxy_pass", "upstream")
}

var proxyKeepaliveHeaders = &Rule{
	Doc: Doc{
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
For websockets, map an empty Upgrade header to "" rather than "close".`,
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
		Severity: Warning,
		Since:    "0.1.0",
		Versions: "before 1.29.7",
		Sources: []string{
			"nginx docs: ngx_http_upstream_module keepalive (example for versions prior to 1.29.7)",
			"nginx docs: ngx_http_proxy_module proxy_set_header (inheritance)",
			"docs/mission.md: keepalive without the two proxy headers, 0.97x",
		},
	},
	Check: checkProxyKeepaliveHeaders,
}

func checkProxyKeepaliveHeaders(p *Pass) {
	if !p.Before(vUpstreamKeepalive) {
		return
	}
	ups := p.httpUpstreams()
	maps := p.connectionMaps()
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "proxy_pass" || inStream(c) {
			return
		}
		_, host, _, ok := proxyTarget(d.Arg(0))
		up, isUp := ups[host]
		if !ok || !isUp || len(findIn(up.Block, "keepalive")) == 0 {
			return
		}
		note := p.versionNote("before 1.29.7")
		var problems []string
		var edits []Edit
		var before []string // statements to add just above proxy_pass
		fixed := 0          // problems the edits resolve
		pv := p.Effective(c.Blocks, c.Root, "proxy_http_version")
		switch {
		case !pv.Found() && pv.Complete:
			problems = append(problems, "proxy_http_version is 1.0 by default")
			before = append(before, "proxy_http_version 1.1;")
			fixed++
		case pv.Found() && pv.Last().Arg(0) != "1.1" && pv.Last().Arg(0) != "2":
			problems = append(problems, fmt.Sprintf("proxy_http_version %s at %s", pv.Last().Arg(0), where(pv.Last())))
		}
		hdrs := p.Effective(c.Blocks, c.Root, "proxy_set_header")
		conn := connectionHeader(hdrs.Dirs)
		switch {
		case conn == nil && hdrs.Found():
			msg := "no proxy_set_header Connection where it is proxied"
			// Was Connection cleared further out and dropped by the inner set?
			if outer := p.outerConnection(c.Blocks, c.Root, hdrs.Level); outer != nil {
				msg = fmt.Sprintf("the proxy_set_header at %s replaces all inherited ones, including %s",
					where(hdrs.Dirs[0]), strings.TrimSpace(outer.Text()))
			}
			problems = append(problems, msg)
			edits = append(edits, insertAfter(hdrs.Last(), `proxy_set_header Connection "";`))
			fixed++
		case conn == nil && hdrs.Complete:
			problems = append(problems, "nginx sends \"Connection: close\" by default")
			before = append(before, `proxy_set_header Connection "";`)
			fixed++
		case conn != nil && strings.EqualFold(conn.Arg(1), "close"):
			problems = append(problems, fmt.Sprintf("Connection is set to close at %s", where(conn)))
		case conn != nil && strings.HasPrefix(conn.Arg(1), "$"):
			if m, ok := maps[conn.Arg(1)]; ok {
				problems = append(problems, fmt.Sprintf("%s is \"close\" for requests without an Upgrade header (map at %s); map '' to \"\" instead",
					conn.Arg(1), where(m)))
			}
		}
		if len(problems) == 0 {
			return
		}
		if len(before) > 0 {
			e := insertBefore(d, before[0])
			for _, stmt := range before[1:] {
				e.New += indentOf(d) + stmt + newline(d.File)
			}
			edits = append(edits, e)
		}
		diag := p.Report(d, "upstream %q keeps idle connections, but this proxy_pass cannot use them: %s%s",
			host, strings.Join(problems, "; "), note)
		if fixed == len(problems) {
			diag.Fix = &Fix{Description: "set proxy_http_version 1.1 and clear the Connection header", Edits: edits}
		}
	}, "proxy_pass")
}

// upstreamNameFor derives an upstream name from a backend address.
func upstreamNameFor(host string) string {
	var b strings.Builder
	b.WriteString("backend")
	sep := true
	for _, r := range strings.TrimPrefix(host, "unix:") {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			if sep {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			sep = false
		} else {
			sep = true
		}
	}
	return b.String()
}

// upstreamFix moves a literal proxy_pass address into an upstream block
// with keepalive, written before the enclosing server block, or points the
// proxy_pass at the block a previous fix wrote. Before nginx 1.29.7 the
// next pass adds the proxy headers (proxy-keepalive-headers).
func upstreamFix(d *parser.Directive, c *parser.Context, ups map[string]*parser.Directive, name, host, url string) *Fix {
	arg := replaceArg(d, 0, url)
	if _, exists := ups[name]; exists {
		return &Fix{Description: "proxy to upstream " + name, Edits: []Edit{arg}}
	}
	server := c.Enclosing("server")
	if server == nil {
		return nil
	}
	ls := lineStart(server)
	if ls < 0 {
		return nil
	}
	ind, nl := indentOf(server), newline(server.File)
	block := ind + "upstream " + name + " {" + nl +
		ind + "    server " + host + ";" + nl +
		ind + "    keepalive 32;" + nl +
		ind + "}" + nl + nl
	return &Fix{
		Description: "define upstream " + name + " with keepalive and proxy to it",
		Edits:       []Edit{{File: server.File.Path, Start: ls, End: ls, New: block}, arg},
		Key:         "upstream:" + name,
	}
}

// where names a directive's position for messages.
func where(d *parser.Directive) string {
	return fmt.Sprintf("%s:%d", shortPath(d.File.Path), d.Line)
}

func shortPath(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

func connectionHeader(dirs []*parser.Directive) *parser.Directive {
	var found *parser.Directive
	for _, d := range dirs {
		if strings.EqualFold(d.Arg(0), "Connection") {
			found = d
		}
	}
	return found
}

// outerConnection finds a Connection header set at a level outside the one
// whose proxy_set_header directives are in effect.
func (p *Pass) outerConnection(blocks []*parser.Directive, root *parser.File, inner *parser.Directive) *parser.Directive {
	idx := -1
	for i, b := range blocks {
		if b == inner {
			idx = i
		}
	}
	if idx < 0 {
		return nil
	}
	outer := p.Effective(blocks[:idx], root, "proxy_set_header")
	return connectionHeader(outer.Dirs)
}

// connectionMaps finds map blocks whose result is "close" for an empty
// source value or by default: the websocket recipe that ends keepalive.
func (p *Pass) connectionMaps() map[string]*parser.Directive {
	out := map[string]*parser.Directive{}
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Block == nil || len(d.Args) < 2 {
			return
		}
		for _, e := range d.Block {
			if (e.Name == "" || e.Name == "default") && strings.EqualFold(e.Arg(0), "close") {
				out[d.Arg(1)] = d
			}
		}
	}, "map")
	return out
}
