package rules

import (
	"fmt"
	"net"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var upstreamKeepalive = &engine.Rule{
	Doc: engine.Doc{
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
"proxy_set_header Connection "";" where you proxy (see proxy-keepalive-headers); where the
Upgrade header is passed (websockets), take the Connection header from
"map $http_upgrade $connection_upgrade { default upgrade; '' ""; }" instead, since an empty one
breaks the upgrade. The upstream's name replaces the address in $proxy_host, which is the Host
header and the TLS name nginx sends by default, and in the URL the default proxy_redirect
rewrites: write them out as they were ("proxy_set_header Host 127.0.0.1:8080;",
"proxy_redirect http://127.0.0.1:8080/ /;", proxy_ssl_name for HTTPS), as --fix does. An
address without a port can name the upstream itself ("upstream app.internal { server
app.internal:80; keepalive 32; }"), and then no proxy_pass changes. HTTPS proxy_passes that
connect with different TLS names (SNI) or settings need an upstream each: a kept connection
keeps the name it was made with. Size the pool to the concurrency you expect per worker; 32 is
nginx's own default.`,
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
		Severity: finding.Warning,
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all (upstream blocks without keepalive: before 1.29.7)",
		Sources: []string{
			"nginx docs: ngx_http_upstream_module keepalive",
			"nginx CHANGES 1.29.7: upstream keepalive enabled by default",
			"docs/measurements.md: reverse proxy measurements",
		},
	},
	Check: check(checkUpstreamKeepalive),
	Slow:  7,
}

// upstreamUse is how the tree's *_pass directives use an upstream block.
type upstreamUse map[string]bool

// keepsConnections reports whether a protocol can reuse backend connections
// at all: SCGI and uwsgi mark the end of a response by closing the
// connection, so nginx never keeps them.
func keepsConnections(proto string) bool { return proto != protoSCGI && proto != protoUWSGI }

// literalLooksLikeUpstream reports whether a literal address without a port
// may name an upstream block nginxtune did not see: one linted alone as a
// snippet, or a tree with an include it did not read (a checkout whose
// conf.d is the server's). Such a name is never turned into an upstream
// server by --fix: deployed, "server app:80" would resolve app, or fail to.
func literalLooksLikeUpstream(p *Pass, host string, c *parser.Context) bool {
	if strings.Contains(host, ":") || net.ParseIP(host) != nil || strings.Contains(host, ".") {
		return false
	}
	if c.Root == nil || c.Root.ContextSource == "root" {
		return p.Tree != nil && (p.Tree.HasUnread() || len(p.Tree.Unreadable) > 0)
	}
	return true
}

func checkUpstreamKeepalive(p *Pass) {
	ups := p.httpUpstreams()
	// one finding per backend and tree, at its first *_pass, the others as
	// related places: a site proxying to one backend from four locations
	// (or four files) has one problem, not four
	literal := map[string]*literalGroup{}
	var literalOrder []string
	variable := map[string][]*parser.Directive{}
	var variableOrder []string
	grouped := map[*parser.Directive]bool{} // a file read again through another include or root
	// per upstream, the directives that pass to it (by name), and why no
	// proxy_pass to it could use a pool once the follow-up fix
	// (proxy-keepalive-headers) has run: each one sends "Connection:
	// close" (set so, or through a map), or needs what no edit can be sure
	// of; adding keepalive to the upstream alone would then change nothing
	// nginx sends, so that fix is not offered. Both in one walk of the
	// *_pass directives, before the upstream blocks are judged.
	uses := map[string]upstreamUse{}
	closing := map[string]string{}
	before := p.Before(vUpstreamKeepalive)
	var cmaps map[string]closeMap
	if before {
		cmaps = p.connectionMaps()
	}
	open := map[string]bool{}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		_, host, _, ok := passTarget(d)
		if !ok {
			return
		}
		if _, isUp := ups[host]; !isUp {
			return
		}
		if uses[host] == nil {
			uses[host] = upstreamUse{}
		}
		uses[host][d.Name] = true
		if !before || d.Name != protoHTTP || open[host] {
			return
		}
		why := ""
		if closes := closesConnection(connectionHeader(p.Effective(c.Blocks, c.Root, "proxy_set_header").Dirs), cmaps); closes != "" {
			if closing[host] != "" {
				return // said of an earlier proxy_pass to it (the text is made once)
			}
			why = "; but every proxy_pass to it sends \"Connection: close\" (" + closes + "), so keepalive alone would change nothing: clear that header too"
		} else if h := p.keepaliveHeaders(d, c, cmaps); len(h.problems) > 0 && !h.complete {
			why = fmt.Sprintf("; but no proxy_pass to it could use the pool after a fix (at %s: %s), so keepalive alone would change nothing", where(d), h.problems[0])
		} else if len(h.unknown) > 0 {
			why = fmt.Sprintf("; whether the proxy_pass at %s could use it depends on %s, which only a file nginxtune did not read may set (an include left unread, or what includes this file; HTTP/1.1 and an empty Connection header are needed), so no fix is offered", where(d), strings.Join(h.unknown, " and "))
		}
		if why == "" {
			open[host] = true
			delete(closing, host)
		} else if closing[host] == "" {
			closing[host] = why
		}
	}, passNames...)
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		if d.Name == "upstream" {
			if d.Block != nil {
				checkUpstreamBlock(p, d, uses[d.Arg(0)], closing[d.Arg(0)])
			}
			return
		}
		scheme, host, rest, ok := passTarget(d)
		if ok && templated(host) {
			return // a template nginxtune sees before it is rendered
		}
		if !ok {
			if d.Name == protoHTTP && !grouped[d] {
				grouped[d] = true
				key := rootKey(c) + "\x00" + d.Arg(0)
				if variable[key] == nil {
					variableOrder = append(variableOrder, key)
				}
				variable[key] = append(variable[key], d)
			}
			return
		}
		if _, isUp := ups[host]; isUp {
			if d.Name == protoFastCGI {
				checkFastCGIKeepConn(p, d, c, ups[host])
			}
			return
		}
		if !keepsConnections(d.Name) {
			return
		}
		if up, _ := portedUpstream(ups, host); up != nil {
			return // an upstream's name with a port: nginx -t fails (directive-args)
		}
		if literalLooksLikeUpstream(p, host, c) {
			p.ReportSeverityf(finding.Info, d, "%s %s: if %q is an upstream block defined in a file nginxtune did not read, this is fine; "+
				"if it is a host name, each request opens a new backend connection (lint the tree from its nginx.conf to know)", d.Name, d.Arg(0), host)
			return
		}
		switch d.Name {
		case protoHTTP:
			if grouped[d] {
				return
			}
			grouped[d] = true
			key := rootKey(c) + "\x00" + scheme + "\x00" + host
			g := literal[key]
			if g == nil {
				g = &literalGroup{host: host}
				literal[key] = g
				literalOrder = append(literalOrder, key)
			}
			g.uses = append(g.uses, literalUse{d, c, scheme, rest})
		case protoFastCGI:
			p.ReportSeverityf(finding.Info, d, "fastcgi_pass to the address %s connects anew for every request; to keep connections, "+
				"pass to an upstream block with \"keepalive N;\" and set \"fastcgi_keep_conn on;\", where workers x N stays at most half "+
				"of php-fpm's pm.max_children: each kept connection holds a php-fpm child even while idle", host)
		default:
			p.ReportArgf(d, 0, "%s to the address %s opens a new backend connection for every request: only servers in an upstream block "+
				"keep idle connections; write \"upstream NAME { server %s; keepalive 32; }\" and pass to NAME", d.Name, host, host)
		}
	}, append([]string{"upstream"}, passNames...)...)
	for _, key := range literalOrder {
		reportLiteralProxy(p, ups, literal[key])
	}
	for _, key := range variableOrder {
		reportVariableProxy(p, variable[key], ups)
	}
}

