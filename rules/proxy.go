package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Helpers of the rules about proxying and upstream connections
// (upstream-keepalive, proxy-keepalive-headers): what a *_pass names, the
// headers a kept-alive connection needs, the maps that close it.

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
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Block != nil && !engine.InStream(c) {
			ups[d.Arg(0)] = d
		}
	}, "upstream")
	return ups
}

// Protocols nginx passes requests to, and what each needs to keep backend
// connections (docs/cost-model.md, "Backend keepalive per protocol").
const (
	protoHTTP      = "proxy_pass"
	protoFastCGI   = "fastcgi_pass"
	protoUWSGI     = "uwsgi_pass"
	protoSCGI      = "scgi_pass"
	protoGRPC      = "grpc_pass"
	protoMemcached = "memcached_pass"
)

// passNames are the directives that send a request to a backend.
var passNames = knowledge.PassHandlers()

// passTarget returns the backend a *_pass directive names: an upstream
// name or a literal address (host[:port] or unix:/path), with the URL's
// scheme and the rest. ok is false when variables compute it per request.
func passTarget(d *parser.Directive) (scheme, host, rest string, ok bool) {
	arg := d.Arg(0)
	if d.Name == protoHTTP {
		return proxyTarget(arg)
	}
	if sch, after, found := strings.Cut(arg, "://"); found {
		scheme, arg = sch, after
	}
	if strings.HasPrefix(arg, "unix:") {
		return scheme, arg, "", !strings.Contains(arg, "$")
	}
	return scheme, arg, "", arg != "" && !strings.Contains(arg, "$")
}

// directive name -> used

// connectionUpgradeMap is the websocket map that keeps backend connections:
// "upgrade" when the client asks for one, no Connection header otherwise.
const connectionUpgradeMap = `map $http_upgrade $connection_upgrade { default upgrade; '' ""; }`

// passUses is how the tree's http *_pass directives use addresses, for
// nameAfterAddress: collected once a pass, where each literal address
// group walked every pass again (4,000 port-less addresses: 0.8 s).
type passUses struct {
	variable map[string]bool        // schemes of proxy_passes with variables
	byName   map[string]*addressUse // literal passes, by lower-case host name
}

// addressUse is how the literal passes to one host name use it.
type addressUse struct {
	schemes map[string]bool // schemes of the proxy_passes that name it without a port
	other   bool            // one names it with a port, or is another module's pass
}

// keepaliveNeeds is what a proxy_pass to an upstream with keepalive lacks
// before nginx 1.29.7 to use the pool: HTTP/1.1 and no "Connection: close".
type keepaliveNeeds struct {
	problems []string
	edits    []finding.Edit
	// complete is true when the edits give both: a fix that left either
	// to chance (an include nginxtune did not read) would leave a pool
	// that is never used, and a quiet lint (measured with nginx 1.22.1:
	// keepalive 32 and Connection "" without proxy_http_version 1.1
	// opened 10 backend connections for 10 requests)
	complete bool
	// unknown names what an include nginxtune did not read decides, when
	// nothing else is wrong: the pool may or may not be used
	unknown []string
	// key names the map the edits write, written once (Fix.Key);
	// websocket is set when the edits give the map's Connection header
	key       string
	websocket bool
}

// connectionUpgradeEdits returns the edits that give a websocket location
// (the Upgrade header passed at up) the Connection header of
// connectionUpgradeMap: the header beside the Upgrade one, and the map at
// the top of the http block unless the tree has it. None where the map's
// variable is defined otherwise, where an unread include may define it, or
// where up's file is included from several places (one of them may set a
// Connection header of its own).
func (p *Pass) connectionUpgradeEdits(up *parser.Directive, c *parser.Context, maps map[string]closeMap) ([]finding.Edit, string, bool) {
	const v = "$connection_upgrade"
	http := c.Enclosing(parser.CtxHTTP)
	if http == nil || len(http.Block) == 0 || p.Tree == nil || p.Tree.HasUnread() || len(p.Tree.Unreadable) > 0 || p.Places(up) > 1 {
		return nil, "", false
	}
	header := engine.InsertAfter(up, "proxy_set_header Connection "+v+";")
	var defined []*parser.Directive
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if !engine.InStream(c) && d.Arg(1) == v {
			defined = append(defined, d)
		}
	}, "map")
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if !engine.InStream(c) && d.Arg(0) == v {
			defined = append(defined, d)
		}
	}, "set")
	if len(defined) > 0 {
		m := defined[0]
		if _, closes := maps[v]; closes || len(defined) > 1 || m.Name != "map" || m.Arg(0) != "$http_upgrade" || !emptyGivesEmpty(m) {
			return nil, "", false
		}
		return []finding.Edit{header}, "", true
	}
	at := http.Block[0]
	ls := engine.LineStart(at)
	if ls < 0 {
		return nil, "", false
	}
	ind, nl := engine.IndentOf(at), at.File.Newline()
	block := ind + "map $http_upgrade " + v + " {" + nl +
		ind + "    default upgrade;" + nl +
		ind + "    '' \"\";" + nl +
		ind + "}" + nl + nl
	return []finding.Edit{{File: at.File.Path, Start: ls, End: ls, New: block}, header}, "map:" + v, true
}

