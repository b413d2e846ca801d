package rules

import (
	"fmt"
	"maps"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var duplicateDefinition = &engine.Rule{
	Doc: engine.Doc{
		ID:    "duplicate-definition",
		Title: "A default server, listen, upstream or location defined twice where nginx allows one",
		Why: `nginx -t refuses a second "listen ... default_server" for one address and port ("a duplicate
default server for 0.0.0.0:80": Debian's stock default site plus a new site that claims the
same), the same address twice in one server's listen ("a duplicate listen"), two upstream blocks
of one name ("duplicate upstream"), and two prefix or two exact locations of one path in one
block ("duplicate location"); a stream server's listen on one address twice, and two caches
(proxy_cache_path and its kin) in one directory ("the same path name ... used"). "80", "*:80" and "0.0.0.0:80" are one address to nginx; "[::]:80"
and "127.0.0.1:80" are others. Regex and named locations may repeat, and "location = /a" beside
"location /a" is allowed.`,
		Fix:      `Keep one: remove default_server from all but one server of the address (disable the distribution's default site), merge the listens, rename or remove the second upstream or location.`,
		Bad:      "events {}\nhttp {\n    server { listen 80 default_server; }\n    server { listen 80 default_server; server_name a.example; }\n}\n",
		Good:     "events {}\nhttp {\n    server { listen 80 default_server; }\n    server { listen 80; server_name a.example; }\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.4.0",
		Versions: "all",
		Sources:  []string{"nginx sources 1.22.1: src/http/ngx_http.c (duplicate default server, duplicate listen), src/http/ngx_http_upstream.c (duplicate upstream), src/http/ngx_http.c ngx_http_join_exact_locations (duplicate location); each checked with real nginx -t"},
	},
	Check: check(checkDuplicateDefinition),
	Slow:  2,
	// a server's findings take from the rest of the tree only the first
	// default server and socket options of each address (listenFirsts)
	Scope:   engine.ScopeSummary,
	Summary: summary(duplicateSummary),
}

func checkDuplicateDefinition(p *Pass) {
	defs := &definitions{p: p, whole: len(mainRoots(p.Tree)) > 0, defaults: map[string]*parser.Directive{},
		firsts: map[string]*parser.Directive{}, options: map[string]*parser.Directive{}, reported: map[*parser.Directive]bool{}}
	if w := p.whole(); w != p {
		// over the server blocks an edit touched: the first default server
		// and socket options of each address are the whole tree's
		// (engine.ScopeSummary, listenFirsts)
		f := listenFirstsOf(w)
		maps.Copy(defs.defaults, f.defaults)
		maps.Copy(defs.options, f.options)
	}
	p.Each(defs.at, definedOncePerHTTP...)
	// a fragment read as a server's body: its own listens are one server's
	for _, r := range p.Tree.Roots {
		n := len(r.Context)
		if r.ContextSource == "root" || n < 2 || r.Context[n-1] != "server" {
			continue
		}
		switch r.Context[n-2] {
		case parser.CtxHTTP:
			listensTwice(p, r.Directives, false, defs.reported)
		case parser.CtxStream:
			listensTwice(p, r.Directives, true, defs.reported)
		}
	}
}

// definitions is what duplicate-definition has met in a run, keyed by
// http block (a pointer) and name: the first definitions, the first
// default server and the first listen with socket options of each address
// (these two in a whole tree only), and the directives already reported.
type definitions struct {
	p                         *Pass
	whole                     bool
	defaults, firsts, options map[string]*parser.Directive
	reported                  map[*parser.Directive]bool
	// the last scope's key, written once for the run of directives of
	// one http block instead of for each
	lastScope any
	lastKey   string
}

// scopeOf is the key prefix of an http block or a snippet's root file.
func (s *definitions) scopeOf(scope any) string {
	if scope != s.lastScope {
		s.lastScope, s.lastKey = scope, fmt.Sprintf("%p\x00", scope)
	}
	return s.lastKey
}

// scopeIn is the key prefix of the http block a directive in c is in:
// the block, or the root file of a snippet read at http level; "" for none.
func (s *definitions) scopeIn(c *parser.Context) string {
	if http := c.Enclosing(parser.CtxHTTP); http != nil {
		return s.scopeOf(http)
	} else if c.Root != nil && len(c.Root.Context) > 1 && c.Root.Context[1] == parser.CtxHTTP {
		return s.scopeOf(c.Root)
	}
	return ""
}

// definedOncePerHTTP are the names checkDuplicateDefinition walks: the
// server blocks, whose listens it compares, and what an http block
// defines once by name or path (judged across its server blocks).
var definedOncePerHTTP = append([]string{"server"}, definedAcrossServers...)

// definedAcrossServers are the names of definedOncePerHTTP whose findings
// compare every definition of the http block, wherever it stands.
var definedAcrossServers = []string{"upstream", "log_format", "limit_req_zone", "limit_conn_zone", "proxy_cache_path", "fastcgi_cache_path", "scgi_cache_path", "uwsgi_cache_path"}

// at judges one directive of the names checkDuplicateDefinition walks.
func (s *definitions) at(d *parser.Directive, c *parser.Context) {
	if engine.InStream(c) {
		if d.Name == "server" && d.Block != nil && c.In() == parser.CtxStream {
			streamListensTwice(s.p, d, s.reported)
		}
		return
	}
	scope := s.scopeIn(c)
	if scope == "" {
		return
	}
	switch d.Name {
	case "upstream":
		if d.Block == nil || !s.whole || len(d.Args) == 0 {
			return
		}
		s.second(scope+d.Arg(0), d, fmt.Sprintf("upstream %q", engine.Clip(d.Arg(0))), "duplicate upstream", "rename or remove one")
	case "server":
		if d.Block == nil || c.In() != parser.CtxHTTP {
			return
		}
		s.serverListens(scope, d)
		checkDuplicateLocations(s.p, d, s.reported)
	case "log_format":
		s.logFormat(scope, d)
	case "limit_req_zone", "limit_conn_zone":
		s.zone(scope, d)
	case "proxy_cache_path", "fastcgi_cache_path", "scgi_cache_path", "uwsgi_cache_path":
		s.cachePath(scope, d)
	}
}

// zone reports a limit_req or limit_conn zone declared twice.
func (s *definitions) zone(scope string, d *parser.Directive) {
	// a zone is declared once: again, even with the same key, nginx -t
	// fails ("is already bound to key", measured); in a snippet read at
	// http level too, whose scope is its own file
	zone := ""
	for _, a := range d.Args {
		if z, ok := strings.CutPrefix(a.Value, "zone="); ok {
			zone, _, _ = strings.Cut(z, ":")
		}
	}
	if zone == "" {
		return
	}
	s.second(scope+d.Name+"\x00"+zone, d, fmt.Sprintf("%s %q", d.Name, engine.Clip(zone)), "is already bound to key", "declare each zone once")
}

// cachePath reports a cache directory two caches share.
func (s *definitions) cachePath(scope string, d *parser.Directive) {
	// one directory per cache, whichever module's (ngx_add_path: "the
	// same path name ... used in"); in a snippet read at http level
	// too, whose scope is its own file
	dir := strings.TrimSuffix(d.Arg(0), "/")
	if dir == "" || strings.Contains(dir, "$") || templated(d.Args[0].Raw) {
		return
	}
	s.second(scope+"cache path\x00"+dir, d, fmt.Sprintf("the cache directory %s", engine.Clip(dir)), "the same path name ... used", "give each cache a directory of its own")
}

// second reports d when key was defined before it (first at the directive
// kept), else keeps d as the first.
func (s *definitions) second(key string, d *parser.Directive, what, nginxSays, advice string) {
	first, ok := s.firsts[key]
	switch {
	case !ok:
		s.firsts[key] = d
	case first != d && !s.reported[d]:
		s.reported[d] = true
		diag := s.p.Diag(d, "%s is defined twice (first at %s): nginx -t fails with %q; %s", what, where(first), nginxSays, advice)
		diag.Related = []finding.Related{engine.RelatedTo(first, "the first "+what)}
		s.p.Report(diag)
	}
}

// serverListens reports one server's listens of the same address twice,
// socket options given again for an address, and a second default server
// of an address.
func (s *definitions) serverListens(scope string, d *parser.Directive) {
	for _, l := range listensTwice(s.p, d.Block, false, s.reported) {
		k := socketKey(l)
		// socket options (backlog=, reuseport, ...) belong to the address:
		// two listens of it may not both give them
		if socketOptions(l) {
			if first, ok := s.options[scope+k]; ok && first != l && !s.reported[l] {
				s.reported[l] = true
				diag := s.p.Diag(l, "socket options for %s are given again (first at %s): nginx -t fails with \"duplicate listen options for %s\"; give backlog=, reuseport and the like on one listen of the address only", engine.Clip(l.Arg(0)), where(first), engine.Clip(k))
				diag.Related = []finding.Related{engine.RelatedTo(first, "the listen that gives them first")}
				s.p.Report(diag)
			} else if !ok {
				s.options[scope+k] = l
			}
		}
		if !s.whole || hasArg(l, "default_server") < 0 && hasArg(l, "default") < 0 {
			continue
		}
		if first, ok := s.defaults[scope+k]; ok && first != l && !s.reported[l] {
			s.reported[l] = true
			diag := s.p.Diag(l, "a second default server for %s (the first is marked at %s): nginx -t fails with \"a duplicate default server for %s\"; keep default_server on one server of the address (Debian: disable the stock default site)", engine.Clip(l.Arg(0)), where(first), engine.Clip(k))
			diag.Related = []finding.Related{engine.RelatedTo(first, "the first default_server for "+engine.Clip(k))}
			s.p.Report(diag)
		} else if !ok {
			s.defaults[scope+k] = l
		}
	}
}

// logFormat reports a log_format name given twice in one http block (in a
// snippet read at http level too: its scope is its file), and nginx's own
// "combined" ("duplicate log_format name").
func (s *definitions) logFormat(scope string, d *parser.Directive) {
	if len(d.Args) == 0 {
		return
	}
	if d.Arg(0) == "combined" && !s.reported[d] {
		s.reported[d] = true
		s.p.Reportf(d, "log_format \"combined\" is nginx's own: nginx -t fails with \"duplicate log_format name\"; give yours another name")
		return
	}
	s.second(scope+"log_format\x00"+d.Arg(0), d, fmt.Sprintf("log_format %q", engine.Clip(d.Arg(0))), "duplicate log_format name", "rename or remove one")
}

// streamListensTwice reports a stream server that listens on one address
// twice (a TCP and a UDP listen of it are two sockets): nginx -t fails
// (nginx 1.22.1: "duplicate "0.0.0.0:53" address and port pair").
func streamListensTwice(p *Pass, d *parser.Directive, reported map[*parser.Directive]bool) {
	listensTwice(p, d.Block, true, reported)
}

// listensTwice reports a listen of one server (its statements dirs) on an
// address an earlier listen of it has, and returns the listens it did not
// report. A quic listen (http) or a udp one (stream) is a socket apart from
// the TCP one of its address.
func listensTwice(p *Pass, dirs []*parser.Directive, stream bool, reported map[*parser.Directive]bool) []*parser.Directive {
	seen := map[string]*parser.Directive{}
	var rest []*parser.Directive
	for _, l := range p.Find(dirs, "listen") {
		if len(l.Args) == 0 {
			continue // directive-args reports it
		}
		k := socketKey(l)
		if k == "" {
			continue
		}
		if hasArg(l, "udp") > 0 {
			k = "udp " + k
		}
		first, ok := seen[k]
		switch {
		case !ok:
			seen[k] = l
		case first == l || reported[l]:
			continue
		case stream:
			reported[l] = true
			addr := engine.Clip(strings.TrimPrefix(k, "udp "))
			diag := p.Diag(l, "this stream server listens on %s twice (first at %s): nginx -t fails (nginx 1.22.1: \"duplicate \"%s\" address and port pair\"); keep one listen per address", engine.Clip(l.Arg(0)), where(first), addr)
			diag.Related = []finding.Related{engine.RelatedTo(first, "the first listen on "+addr)}
			p.Report(diag)
			continue
		default:
			reported[l] = true
			diag := p.Diag(l, "this server listens on %s twice (first at %s): nginx -t fails with \"a duplicate listen %s\"; keep one listen per address", engine.Clip(l.Arg(0)), where(first), engine.Clip(k))
			diag.Related = []finding.Related{engine.RelatedTo(first, "the first listen on "+engine.Clip(k))}
			p.Report(diag)
			continue
		}
		rest = append(rest, l)
	}
	return rest
}

// checkDuplicateLocations reports two prefix (or ^~) or two exact locations
// of one path in one block, nested blocks included.
func checkDuplicateLocations(p *Pass, b *parser.Directive, reported map[*parser.Directive]bool) {
	seen := map[string]*parser.Directive{}
	for _, l := range parser.Level(b.Block) {
		if l.Name != "location" || l.Block == nil {
			continue
		}
		kind, path := "prefix", l.Arg(0)
		switch {
		case l.Arg(0) == "=":
			kind, path = "exact", l.Arg(1)
		case l.Arg(0) == "^~":
			path = l.Arg(1)
		case l.Arg(0) == "~" || l.Arg(0) == "~*" || strings.HasPrefix(l.Arg(0), "@") || strings.HasPrefix(l.Arg(0), "~"):
			kind = "" // regex and named locations may repeat
		}
		if kind != "" && path != "" {
			key := kind + "\x00" + path
			if first, ok := seen[key]; ok && first != l && !reported[l] {
				reported[l] = true
				diag := p.Diag(l, "location %s is defined twice in this block (first at %s): nginx -t fails with \"duplicate location\"; merge them", engine.Clip(path), where(first))
				diag.Related = []finding.Related{engine.RelatedTo(first, "the first location "+engine.Clip(path))}
				p.Report(diag)
			} else if !ok {
				seen[key] = l
			}
		}
		checkDuplicateLocations(p, l, reported)
	}
}

// socketOptions reports whether a listen sets options of the socket itself,
// which nginx takes from one listen of an address only
// (ngx_http_core_listen's lsopt.set).
func socketOptions(l *parser.Directive) bool {
	if len(l.Args) < 2 {
		return false
	}
	for _, a := range l.Args[1:] {
		name, _, _ := strings.Cut(a.Value, "=")
		switch name {
		case "backlog", "rcvbuf", "sndbuf", "setfib", "fastopen", "accept_filter", "deferred", "bind", "ipv6only", "reuseport", "so_keepalive":
			return true
		}
	}
	return false
}