// rootKey names the tree a directive was met in: its root file.
func rootKey(c *parser.Context) string {
	if c.Root == nil {
		return ""
	}
	return c.Root.Path
}

// literalUse is one proxy_pass to a literal address; literalGroup the
// proxy_passes of one tree to one address.
type literalUse struct {
	d            *parser.Directive
	c            *parser.Context
	scheme, rest string
}

type literalGroup struct {
	host string
	uses []literalUse
}

// files reports how many files the group's proxy_passes are in.
func (g *literalGroup) files() int {
	seen := map[*parser.File]bool{}
	for _, u := range g.uses {
		seen[u.d.File] = true
	}
	return len(seen)
}

// reportLiteralProxy reports the proxy_passes of one tree to a literal
// address, at the first, with a fix that moves them all to one upstream and
// keeps what the backend receives (keepHostEdits). Where the address has
// no port, the upstream takes the address as its name and no proxy_pass
// changes at all.
func reportLiteralProxy(p *Pass, ups map[string]*parser.Directive, g *literalGroup) {
	first := g.uses[0]
	if !p.Wanted(first.d) {
		return // a finding the caller drops (Config.Only): its fix is most of the rule's work
	}
	d, c, scheme, host := first.d, first.c, first.scheme, g.host
	sameName := p.nameAfterAddress(host, scheme)
	name := upstreamNameFor(host)
	if sameName {
		name = host
	}
	server := serverAddress(scheme, host)
	more := ""
	if n := len(g.uses); n > 1 {
		more = fmt.Sprintf(" (%d proxy_passes go there)", n)
	}
	msg := fmt.Sprintf("proxy_pass to the address %s opens a new backend connection for every request: only an upstream block keeps idle ones%s", host, more)
	// the fix for every use, built first: the message says what it writes
	var fix *finding.Fix
	var keepFirst []string
	if sameName {
		fix = upstreamFix(p, d, c, ups, name, server, nil, g.files() > 1)
	} else {
		var edits []finding.Edit
		for i, u := range g.uses {
			keep, stmts, ok := p.keepHostEdits(u.d, u.c, viewOf(u.scheme, host, u.d.Arg(0), u.rest))
			if !ok {
				edits = nil // all of them or none: a half-moved backend is two pools
				break
			}
			if i == 0 {
				keepFirst = stmts
			}
			edits = append(edits, engine.ReplaceArg(u.d, 0, u.scheme+"://"+name+u.rest))
			edits = append(edits, keep...)
		}
		if edits != nil {
			fix = upstreamFix(p, d, c, ups, name, server, edits, g.files() > 1)
		}
	}
	tlsWhy := ""
	if scheme == "https" {
		tlsWhy = p.tlsProfilesDiffer(g)
		if tlsWhy != "" {
			fix = nil
		}
	}
	switch {
	case tlsWhy != "":
		msg += "; an upstream block with keepalive would not do here: " + tlsWhy + ", and a pooled connection keeps the name and settings it was made with, so no fix is offered"
	case !p.wholeConfig(c) && (isLoopback(host) || strings.HasPrefix(host, "unix:")):
		// a local backend in a file read alone: a sample's placeholder as
		// often as a site's backend; the finding stays, its advice is in
		// explain
		msg += " (nginxtune explain upstream-keepalive shows the upstream block to write)"
	case sameName:
		advice := p.keepaliveAdvice(g)
		if advice != "" {
			advice = "; where it is proxied, write" + strings.TrimPrefix(advice, " with")
		}
		msg += fmt.Sprintf("; write \"upstream %s { server %s; keepalive 32; }\": named after the address, every proxy_pass to it stays as written%s", name, server, advice)
	default:
		keep := ""
		if len(keepFirst) > 0 {
			keep = ", keeping what the address gave (" + strings.Join(keepFirst, " ") + ")"
		}
		msg += fmt.Sprintf("; write \"upstream %s { server %s; keepalive 32; }\" and \"proxy_pass %s://%s%s;\"%s%s", name, server, scheme, name, first.rest, keep, p.keepaliveAdvice(g))
	}
	diag := p.DiagArg(d, 0, "%s", msg)
	for _, u := range g.uses[1:] {
		diag.Related = append(diag.Related, engine.RelatedTo(u.d, "another proxy_pass to "+host))
	}
	diag.Fix = fix
	p.Report(diag)
}