// emptyGivesEmpty reports whether a map gives "" for an empty source value.
func emptyGivesEmpty(m *parser.Directive) bool {
	for _, e := range m.Block {
		if e.Name == "" && len(e.Args) == 1 && e.Arg(0) == "" {
			return true
		}
	}
	return false
}

// keepaliveHeaders judges what the proxy_pass d in c sends the backend.
func (p *Pass) keepaliveHeaders(d *parser.Directive, c *parser.Context, maps map[string]closeMap) keepaliveNeeds {
	var out keepaliveNeeds
	var before []string // statements to add just above proxy_pass
	fixed := 0          // problems the edits resolve
	pv := p.Effective(c.Blocks, c.Root, "proxy_http_version")
	if pv.Found() && pv.Last().Arg(0) == "2" {
		return out // HTTP/2 to the backend sends no Connection header
	}
	versionUnknown := false
	switch {
	case !pv.Found() && pv.Complete:
		out.problems = append(out.problems, "proxy_http_version is 1.0 by default")
		before = append(before, "proxy_http_version 1.1;")
		fixed++
	case !pv.Found():
		versionUnknown = true // an include nginxtune did not read may set it
	case pv.Last().Arg(0) != "1.1":
		out.problems = append(out.problems, fmt.Sprintf("proxy_http_version %s at %s", pv.Last().Arg(0), where(pv.Last())))
	}
	hdrs := p.Effective(c.Blocks, c.Root, "proxy_set_header")
	conn := connectionHeader(hdrs.Dirs)
	connUnknown := false
	switch {
	case conn == nil && namedHeader(hdrs.Dirs, "Upgrade") != nil:
		// a websocket location: an empty Connection header would
		// break the upgrade; the map keeps both working
		up := namedHeader(hdrs.Dirs, "Upgrade")
		out.problems = append(out.problems, fmt.Sprintf("the Upgrade header is passed at %s but no Connection header: "+
			"write \"%s\" in http and \"proxy_set_header Connection $connection_upgrade;\" beside it, "+
			"which upgrades websockets and keeps other requests' connections (an empty Connection header breaks the upgrade)",
			where(up), connectionUpgradeMap))
		if edits, key, ok := p.connectionUpgradeEdits(up, c, maps); ok {
			out.edits = append(out.edits, edits...)
			out.key, out.websocket = key, true
			fixed++
		}
	case conn == nil && hdrs.Found():
		msg := "no proxy_set_header Connection where it is proxied"
		// Was Connection cleared further out and dropped by the inner set?
		if outer := p.outerConnection(c.Blocks, c.Root, hdrs.Level); outer != nil {
			msg = fmt.Sprintf("the proxy_set_header at %s replaces all inherited ones, including %s",
				where(hdrs.Dirs[0]), strings.TrimSpace(outer.Text()))
		}
		out.problems = append(out.problems, msg)
		if at := p.levelAnchor(hdrs, c); at != nil {
			out.edits = append(out.edits, engine.InsertAfter(at, `proxy_set_header Connection "";`))
			fixed++
		}
	case conn == nil && hdrs.Complete:
		out.problems = append(out.problems, "nginx sends \"Connection: close\" by default")
		before = append(before, `proxy_set_header Connection "";`)
		fixed++
	case conn == nil:
		// a proxy_set_header here would replace what an unread include
		// may set (Host, X-Forwarded-For): no edit can be sure of both
		connUnknown = true
	case conn != nil:
		if why := closesConnection(conn, maps); why != "" {
			if strings.HasPrefix(conn.Arg(1), "$") {
				why += "; map it to \"\" instead"
			}
			out.problems = append(out.problems, why)
		}
	}
	if len(out.problems) == 0 {
		if versionUnknown {
			out.unknown = append(out.unknown, "proxy_http_version")
		}
		if connUnknown {
			out.unknown = append(out.unknown, "the Connection header")
		}
		return out
	}
	// the other half, which an unread include may or may not give, is
	// part of the finding: written out where it is known to be safe, and
	// otherwise a reason the fix is not offered
	if versionUnknown {
		out.problems = append(out.problems, "proxy_http_version is set nowhere nginxtune read (1.0 by default)")
		before = append([]string{"proxy_http_version 1.1;"}, before...)
		fixed++
	}
	if connUnknown {
		out.problems = append(out.problems, "no proxy_set_header Connection where nginxtune read (nginx sends \"Connection: close\" unless an include it did not read clears it)")
	}
	if len(before) > 0 {
		out.edits = append(out.edits, engine.InsertBeforeAll(d, before...))
	}
	out.complete = fixed == len(out.problems)
	return out
}

