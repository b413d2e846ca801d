package rules

import (
	"regexp"
	"strings"
	"sync"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// What the request controls in a value: the model behind ssrf,
// header-injection and proxy-pass-normalized (docs/security.md).
//
// nginx's variables fall in three groups. Some the client writes directly
// ($http_*, $arg_*, $cookie_*, $request_uri, $args); of those, only values
// nginx has percent-decoded ($uri, $document_uri and what is derived from
// them) can hold a line break: measured with nginx 1.22.1, "add_header X $uri"
// answers /a%0d%0aX-Inj:1 with a second header, "add_header X $arg_x" sends
// the %0d%0a as written. Variables set with "set" or computed by "map" carry
// what their inputs carry; a map whose values are all fixed strings lets the
// client choose among them, nothing more.

//
// Captures: a numbered capture ($1) copied by a script of the rewrite
// module (set, a rewrite's replacement) is escaped again when the request
// line held %-escapes (ngx_http_script_copy_capture_code), so "set $t $1"
// cannot carry a decoded line break; used directly elsewhere (add_header,
// return, proxy_pass) it is the raw text. A named capture ((?<name>...)) is
// a variable, copied raw everywhere. Measured with nginx 1.22.1 for
// /x/a%0d%0aX-Inj:1: "set $t $1; add_header X-T $t" sends a%0D%0AX-Inj:1,
// "add_header X-Y $1" and "set $u $tail; add_header X-S $u" send the
// X-Inj header (docs/security.md).

// taint is what the request controls in a value.
type taint struct {
	picks   bool // the client chooses the value
	newline bool // the value can hold a line feed
	// cr: the value can hold a carriage return (PCRE's "." matches one);
	// nginx sends it raw, and some clients and proxies end a line there
	cr      bool
	decoded bool // the value is the percent-decoded path (or part of it)
	// reserved: a decoded value can hold "?", "/", "#" or a space, which
	// change a URL's meaning once decoded
	reserved bool
	// encoded: the value holds the client's percent-escapes as written
	// ($request_uri, or a capture of a URI a rewrite set from it)
	encoded bool
	via     string // the variable (or chain) that brings it, for messages
}

func (t taint) or(u taint) taint {
	t.reserved = t.reserved || u.reserved
	if !t.picks && u.picks || !t.newline && u.newline || !t.decoded && u.decoded {
		if t.via == "" || !t.picks && u.picks || !t.newline && u.newline {
			t.via = u.via
		}
	}
	t.picks = t.picks || u.picks
	t.newline = t.newline || u.newline
	t.cr = t.cr || u.cr
	t.decoded = t.decoded || u.decoded
	t.encoded = t.encoded || u.encoded
	return t
}

// requestVar is the taint of nginx's own variables.
func requestVar(name string) (taint, bool) {
	switch name {
	case "uri", "document_uri", "request_filename", "fastcgi_script_name", "fastcgi_path_info":
		return taint{picks: true, newline: true, cr: true, decoded: true, reserved: true, via: "$" + name}, true
	case "request_body":
		return taint{picks: true, newline: true, via: "$" + name}, true
	case "request_uri":
		return taint{picks: true, encoded: true, via: "$request_uri"}, true
	case "remote_user", "args", "query_string", "request", "http_host", "content_type", "cookie":
		return taint{picks: true, via: "$" + name}, true
	case "host":
		return taint{picks: true, via: "$host"}, true // narrowed per server by the caller
	}
	for _, prefix := range []string{"http_", "arg_", "cookie_"} {
		if strings.HasPrefix(name, prefix) {
			return taint{picks: true, via: "$" + name}, true
		}
	}
	return taint{}, false
}

// regexSource is a regular expression whose captures a directive reads and
// the value it was matched against.
type regexSource struct {
	re     string
	source string // a variable name ("uri" for locations and rewrites)
	where  *parser.Directive
	level  []*parser.Directive // for a rewrite, the block level that holds it
}

// captureSource finds the regular expression whose captures d reads:
// an earlier rewrite of the same block, an enclosing "if" with a regex
// test, or the innermost regex location.
func captureSource(d *parser.Directive, c *parser.Context) (regexSource, bool) {
	var found regexSource
	ok := false
	regexSources(d, c, false, func(src regexSource) bool {
		found, ok = src, true
		return true
	})
	return found, ok
}

// regexSources calls fn with the regular expressions whose captures d can
// read, the most recent match first: d's own rewrite; then, block by block
// outwards, the rewrites before d (the last first), the block's own test
// (an "if" with a regex, a regex location) and, with servers, the regex
// names of a server (matched against the Host). fn returns true to stop.
func regexSources(d *parser.Directive, c *parser.Context, servers bool, fn func(regexSource) bool) {
	if d.Name == "rewrite" {
		var here []*parser.Directive
		if len(c.Blocks) > 0 {
			here = c.Blocks[len(c.Blocks)-1].Block
		} else if c.Root != nil {
			here = c.Root.Directives
		}
		if fn(regexSource{d.Arg(0), "uri", d, here}) {
			return
		}
	}
	for i := len(c.Blocks) - 1; i >= 0; i-- {
		b := c.Blocks[i]
		var rewrites []*parser.Directive
		for _, x := range parser.Level(b.Block) {
			if x == d || x.Start >= d.Start && x.File == d.File {
				break
			}
			if x.Name == "rewrite" {
				rewrites = append(rewrites, x)
			}
		}
		for j := len(rewrites) - 1; j >= 0; j-- {
			if fn(regexSource{rewrites[j].Arg(0), "uri", rewrites[j], b.Block}) {
				return
			}
		}
		switch b.Name {
		case "if":
			if v, op, re, ok := ifCondition(b); ok && strings.HasPrefix(op, "~") && fn(regexSource{re, strings.TrimPrefix(v, "$"), b, nil}) {
				return
			}
		case "location":
			if re, ok := locationRegex(b); ok && fn(regexSource{re, "uri", b, nil}) {
				return
			}
		case "server":
			if !servers {
				continue
			}
			for _, sn := range b.Find("server_name") {
				for _, a := range sn.Args {
					if strings.HasPrefix(a.Value, "~") && fn(regexSource{a.Value[1:], "host", sn, nil}) {
						return
					}
				}
			}
		}
	}
}

// ifCondition splits the condition of an "if" block into the variable,
// the operator and the operand: ($a ~* re) gives "$a", "~*", "re".
func ifCondition(d *parser.Directive) (v, op, operand string, ok bool) {
	var parts []string
	for _, a := range d.Args {
		parts = append(parts, a.Value)
	}
	if len(parts) == 0 {
		return "", "", "", false
	}
	parts[0] = strings.TrimPrefix(parts[0], "(")
	last := len(parts) - 1
	if parts[last] == ")" {
		parts = parts[:last]
	} else {
		parts[last] = strings.TrimSuffix(parts[last], ")")
	}
	if len(parts) == 0 || parts[0] == "" && len(parts) == 1 {
		return "", "", "", false
	}
	if parts[0] == "" {
		parts = parts[1:]
	}
	switch len(parts) {
	case 1:
		return parts[0], "", "", true
	case 2:
		// a variable and an operator with no value: nginx refuses it
		// (ok false: no caller judges a condition nginx refuses)
		return parts[0], parts[1], "", false
	case 3:
		return parts[0], parts[1], parts[2], true
	}
	return "", "", "", false
}

// groupPattern returns the text of capture group n (1-based) of a PCRE
// pattern, or "" when it has fewer groups.
func groupPattern(re string, n int) (string, bool) {
	count := 0
	var stack []int // start of each open group; -1 for one not wanted
	body, found := "", false
	regexSyntax(re, func(i int) {
		switch {
		case found:
		case re[i] == '(':
			if capturing(re, i) {
				count++
				if count == n {
					stack = append(stack, i+1)
					return
				}
			}
			stack = append(stack, -1)
		case re[i] == ')' && len(stack) > 0:
			start := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if start >= 0 {
				body, found = re[start:i], true
				if strings.HasPrefix(body, "?") { // named: (?<n>...), (?P<n>...), (?'n'...)
					if k := strings.IndexAny(body, ">'"); k >= 0 {
						body = body[k+1:]
					}
				}
			}
		}
	})
	return body, found
}

// capturing reports whether the "(" at i opens a capture group: a plain
// one or a named one, not "(?:", a lookaround or an option setting.
func capturing(re string, i int) bool {
	if i+1 >= len(re) || re[i+1] != '?' {
		return true
	}
	return i+2 < len(re) && (re[i+2] == '<' && i+3 < len(re) && re[i+3] != '=' && re[i+3] != '!' || re[i+2] == 'P' || re[i+2] == '\'')
}

// matchesNewline reports whether a PCRE fragment can match a line feed
// (nginx compiles without PCRE_DOTALL, so "." cannot).
func matchesNewline(frag, whole string) bool {
	dotall := strings.Contains(whole, "(?s") || strings.Contains(whole, "(?is") || strings.Contains(whole, "(?si")
	inClass, negated, classHasNL := false, false, false
	for i := 0; i < len(frag); i++ {
		c := frag[i]
		if c == '\\' && i+1 < len(frag) {
			e := frag[i+1]
			i++
			nl := strings.IndexByte("snvRXCDWHN", e) >= 0 || e == 'x' && strings.HasPrefix(strings.ToLower(frag[i+1:]), "0a")
			if e == 'N' {
				nl = false // \N is "not a newline"
			}
			if inClass {
				if e == 's' || e == 'n' || e == 'v' || e == 'R' || e == 'x' && nl {
					classHasNL = true
				}
				if e == 'D' || e == 'W' || e == 'H' {
					classHasNL = true
				}
				continue
			}
			if nl {
				return true
			}
			continue
		}
		if c == '\n' { // written "\n" in the configuration: nginx unescapes it
			if !inClass {
				return true
			}
			classHasNL = true
			continue
		}
		switch {
		case inClass:
			if c == ']' {
				inClass = false
				if negated != classHasNL {
					return true
				}
			}
		case c == '[':
			inClass, negated, classHasNL = true, i+1 < len(frag) && frag[i+1] == '^', false
			if negated {
				i++
			}
			if i+1 < len(frag) && frag[i+1] == ']' {
				i++ // a literal "]" first in the class
			}
		case c == '.' && dotall:
			return true
		}
	}
	return false
}

// literalChoice reports whether a group only matches fixed words:
// "app1|app2", "static\.example\.com".
func literalChoice(frag string) bool {
	if frag == "" {
		return true
	}
	for i := 0; i < len(frag); i++ {
		c := frag[i]
		switch {
		case c == '\\' && i+1 < len(frag) && (frag[i+1] == '.' || frag[i+1] == '-'):
			i++
		case c == '|' || c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// taintScope resolves variables for one pass: the set and map statements
// of the tree, collected once.
type taintScope struct {
	sets         map[string][]setAt
	maps         map[string][]*parser.Directive
	defaults     map[*parser.Directive]bool // servers that answer unknown Host names
	defaultsOnce sync.Once
}

// setAt is a set statement in the place the walk meets it.
type setAt struct {
	d *parser.Directive
	c *parser.Context
}

// taintScopeKey keys the run's taintScope (Pass.Shared).
type taintScopeKey struct{}

func (p *Pass) taintScope() *taintScope {
	if p.taints == nil {
		p.taints = p.Shared(taintScopeKey{}, func() any { return p.collectTaintScope() }).(*taintScope)
	}
	return p.taints
}

func (p *Pass) collectTaintScope() *taintScope {
	ts := &taintScope{sets: map[string][]setAt{}, maps: map[string][]*parser.Directive{}}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		switch {
		case d.Name == "set" && len(d.Args) == 2:
			n := strings.TrimPrefix(d.Arg(0), "$")
			ts.sets[n] = append(ts.sets[n], setAt{d, c})
		case d.Name == "map" && d.Block != nil && len(d.Args) == 2:
			n := strings.TrimPrefix(d.Arg(1), "$")
			ts.maps[n] = append(ts.maps[n], d)
		}
	}, "set", "map")
	return ts
}

// catchAll reports whether a server answers requests for any Host: it is
// the default server of one of its addresses, or has a wildcard, regex or
// "_" name. Only then does the client choose $host freely. The answer for
// the server asked last is kept: the uses of $host in a server ask in a row.
func (p *Pass) catchAll(srv *parser.Directive) bool {
	if srv == nil {
		return true
	}
	if srv != p.catchSrv {
		p.catchSrv, p.catchAns = srv, p.catchAllOf(srv)
	}
	return p.catchAns
}

// catchAllOf is catchAll worked out.
func (p *Pass) catchAllOf(srv *parser.Directive) bool {
	ts := p.taintScope()
	ts.defaultsOnce.Do(func() {
		groups, noListen := p.listenGroups()
		ts.defaults = map[*parser.Directive]bool{}
		port80 := false
		for _, g := range groups {
			ts.defaults[g.defaultServer()] = true
			port80 = port80 || g.addr == "*:80"
		}
		if len(noListen) > 0 && !port80 {
			ts.defaults[noListen[0]] = true // alone on *:80
		}
	})
	if ts.defaults[srv] {
		return true
	}
	names := p.Find(srv.Block, "server_name")
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		for _, a := range n.Args {
			v := a.Value
			if v == "" || v == "_" || strings.HasPrefix(v, "~") || strings.Contains(v, "*") || strings.HasPrefix(v, ".") || strings.Contains(v, "$") {
				return true
			}
		}
	}
	return false
}

// taintOf is what the request controls in a value used by d, a directive
// met at c.
func (p *Pass) taintOf(value string, d *parser.Directive, c *parser.Context) taint {
	var t taint
	if strings.IndexByte(value, '$') < 0 {
		return t
	}
	for _, r := range knowledge.VarRefs(value) {
		t = t.or(p.varTaint(r.Name, d, c, 0))
	}
	return t
}

func (p *Pass) varTaint(name string, d *parser.Directive, c *parser.Context, depth int) taint {
	if depth > 8 {
		p.taintCut = true
		return taint{}
	}
	if len(name) == 1 && name[0] >= '1' && name[0] <= '9' {
		src, ok := captureSource(d, c)
		if !ok {
			return taint{}
		}
		return p.captureTaint(src, int(name[0]-'0'), "$"+name, d, c, depth)
	}
	if t, ok := requestVar(name); ok {
		if name == "host" && !p.catchAll(c.Enclosing(parser.CtxServer)) {
			return taint{} // $host is one of this server's exact names
		}
		return t
	}
	var t taint
	if p.namedGroups()[name] {
		if src, n, ok := namedCapture(name, d, c); ok {
			t = t.or(p.captureTaint(src, n, "$"+name, d, c, depth))
		}
	}
	return t.or(p.definedTaint(name, depth))
}

// definedTaint is the taint of the variable name as the configuration's
// set and map directives define it, wherever it is used: the same for
// every use, so it is worked out once a pass (taintMemo). A variable met
// again while its own value is worked out ("set $a $a$a", "set $a $b;
// set $b $a") adds nothing the other definitions do not: taints only add
// up. A result that met such a cycle, or the depth bound, is not kept,
// for it may lack what the name being worked out brings.
func (p *Pass) definedTaint(name string, depth int) taint {
	if t, ok := p.taintMemo[name]; ok {
		return t
	}
	if p.taintBusy[name] {
		p.taintCut = true
		return taint{}
	}
	if p.taintBusy == nil {
		p.taintBusy, p.taintMemo = map[string]bool{}, map[string]taint{}
	}
	p.taintBusy[name] = true
	outer := p.taintCut
	p.taintCut = false
	ts := p.taintScope()
	var t taint
	for _, s := range ts.sets[name] {
		u := p.scriptTaint(s.d.Arg(1), s.d, s.c, depth+1)
		if u.picks && !strings.Contains(u.via, "set $") {
			u.via = "$" + name + " (set from " + u.via + ")"
		}
		t = t.or(u)
	}
	for _, m := range ts.maps[name] {
		t = t.or(p.mapTaint(m, name, depth))
	}
	delete(p.taintBusy, name)
	if !p.taintCut {
		p.taintMemo[name] = t
	}
	p.taintCut = p.taintCut || outer
	return t
}

// scriptTaint is the taint of a value a script of the rewrite module
// copies (set): its numbered captures are escaped again when the request
// line held %-escapes, the only way a capture of the path can hold a line
// break or a carriage return.
func (p *Pass) scriptTaint(value string, d *parser.Directive, c *parser.Context, depth int) taint {
	var t taint
	if strings.IndexByte(value, '$') < 0 {
		return t
	}
	for _, r := range knowledge.VarRefs(value) {
		u := p.varTaint(r.Name, d, c, depth)
		if r.Kind == knowledge.Capture {
			u.newline, u.cr = false, false
		}
		t = t.or(u)
	}
	return t
}

// namedCapture finds the regular expression that sets $name as a named
// capture ((?<name>...), (?P<name>...), (?'name'...)) for d, among those
// regexSources offers, the most recent match first. n is the group's
// number.
func namedCapture(name string, d *parser.Directive, c *parser.Context) (regexSource, int, bool) {
	if len(name) == 0 || name[0] >= '0' && name[0] <= '9' {
		return regexSource{}, 0, false
	}
	var found regexSource
	n := 0
	regexSources(d, c, true, func(src regexSource) bool {
		if n = namedGroup(src.re, name); n > 0 {
			found = src
			return true
		}
		return false
	})
	return found, n, n > 0
}

// namedGroup returns the number of the capture group called name in a
// PCRE pattern, 0 when there is none.
func namedGroup(re, name string) int {
	count, found := 0, 0
	regexSyntax(re, func(i int) {
		if found > 0 || re[i] != '(' || !capturing(re, i) {
			return
		}
		count++
		rest := re[i+1:]
		for _, open := range []string{"?<", "?P<", "?'"} {
			if n, ok := strings.CutPrefix(rest, open+name); ok && (strings.HasPrefix(n, ">") || strings.HasPrefix(n, "'")) {
				found = count
			}
		}
	})
	return found
}

// captureTaint is the taint of group n of a regex matched against source;
// label names it in messages ("$1", "$tail").
func (p *Pass) captureTaint(src regexSource, n int, label string, d *parser.Directive, c *parser.Context, depth int) taint {
	frag, ok := groupPattern(src.re, n)
	if !ok {
		return taint{}
	}
	var base taint
	if src.source == "uri" {
		base = p.uriTaint(src, c, depth)
	} else {
		base = p.varTaint(src.source, src.where, c, depth+1)
	}
	if !base.picks || literalChoice(frag) {
		return taint{}
	}
	return taint{picks: true, newline: base.newline && matchesNewline(frag, src.re) && repeats(frag),
		cr:      base.cr && matchesCR(frag) && repeats(frag),
		decoded: base.decoded, reserved: base.reserved && matchesReserved(frag), encoded: base.encoded,
		via: label + " (" + engine.Clip("("+frag+")") + " of " + base.via + ")"}
}

// uriTaint is the taint of the URI a regex of src is matched against. A
// rewrite matches the URI the rewrites before it in its block left: one
// without a flag that matches replaces it with its replacement, copied raw
// (measured with nginx 1.22.1: after "rewrite ^/e/([^z]*)$ /f/$1;" $uri is
// "/f/a\r\nX-Inj:1" for /e/a%0d%0aX-Inj:1, and after "rewrite ^
// $request_uri;" the URI keeps the client's escapes: /1/a%2Fb then reaches
// "rewrite ^/1(/.*) $1 break;" and "proxy_pass http://b/$1;" as /a%2Fb, not
// decoded).
func (p *Pass) uriTaint(src regexSource, c *parser.Context, depth int) taint {
	t, _ := requestVar("uri")
	if src.where == nil || src.where.Name != "rewrite" || depth > 8 {
		return t
	}
	for _, x := range parser.Level(src.level) {
		if x == src.where {
			break
		}
		// a flag ends the rewrites once it matches; a URL redirects
		if x.Name != "rewrite" || len(x.Args) != 2 || isURL(x.Arg(1)) {
			continue
		}
		if u := p.rewriteTaintOnce(x, c, depth+1); p.matchesAnyPath(x.Arg(0)) {
			t = u
		} else {
			t = t.or(u)
		}
	}
	return t
}

// rewriteTaintOnce is rewriteTaint worked out once a pass for each rewrite:
// every rewrite after it in its block asks (30 rewrites asked 2^30 times).
// A result that met the depth bound or a cycle is not kept (definedTaint).
func (p *Pass) rewriteTaintOnce(x *parser.Directive, c *parser.Context, depth int) taint {
	if t, ok := p.rewriteMemo[x]; ok {
		return t
	}
	outer := p.taintCut
	p.taintCut = false
	t := p.rewriteTaint(x, c, depth)
	if !p.taintCut {
		if p.rewriteMemo == nil {
			p.rewriteMemo = map[*parser.Directive]taint{}
		}
		p.rewriteMemo[x] = t
	}
	p.taintCut = p.taintCut || outer
	return t
}

// rewriteTaint is the taint of the URI a rewrite sets: the path part of
// its replacement, whose variables and captures are copied raw.
func (p *Pass) rewriteTaint(x *parser.Directive, c *parser.Context, depth int) taint {
	repl := x.Arg(1)
	if q := strings.IndexByte(repl, '?'); q >= 0 {
		repl = repl[:q] // the arguments, not the URI
	}
	var t taint
	for _, r := range knowledge.VarRefs(repl) {
		t = t.or(p.varTaint(r.Name, x, c, depth))
	}
	return t
}

// matchesAnyPath reports whether a rewrite's regex matches every path
// ("^", "^/", "^(.*)"): a line feed in the path included, which "." does
// not match. Each regex is compiled once a pass.
func (p *Pass) matchesAnyPath(re string) bool {
	if every, ok := p.anyPath[re]; ok {
		return every
	}
	every := false
	if compiled, err := regexp.Compile(re); err == nil {
		every = true
		for _, s := range []string{"/", "/a\nb", "/a%2Fb?c", "/.x/y"} {
			every = every && compiled.MatchString(s)
		}
	}
	if p.anyPath == nil {
		p.anyPath = map[string]bool{}
	}
	p.anyPath[re] = every
	return every
}

// mapTaint is the taint of a map's result: what its values copy from
// variables (captures of its regex keys included). Fixed values carry none.
func (p *Pass) mapTaint(m *parser.Directive, name string, depth int) taint {
	source := strings.TrimPrefix(m.Arg(0), "$")
	var t taint
	for _, e := range m.Block {
		var key, val string
		switch {
		case e.Name == "default" && len(e.Args) == 1:
			val = e.Arg(0)
		case len(e.Args) == 1 && e.Name != "include" && e.Name != "hostnames" && e.Name != "volatile":
			key, val = e.Name, e.Arg(0)
		default:
			continue
		}
		for _, r := range knowledge.VarRefs(val) {
			if r.Kind == knowledge.Capture {
				if strings.HasPrefix(key, "~") {
					re := strings.TrimPrefix(strings.TrimPrefix(key, "~"), "*")
					srcVar := p.varTaint(source, m, &parser.Context{Names: []string{parser.CtxMain, parser.CtxHTTP}}, depth+1)
					if frag, ok := groupPattern(re, int(r.Name[0]-'0')); ok && srcVar.picks && !literalChoice(frag) {
						t = t.or(taint{picks: true, newline: srcVar.newline && matchesNewline(frag, re) && repeats(frag),
							cr: srcVar.cr && matchesCR(frag) && repeats(frag), decoded: srcVar.decoded,
							reserved: srcVar.reserved && matchesReserved(frag),
							via:      "$" + name + " (map of " + srcVar.via + ")"})
					}
				}
				continue
			}
			u := p.varTaint(r.Name, m, &parser.Context{Names: []string{parser.CtxMain, parser.CtxHTTP}}, depth+1)
			if u.picks {
				u.via = "$" + name + " (map value " + u.via + ")"
			}
			t = t.or(u)
		}
	}
	return t
}

// repeats reports whether a fragment can match more than one character: a
// single "[^.]" can hold a line feed but nothing after it, which splits no
// header of the client's choosing.
func repeats(frag string) bool {
	found := false
	regexSyntax(frag, func(i int) { found = found || frag[i] == '*' || frag[i] == '+' || frag[i] == '{' })
	return found
}

// matchesCR reports whether a PCRE fragment can match a text with a
// carriage return in it: "." can (nginx's PCRE ends lines at a line feed
// only), and so can a negated class that does not list "\r". A pattern Go
// cannot compile (lookarounds) is read by its classes and dots.
func matchesCR(frag string) bool {
	re, err := regexp.Compile(`^(?:` + frag + `)$`)
	if err != nil {
		return strings.Contains(frag, ".") || strings.Contains(frag, "[^") && !strings.Contains(frag, `\r`) || strings.Contains(frag, `\s`)
	}
	for _, s := range []string{"\r", "a\r", "a\rb", "/\r/", "a\rX-a:1"} {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// matchesReserved reports whether a fragment can match a character that
// changes a URL's meaning once decoded ("?", "/", "#", " "). A pattern Go
// cannot compile is assumed to.
func matchesReserved(frag string) bool {
	re, err := regexp.Compile(frag)
	if err != nil {
		return true
	}
	for _, c := range []string{"?", "/", "#", " "} {
		if re.MatchString(c) {
			return true
		}
	}
	return false
}