// tlsSettings are the directives that decide how nginx makes a TLS
// connection to a backend: a kept connection carries them to the next
// request of any proxy_pass to the same upstream.
var tlsSettings = []string{"proxy_ssl_server_name", "proxy_ssl_name", "proxy_ssl_certificate", "proxy_ssl_certificate_key",
	"proxy_ssl_ciphers", "proxy_ssl_protocols", "proxy_ssl_conf_command", "proxy_ssl_verify", "proxy_ssl_verify_depth",
	"proxy_ssl_trusted_certificate", "proxy_ssl_crl", "proxy_ssl_password_file"}

// tlsProfilesDiffer says why the HTTPS proxy_passes of a group cannot share
// a pool of connections: nginx's keepalive cache hands a connection to any
// request to the same server, whatever TLS name (SNI) and settings it was
// made with, while without a pool each request connects with its own.
// "" when every proxy_pass makes its connections alike.
func (p *Pass) tlsProfilesDiffer(g *literalGroup) string {
	first := ""
	for i, u := range g.uses {
		v := viewOf(u.scheme, g.host, u.d.Arg(0), u.rest)
		vals := map[string]string{}
		for _, name := range tlsSettings {
			s := p.Effective(u.c.Blocks, u.c.Root, name)
			if !s.Found() && !s.Complete {
				return fmt.Sprintf("%s at %s may be set by a file nginxtune did not read", name, where(u.d))
			}
			if s.Found() {
				vals[name] = v.subst(strings.Join(s.Last().ArgValues(), " "))
			}
		}
		// the name is sent (proxy_ssl_server_name) or checked
		// (proxy_ssl_verify), or it makes no difference
		if vals["proxy_ssl_server_name"] == "on" || vals["proxy_ssl_verify"] == "on" {
			name := vals["proxy_ssl_name"]
			if name == "" {
				name = v.subst("$proxy_host")
			}
			if h, _, err := net.SplitHostPort(name); err == nil {
				name = h // nginx uses the name without the port
			}
			if strings.Contains(name, "$") {
				return fmt.Sprintf("the TLS name at %s (proxy_ssl_name %s) changes per request", where(u.d), name)
			}
			vals["proxy_ssl_name"] = name
		} else {
			delete(vals, "proxy_ssl_name")
		}
		var parts []string
		for _, name := range tlsSettings {
			parts = append(parts, vals[name])
		}
		profile := strings.Join(parts, "\x00")
		if i == 0 {
			first = profile
		} else if profile != first {
			return fmt.Sprintf("the proxy_passes at %s and %s make TLS connections with different names or settings", where(g.uses[0].d), where(u.d))
		}
	}
	return ""
}