// quoteArg quotes a value for a configuration file when it needs it.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t;{}\"'#$\\") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// where names a directive's position for messages.
func where(d *parser.Directive) string {
	return shortPath(d.File.Path) + ":" + strconv.Itoa(int(d.Line))
}

func shortPath(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

func connectionHeader(dirs []*parser.Directive) *parser.Directive {
	return namedHeader(dirs, "Connection")
}

// namedHeader returns the last of dirs that sets the header name.
func namedHeader(dirs []*parser.Directive, name string) *parser.Directive {
	var found *parser.Directive
	for _, d := range dirs {
		if strings.EqualFold(d.Arg(0), name) {
			found = d
		}
	}
	return found
}

// levelAnchor returns the statement after which a directive can be added
// to the level s was found at, in that level's own file: the last of s's
// directives when it is written there, or else the include that brings
// it in. A file included from several places is never edited for one of
// them. nil when the level is not in a file of its own (no safe place).
func (p *Pass) levelAnchor(s engine.Setting, c *parser.Context) *parser.Directive {
	last := s.Last()
	var dirs []*parser.Directive
	var file *parser.File
	if s.Level != nil {
		dirs, file = s.Level.Block, s.Level.File
	} else if c.Root != nil {
		dirs, file = c.Root.Directives, c.Root
	}
	if last == nil || file == nil {
		return nil
	}
	if last.File == file {
		return last
	}
	var anchor *parser.Directive
	for _, d := range dirs {
		if d.Name == "include" && d.File == file && includesFile(d, last.File, 0) {
			anchor = d
		}
	}
	return anchor
}

// includesFile reports whether include directive d reads f, directly or
// through the files it includes.
func includesFile(d *parser.Directive, f *parser.File, depth int) bool {
	if depth > 32 {
		return false
	}
	for _, inc := range d.Includes() {
		if inc == f {
			return true
		}
		found := false
		engine.WalkDirs(inc.Directives, func(x *parser.Directive) {
			if !found && x.Name == "include" && includesFile(x, f, depth+1) {
				found = true
			}
		})
		if found {
			return true
		}
	}
	return false
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
func (p *Pass) connectionMaps() map[string]closeMap {
	out := map[string]closeMap{}
	var all []*parser.Directive
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Block == nil || len(d.Args) < 2 {
			return
		}
		all = append(all, d)
		for _, e := range d.Block {
			if (e.Name == "" || e.Name == "default") && strings.EqualFold(e.Arg(0), "close") {
				out[d.Arg(1)] = closeMap{first: d, last: d}
			}
		}
	}, "map")
	// follow chains: a map whose default or '' value is the variable of a
	// map that gives "close" gives it too (nginx-proxy's $proxy_connection
	// -> $proxy_connection_noupgrade -> "default close")
	for changed := true; changed; {
		changed = false
		for _, d := range all {
			if _, done := out[d.Arg(1)]; done {
				continue
			}
			for _, e := range d.Block {
				if e.Name != "" && e.Name != "default" {
					continue
				}
				if next, ok := out[e.Arg(0)]; ok && strings.HasPrefix(e.Arg(0), "$") {
					out[d.Arg(1)] = closeMap{first: d, last: next.last, via: append([]string{e.Arg(0)}, next.via...)}
					changed = true
					break
				}
			}
		}
	}
	// said once per map, not for each proxy_pass that sends it
	for v, m := range out {
		m.said = m.describe(v)
		out[v] = m
	}
	return out
}

// closesConnection says why a proxy_set_header Connection sends "close" —
// written so, or through a map of cmaps — and "" when it does not.
func closesConnection(conn *parser.Directive, cmaps map[string]closeMap) string {
	switch {
	case conn == nil:
		return ""
	case strings.EqualFold(conn.Arg(1), "close"):
		return "Connection is set to close at " + where(conn)
	}
	if m, ok := cmaps[conn.Arg(1)]; ok {
		return m.said
	}
	return ""
}

// closeMap is a map whose variable is "close" for some requests: first is
// the map of the variable, last the map that writes "close", via the
// variables between them.
type closeMap struct {
	first, last *parser.Directive
	via         []string
	said        string // describe of the map's variable
}

// describe says when the variable is "close".
func (m closeMap) describe(v string) string {
	if len(m.via) == 0 {
		return fmt.Sprintf("%s is \"close\" when %s is empty or unmatched (map at %s)", v, m.first.Arg(0), where(m.first))
	}
	return fmt.Sprintf("%s is \"close\" through %s (map at %s) when %s is empty or unmatched (map at %s)",
		v, strings.Join(m.via, " -> "), where(m.first), m.last.Arg(0), where(m.last))
}

// templated reports whether a value still holds a template placeholder.
func templated(v string) bool { return loader.Templated(v) }