// keepaliveAdvice is what the proxy_passes of a group need besides the
// upstream before nginx 1.29.7: HTTP/1.1 and an empty Connection header, or,
// where the Upgrade header is passed (websockets), the Connection header
// from a map that is "upgrade" for an upgrade and empty otherwise: an empty
// one there breaks the upgrade, "upgrade" or "close" for every request
// loses the pool.
func (p *Pass) keepaliveAdvice(g *literalGroup) string {
	if !p.Before(vUpstreamKeepalive) {
		return ""
	}
	var ws []string
	for _, u := range g.uses {
		if namedHeader(p.Effective(u.c.Blocks, u.c.Root, "proxy_set_header").Dirs, "Upgrade") != nil {
			ws = append(ws, where(u.d))
		}
	}
	const plain = ` with "proxy_http_version 1.1;" and "proxy_set_header Connection "";"`
	const upgrade = `"proxy_set_header Connection $connection_upgrade;" with "` + connectionUpgradeMap + `" in http (an empty Connection header breaks the websocket upgrade)`
	switch {
	case len(ws) == 0:
		return plain + p.versionNote("before 1.29.7")
	case len(ws) == len(g.uses):
		return ` with "proxy_http_version 1.1;" and ` + upgrade + p.versionNote("before 1.29.7")
	}
	return plain + ", but where the Upgrade header is passed (" + strings.Join(ws, ", ") + ") " + upgrade + p.versionNote("before 1.29.7")
}

// wholeConfig reports whether c was met in a tree read from its main file.
func (p *Pass) wholeConfig(c *parser.Context) bool {
	return c.Root != nil && c.Root.ContextSource == "root"
}

// nameAfterAddress reports whether an upstream block can take the name of
// a literal proxy_pass address, so that every proxy_pass to it stays as
// written and the backend receives what it did ($proxy_host, $proxy_port,
// the TLS name, the default proxy_redirect). nginx matches an upstream
// block's name to a *_pass address without a port only, and refuses the
// configuration ("upstream X may not have port N") when any pass names X
// with a port: so the address has none, and every pass of the tree (read
// whole: an unread include may hold another) that names it does so
// without one and with the same scheme (the upstream's servers are of one
// port); a pass computed from variables with another scheme could reach it
// at run time.
func (p *Pass) nameAfterAddress(host, scheme string) bool {
	if strings.ContainsAny(host, ":[") || templated(host) || p.Tree == nil || p.Tree.HasUnread() || len(p.Tree.Unreadable) > 0 {
		return false
	}
	for _, r := range p.Tree.Roots {
		if r.ContextSource != "root" {
			return false
		}
	}
	u := p.passUses()
	for sch := range u.variable {
		if sch != scheme {
			return false
		}
	}
	if a := u.byName[strings.ToLower(host)]; a != nil {
		if a.other {
			return false
		}
		for sch := range a.schemes {
			if sch != scheme {
				return false
			}
		}
	}
	return true
}

func (p *Pass) passUses() *passUses {
	if p.uses != nil {
		return p.uses
	}
	u := &passUses{variable: map[string]bool{}, byName: map[string]*addressUse{}}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		sch, h, _, literal := passTarget(d)
		if !literal {
			if d.Name == protoHTTP {
				u.variable[sch] = true
			}
			return
		}
		name, _, err := net.SplitHostPort(h)
		if err != nil {
			name = h
		}
		a := u.byName[strings.ToLower(name)]
		if a == nil {
			a = &addressUse{schemes: map[string]bool{}}
			u.byName[strings.ToLower(name)] = a
		}
		if d.Name == protoHTTP && name == h {
			a.schemes[sch] = true
		} else {
			a.other = true
		}
	}, passNames...)
	p.uses = u
	return u
}

// backendView is what a proxy_pass to a literal address gives the backend
// and the client by the address as written: $proxy_host (the Host header
// and the TLS name by default), $proxy_port and the URL the default
// proxy_redirect rewrites in Location headers.
type backendView struct {
	host, port string // $proxy_host, $proxy_port
	sslName    string // the TLS name of $proxy_host (no port); "" for plain HTTP
	url, rest  string // the proxy_pass argument and its URI part
}

func viewOf(scheme, host, url, rest string) backendView {
	v := backendView{host: proxyHostHeader(scheme, host), url: url, rest: rest}
	switch {
	case strings.HasPrefix(host, "unix:"):
	case scheme == "https":
		v.port = "443"
	default:
		v.port = "80"
	}
	if _, port, err := net.SplitHostPort(host); err == nil && !strings.HasPrefix(host, "unix:") {
		v.port = port
	}
	if scheme == "https" {
		v.sslName = v.host
		if h, _, err := net.SplitHostPort(v.host); err == nil {
			v.sslName = h
		}
	}
	return v
}

// proxyVarRe matches the variables whose value is the proxy_pass address.
var proxyVarRe = lazyre.New(`\$(?:\{(proxy_host|proxy_port)\}|(proxy_host|proxy_port)\b)`)

// subst writes the address's variables out as the values they had.
func (v backendView) subst(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return proxyVarRe().ReplaceAllStringFunc(s, func(m string) string {
		if strings.Contains(m, "proxy_host") {
			return v.host
		}
		return v.port
	})
}

// serverAddress is the upstream server line for a literal address: the
// scheme's port written out, since an upstream server defaults to 80.
func serverAddress(scheme, host string) string {
	if strings.HasPrefix(host, "unix:") {
		return host
	}
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	if scheme == "https" {
		return host + ":443"
	}
	return host + ":80"
}

// proxyHostHeader is the Host header nginx sends for a literal proxy_pass
// address ($proxy_host): the host, with the port unless it is the scheme's
// default, and "localhost" for a unix socket.
func proxyHostHeader(scheme, host string) string {
	if strings.HasPrefix(host, "unix:") {
		return "localhost"
	}
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		return host
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}

// checkUpstreamBlock reports an upstream that keeps no idle connections
// (before 1.29.7 an upstream keeps none unless it says keepalive), in the
// terms of the protocols that use it.
func checkUpstreamBlock(p *Pass, d *parser.Directive, use upstreamUse, closing string) {
	if len(engine.FindIn(d.Block, "keepalive")) > 0 || len(use) == 0 {
		return
	}
	if !p.Before(vUpstreamKeepalive) {
		return
	}
	pool := max(32, 2*len(engine.FindIn(d.Block, "server")))
	switch {
	case use[protoHTTP] || use[protoGRPC] || use[protoMemcached]:
		also := ""
		if closing != "" && !use[protoGRPC] && !use[protoMemcached] {
			also = closing
		}
		diag := p.Diag(d, "upstream %q keeps no idle connections: before nginx 1.29.7 an upstream needs "+
			"\"keepalive N;\" (\"keepalive %d;\" is a start; size it to the concurrent requests per worker)%s%s",
			d.Arg(0), pool, p.versionNote("before 1.29.7"), also)
		if !use[protoFastCGI] && also == "" {
			diag.Fix = &finding.Fix{Description: fmt.Sprintf("add keepalive %d; to upstream %s", pool, d.Arg(0)),
				Edits: []finding.Edit{engine.InsertInBlock(d, fmt.Sprintf("keepalive %d;", pool))}}
		}
		p.Report(diag)
	case use[protoFastCGI]:
		p.ReportSeverityf(finding.Info, d, "upstream %q (FastCGI) keeps no idle connections, so each request connects anew; a pool needs "+
			"\"keepalive N;\" here and \"fastcgi_keep_conn on;\" where it is passed to, with workers x N at most half of php-fpm's "+
			"pm.max_children: a kept connection holds a php-fpm child even while idle (nginxtune gen --profile php --fpm-max-children sizes it)%s",
			d.Arg(0), p.versionNote("before 1.29.7"))
	}
}

// checkFastCGIKeepConn reports a FastCGI pass to an upstream whose pool
// cannot work, or can starve php-fpm.
func checkFastCGIKeepConn(p *Pass, d *parser.Directive, c *parser.Context, up *parser.Directive) {
	kc := p.Effective(c.Blocks, c.Root, "fastcgi_keep_conn")
	keepOn := kc.Found() && kc.Last().Arg(0) == "on"
	ka := engine.FindIn(up.Block, "keepalive")
	switch {
	case len(ka) > 0 && !keepOn && kc.Complete:
		p.Reportf(d, "upstream %q keeps idle connections, but without \"fastcgi_keep_conn on;\" php-fpm closes each one after "+
			"the response, so the pool is never used; measured: 14 backend connections for 14 requests; add it here, "+
			"with workers x %s at most half of php-fpm's pm.max_children", up.Arg(0), ka[0].Arg(0))
	case len(ka) == 0 && keepOn && p.AtLeast(vUpstreamKeepalive):
		p.Reportf(d, "with \"fastcgi_keep_conn on;\" nginx %s keeps up to 32 idle connections per worker in upstream %q by default, "+
			"each holding a php-fpm child while idle; with more workers x 32 than pm.max_children (Debian's default is 5), "+
			"requests wait for a child until they time out; set \"keepalive N;\" with workers x N at most half of pm.max_children%s",
			orVersion(p, "1.29.7 and later"), up.Arg(0), p.versionNote("1.29.7 and later"))
	}
}

func orVersion(p *Pass, cond string) string {
	if p.Version.Known() {
		return p.Version.String()
	}
	return cond
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

// upstreamFix writes an upstream block with keepalive for a literal
// proxy_pass address, before the enclosing server block (or at the top of
// the http block when several files use the address), with edits that
// point the proxy_passes at it (none when the block takes the address as
// its name), or only those edits when a previous fix wrote the block.
// Before nginx 1.29.7 the next pass adds the proxy headers
// (proxy-keepalive-headers).
func upstreamFix(p *Pass, d *parser.Directive, c *parser.Context, ups map[string]*parser.Directive, name, server string, edits []finding.Edit, shared bool) *finding.Fix {
	http := c.Enclosing(parser.CtxHTTP)
	if up, exists := ups[name]; exists {
		// only an upstream every user sees: in this file, or at the http
		// level (the main file); one in another site's file would tie this
		// site to that one (disabling it would break this)
		if up.File != d.File && (http == nil || up.File != http.File) || len(edits) == 0 {
			return nil
		}
		return &finding.Fix{Description: "proxy to upstream " + name, Edits: edits}
	}
	// an address one file uses: the upstream goes before its server, so
	// the site stays whole (enabled or disabled with its file); one several
	// files use: at the top of the http block, which every site sees
	at := c.Enclosing("server")
	where := "before the server"
	if shared {
		if http == nil || len(http.Block) == 0 {
			return nil
		}
		at, where = http.Block[0], "at the top of the http block, where every site that uses the address sees it"
	}
	if at == nil {
		return nil
	}
	ls := engine.LineStart(at)
	if ls < 0 {
		return nil
	}
	ind, nl := engine.IndentOf(at), at.File.Newline()
	block := ind + "upstream " + name + " {" + nl +
		ind + "    server " + server + ";" + nl +
		ind + "    keepalive 32;" + nl +
		ind + "}" + nl + nl
	desc := "define upstream " + name + " with keepalive (" + where + ") and proxy to it"
	if len(edits) == 0 {
		desc = "define upstream " + name + " with keepalive (" + where + "), named after the address the proxy_passes name"
	}
	return &finding.Fix{
		Description: desc,
		Edits:       append([]finding.Edit{{File: at.File.Path, Start: ls, End: ls, New: block}}, edits...),
		Key:         "upstream:" + name,
	}
}

// keepHostEdits returns the edits that keep what the backend and the
// client receive when the proxy_pass d moves from the address of v to an
// upstream of another name, and the statements it adds beside d. Each
// value nginx computed from the address is written out as it was: the
// Host header (nginx's default is $proxy_host), every proxy_set_header,
// proxy_ssl_name and proxy_redirect that names $proxy_host or
// $proxy_port, the TLS name (by default $proxy_host) and the default
// proxy_redirect (the proxy_pass URL, rewritten to the location). A value
// set in d's own block is edited where it is, in d's file; one inherited
// from an outer block is written out beside d, and since a
// proxy_set_header or proxy_redirect there replaces every inherited one,
// the others are written out with it. ok is false when that cannot be done
// safely: an enclosing file nginxtune has not seen may set them, the value
// is in a file included into the block, or the inherited ones differ
// between the places d's file is included.
func (p *Pass) keepHostEdits(d *parser.Directive, c *parser.Context, v backendView) (edits []finding.Edit, stmts []string, ok bool) {
	var own *parser.Directive
	if len(c.Blocks) > 0 {
		own = c.Blocks[len(c.Blocks)-1]
	}
	// keep applies to the directives named name in effect: extra are the
	// statements nginx's default gave (a Host header, the default
	// proxy_redirect), repl replaces an argument nginx computed
	keep := func(name string, extra []string, repl func(string) string) bool {
		s := p.Effective(c.Blocks, c.Root, name)
		if !s.Found() && !s.Complete {
			return false // an enclosing file may set it
		}
		changed := false
		for _, x := range s.Dirs {
			for _, a := range x.Args {
				changed = changed || repl(a.Value) != a.Value
			}
		}
		if !changed && len(extra) == 0 {
			return true
		}
		if s.Found() && s.Level == own {
			for _, x := range s.Dirs {
				for i, a := range x.Args {
					if nv := repl(a.Value); nv != a.Value {
						if x.File != d.File {
							return false // a file included into the block: others may include it
						}
						edits = append(edits, engine.ReplaceArg(x, i, nv))
					}
				}
			}
		} else if s.Found() {
			if p.Places(d) > 1 {
				return false // what is inherited differs between the places the file is included
			}
			for _, x := range s.Dirs {
				args := []string{x.Name}
				for _, a := range x.Args {
					if nv := repl(a.Value); nv != a.Value {
						args = append(args, nv)
					} else {
						args = append(args, a.Raw)
					}
				}
				stmts = append(stmts, strings.Join(args, " ")+";")
			}
		}
		stmts = append(stmts, extra...)
		return true
	}
	quoted := func(s string) string {
		if nv := v.subst(s); nv != s {
			return quoteArg(nv)
		}
		return s
	}
	var host []string
	if namedHeader(p.Effective(c.Blocks, c.Root, "proxy_set_header").Dirs, "Host") == nil {
		host = []string{"proxy_set_header Host " + quoteArg(v.host) + ";"}
	}
	if !keep("proxy_set_header", host, quoted) {
		return nil, nil, false
	}
	// the default proxy_redirect replaces the proxy_pass URL (with "/"
	// when it has no URI part) by the location's prefix (or "/")
	pattern, replacement := v.url+"/", "/"
	if v.rest != "" {
		if own == nil || own.Name != "location" || len(own.Args) == 0 {
			return nil, nil, false
		}
		pattern, replacement = v.url, own.Args[len(own.Args)-1].Value
	}
	explicit := "proxy_redirect " + quoteArg(pattern) + " " + quoteArg(replacement) + ";"
	red := p.Effective(c.Blocks, c.Root, "proxy_redirect")
	var extra []string
	if !red.Found() {
		extra = []string{explicit}
	}
	for _, x := range red.Dirs {
		if x.Arg(0) == "default" {
			if red.Level != own || x.File != d.File {
				return nil, nil, false
			}
			edits = append(edits, engine.ReplaceStmt(x, explicit))
		}
	}
	if !keep("proxy_redirect", extra, quoted) {
		return nil, nil, false
	}
	if v.sslName != "" {
		var name []string
		if !p.Effective(c.Blocks, c.Root, "proxy_ssl_name").Found() {
			name = []string{"proxy_ssl_name " + quoteArg(v.sslName) + ";"}
		}
		if !keep("proxy_ssl_name", name, quoted) {
			return nil, nil, false
		}
	}
	if len(stmts) > 0 {
		e := engine.InsertAfter(d, stmts[0])
		sep := d.File.Newline() + engine.IndentOf(d)
		if engine.LineStart(d) < 0 {
			sep = " " // a block on one line stays on it
		}
		for _, st := range stmts[1:] {
			e.New += sep + st
		}
		edits = append(edits, e)
	}
	return edits, stmts, true
}

// reportVariableProxy reports the proxy_passes of a tree with one URL
// whose backend host comes from variables, at the first, the others as
// related places: nginx resolves such an address per request and keeps no
// idle connections for it, unless every value names an upstream block (a
// map onto upstream names).
func reportVariableProxy(p *Pass, ds []*parser.Directive, ups map[string]*parser.Directive) {
	d := ds[0]
	_, hostRest, found := strings.Cut(d.Arg(0), "://")
	if !found {
		return // the whole URL is a variable: nothing to judge it by
	}
	host, _, _ := strings.Cut(hostRest, "/")
	if !strings.Contains(host, "$") {
		return
	}
	maps := p.taintScope().maps
	for _, r := range knowledge.VarRefs(host) {
		ms := maps[r.Name]
		if len(ms) == 0 || !mapsToUpstreams(ms[len(ms)-1], ups) {
			pool := "map the variable onto the names of upstream blocks with keepalive"
			if p.AtLeast(vResolve) {
				pool += ", or (nginx 1.27.3 and later) name the backend in an upstream with \"server NAME resolve;\" and a resolver"
			}
			more := ""
			if len(ds) > 1 {
				more = fmt.Sprintf(" (%d proxy_passes)", len(ds))
			}
			diag := p.DiagSev(finding.Info, d, "proxy_pass %s%s takes its backend from variables: nginx resolves it per request and keeps no idle connections to it; to keep a pool, %s", d.Arg(0), more, pool)
			for _, x := range ds[1:] {
				diag.Related = append(diag.Related, engine.RelatedTo(x, "another proxy_pass "+x.Arg(0)))
			}
			p.Report(diag)
			return
		}
	}
}

// mapsToUpstreams reports whether every value of a map names an upstream.
func mapsToUpstreams(m *parser.Directive, ups map[string]*parser.Directive) bool {
	n := 0
	for _, e := range m.Block {
		switch e.Name {
		case "hostnames", "volatile", "include":
			continue
		}
		v := e.Arg(0)
		if e.Name == "default" || len(e.Args) == 1 {
			if _, ok := ups[v]; !ok {
				return false
			}
			n++
		}
	}
	return n > 0
}
