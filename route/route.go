package route

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// Options change what Route may look at.
type Options struct {
	// RootCheck lets route look at the disk for try_files, index, static
	// files and "if (-f ...)": only for the tree this machine serves.
	RootCheck bool
	// Prefix is the directory a relative root is read against (nginx's
	// -p prefix).
	Prefix string
	// Hostname is the host name of the machine nginx runs on, for
	// "server_name $hostname" and $hostname ("" when unknown).
	Hostname string
	// Name names a file in the places the answer's steps and what it
	// depends on cite; nil: FileName.
	Name func(*parser.File) string
	// Disk, when set, says whether a file (dir: a directory) exists in
	// place of looking, and route takes its word as known: an assumption
	// about the disk to follow a request past try_files, index files and
	// static files (diff asks under "nothing exists" and "everything
	// exists"). Nothing is looked up.
	Disk func(path string, dir bool) bool
}

// Step is one thing that happened to the request, in order.
type Step struct {
	Kind   string // "address", "server", "uri", "location", "rewrite", ...
	Dir    *parser.Directive
	Detail string
}

// Setting is a directive in effect at the block that answers: every
// occurrence at the innermost level that has one (nginx does not merge a
// directive's list with an outer level's), and what it replaced.
type Setting struct {
	Name     string
	Dirs     []*parser.Directive
	Level    string // "http", "server", "location /x", "if", "limit_except"
	Replaces []*parser.Directive
}

// Candidate is a location that was looked at, and why it did or did not
// answer (Options.All).
type Candidate struct {
	Loc *Loc
	Why string
}

// DefaultServer is Result.ServerHow when no server_name matched and the
// address's default server answers.
const DefaultServer = "default"

// Result is route's answer.
type Result struct {
	Addr      string // the listening address, "*:80"
	Server    *Server
	ServerHow string // DefaultServer, or how a name matched ("exact name", ...)
	Location  *Loc
	// LocationHow says why the location answers.
	LocationHow string
	// If is the "if" block in a location whose configuration answers.
	If       *parser.Directive
	URI      string // the URI at the end, after rewrites
	Args     string
	Status   int  // the status nginx sends when the configuration decides it; 0 otherwise
	Closed   bool // the connection is closed without a response (444, a TLS mismatch)
	Answer   string
	Steps    []Step
	Settings []Setting
	Unknown  []string
	// Candidates lists the locations of the last search (Options.All).
	Candidates []Candidate
}

// Certain reports whether the configuration alone decides the answer.
func (r *Result) Certain() bool { return len(r.Unknown) == 0 }

func (r *Result) step(kind string, d *parser.Directive, format string, args ...any) {
	r.Steps = append(r.Steps, Step{Kind: kind, Dir: d, Detail: fmt.Sprintf(format, args...)})
}

func (r *Result) unknown(s string) {
	for _, u := range r.Unknown {
		if u == s {
			return
		}
	}
	r.Unknown = append(r.Unknown, s)
}

// maxCycles is nginx's bound on URI changes and internal redirects
// (NGX_HTTP_MAX_URI_CHANGES): the eleventh is a 500.
const maxCycles = 10

// Route finds what answers req.
func (c *Config) Route(req Request, opt Options) *Result {
	res := &Result{}
	if req.Method == "" {
		req.Method = "GET"
	}
	req.Method = strings.ToUpper(req.Method)
	if req.Headers == nil {
		req.Headers = map[string]string{}
	}
	if c.Fragment {
		res.unknown("the tree is a fragment, not a main nginx.conf: servers in files it does not include may share the address")
	}
	if h, ok := req.Headers["host"]; ok {
		req.Host, req.HasHost = h, true
	}
	ac, why, unk := c.pickAddress(&req, opt.names())
	if unk != "" {
		res.unknown(unk)
	}
	if ac == nil {
		res.Closed = true
		res.Answer = fmt.Sprintf("no http server listens on port %d%s: the connection is refused", req.Port, addrNote(req.Addr))
		res.step("address", nil, "%s", res.Answer)
		return res
	}
	res.Addr = ac.key
	if !ac.ssl && c.flag(c.levelsOf(ac.def, nil, nil), "ssl", false) {
		// the "ssl on" of nginx before 1.25 in the default server makes
		// every connection to the address TLS (ngx_http_init_connection)
		ac.ssl = true
	}
	res.step("address", ac.defAt.Dir, "the connection arrives at %s, where %d server%s; %s", ac.key, len(ac.servers), cond(len(ac.servers) == 1, " listens", "s listen"), why)
	st := &state{cfg: c, req: &req, opt: opt, vars: map[string]value{}}
	defer func() {
		if st.over != "" {
			// said even where nothing else names it (a set, a return's text)
			res.unknown("route stopped at " + st.over)
		}
	}()
	if req.Scheme == "https" && !ac.ssl {
		res.Server, res.ServerHow, res.Closed = ac.def, DefaultServer, true
		res.Answer = fmt.Sprintf("no listen on %s has ssl: nginx answers the TLS handshake as plain HTTP and the client fails", ac.key)
		res.step("tls", ac.defAt.Dir, "%s", res.Answer)
		return res
	}
	host, ok := hostName(req.Host)
	if !ok || req.HasHost && host == "" {
		// ngx_http_validate_host: the default server's configuration
		// answers, its error_page included
		res.ServerHow = DefaultServer
		st.uri, st.args, _ = normalize(req.Target, true)
		st.refuse(res, ac.def, "400: nginx refuses the Host header "+strconv.Quote(req.Host))
		return res
	}
	if !req.HasHost && req.Scheme == "https" {
		host = ""
	}
	m, unks := c.findServer(ac, host, opt.Hostname, opt.names())
	for _, u := range unks {
		res.unknown(u)
	}
	res.Server, res.ServerHow = m.server, m.how
	st.server, st.host, st.caps = m.server, host, m.caps
	if req.Scheme == "https" && c.flag(c.levelsOf(m.server, nil, nil), "ssl_reject_handshake", false) {
		// the server the SNI name picks (the same name as Host here)
		res.Closed = true
		res.Answer = fmt.Sprintf("the TLS handshake is rejected (ssl_reject_handshake on in server %s at %s)", m.server.Label(), st.at(m.server.Dir))
		res.step("tls", m.server.Dir, "%s", res.Answer)
		return res
	}
	switch {
	case m.how == DefaultServer:
		shown := strconv.Quote(host)
		if !req.HasHost {
			shown = "no Host header"
		}
		res.step("server", m.server.Dir, "server %s at %s: no server_name matches %s, so the default server of %s answers", m.server.Label(), st.at(m.server.Dir), shown, ac.key)
	default:
		res.step("server", m.name.Dir, "server %s at %s: %s matches by %s", m.server.Label(), st.at(m.server.Dir), m.name.Value, m.how)
	}
	if !req.HasHost && req.Proto != "HTTP/1.0" {
		// ngx_http_process_request_header, after the server is chosen
		// for no name: its configuration answers
		st.uri, st.args, _ = normalize(req.Target, true)
		st.refuse(res, m.server, "400: an HTTP/1.1 request without a Host header (nginx logs \"client sent HTTP/1.1 request without \"Host\" header\"); only HTTP/1.0 may go without one")
		return res
	}
	if req.Scheme == "http" && ac.ssl {
		// the listen has ssl for every server of the address
		res.Status = 400
		res.Answer = "400: a plain HTTP request sent to an HTTPS port"
		res.step("tls", ac.defAt.Dir, "%s", res.Answer)
		st.uri, st.args, _ = normalize(req.Target, true)
		st.levels = c.levelsOf(m.server, nil, nil)
		if st.respond(res, 497) {
			st.locations(res)
		}
		st.done(res)
		return res
	}
	merge := c.flag(c.levelsOf(ac.def, nil, nil), "merge_slashes", true)
	uri, args, err := normalize(req.Target, merge)
	if err != nil {
		// the request line is read before the Host header: the default
		// server's configuration answers
		res.Server, res.ServerHow = ac.def, DefaultServer
		st.server, st.uri = ac.def, "/"
		res.Answer = "400: nginx refuses the request target " + strconv.Quote(req.Target) + " (a bad %XX escape, a NUL, or \"..\" above the root); the default server's configuration answers"
		res.step("uri", nil, "%s", res.Answer)
		st.levels = c.levelsOf(ac.def, nil, nil)
		if st.respond(res, 400) {
			st.locations(res)
		}
		st.done(res)
		return res
	}
	st.uri, st.args = uri, args
	if uri != req.Target && uri+"?"+args != req.Target {
		res.step("uri", nil, "the URI nginx matches is %s (decoded, \".\" and \"..\" resolved%s)", strconv.Quote(uri), cond(merge, ", slashes merged", ""))
	}
	// the server's rewrite statements
	st.levels = c.levelsOf(m.server, nil, nil)
	if out := st.script(res, m.server.Body, nil); out.stop {
		if !out.sent && st.respond(res, res.Status) {
			st.locations(res)
		}
	} else {
		st.locations(res)
	}
	st.done(res)
	return res
}

// refuse answers 400 for a request nginx refuses before any rewrite
// statement runs, with srv's configuration (its error_page applies).
func (st *state) refuse(res *Result, srv *Server, answer string) {
	res.Server, res.Status, res.Answer = srv, 400, answer
	res.step("request", srv.Dir, "%s", answer)
	st.server = srv
	if st.uri == "" {
		st.uri = "/"
	}
	st.levels = st.cfg.levelsOf(srv, nil, nil)
	if st.respond(res, 400) {
		st.locations(res)
	}
	st.done(res)
}

func addrNote(a string) string {
	if a == "" {
		return ""
	}
	return " on " + a
}

func cond(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// namer names a file in route's messages (Options.Name).
type namer func(*parser.File) string

// at is a directive's place, "file:line".
func (n namer) at(d *parser.Directive) string {
	if d == nil || d.File == nil {
		return "?"
	}
	return n(d.File) + ":" + strconv.Itoa(int(d.Line))
}

// at is a directive's place as the options name it.
func (st *state) at(d *parser.Directive) string { return st.opt.names().at(d) }

func (o *Options) names() namer {
	if o.Name != nil {
		return o.Name
	}
	return FileName
}

// FileName is how route names a file unless Options.Name says otherwise:
// by the path it was included by (a link's), else by its own.
func FileName(f *parser.File) string {
	if f.Via != "" {
		return f.Via
	}
	return f.Path
}

// scriptOut is what a run of rewrite-module statements ended in.
type scriptOut struct {
	stop bool // a return, a redirect or an error: the response is decided
	// sent: the return sends its response itself (a text, or a status
	// below 400 that is not a redirect): no error_page applies
	sent  bool
	last  bool // rewrite ... last: search the locations again
	brk   bool // break or rewrite ... break
	ifDir *parser.Directive
}

// script runs the rewrite module's statements of one level in order.
func (st *state) script(res *Result, body []*parser.Directive, loc *Loc) scriptOut {
	var out scriptOut
	for _, d := range body {
		switch d.Name {
		case "set":
			if len(d.Args) == 2 {
				name := strings.ToLower(strings.TrimPrefix(d.Arg(0), "$"))
				st.vars[name] = st.expand(d.Arg(1))
			}
		case "break":
			res.step("rewrite", d, "break at %s stops the rewrite statements", st.at(d))
			out.brk = true
			return out
		case "return":
			out.sent = st.doReturn(res, d)
			out.stop = true
			return out
		case "rewrite":
			if o, done := st.rewrite(res, d, loc); done {
				return o
			}
		case "if":
			ok, why := st.condition(d)
			if why != "" {
				res.unknown(fmt.Sprintf("if (%s) at %s depends on %s; route went on as if it were false", Condition(d), st.at(d), why))
				continue
			}
			if !ok {
				res.step("if", d, "if (%s) at %s is false", Condition(d), st.at(d))
				continue
			}
			res.step("if", d, "if (%s) at %s is true", Condition(d), st.at(d))
			if loc != nil {
				out.ifDir = d
			}
			inner := st.script(res, parser.Level(d.Block), loc)
			if inner.ifDir == nil {
				inner.ifDir = out.ifDir
			}
			if inner.stop || inner.last || inner.brk {
				return inner
			}
			out.ifDir = inner.ifDir
		}
	}
	return out
}

// rewrite runs one rewrite directive.
func (st *state) rewrite(res *Result, d *parser.Directive, loc *Loc) (scriptOut, bool) {
	if len(d.Args) < 2 {
		return scriptOut{}, false
	}
	caps, ok, why := matchCaps(st.cfg.compile(d.Arg(0), false), st.uri)
	if why != "" {
		res.unknown(fmt.Sprintf("rewrite at %s: %s; route went on as if it did not match", st.at(d), why))
		return scriptOut{}, false
	}
	if !ok {
		return scriptOut{}, false
	}
	st.caps = caps
	repl := st.expand(d.Arg(1))
	flag := d.Arg(2)
	target := repl.s
	redirect := strings.HasPrefix(d.Arg(1), "http://") || strings.HasPrefix(d.Arg(1), "https://") || strings.HasPrefix(d.Arg(1), "$scheme")
	if repl.unknown != "" && !(flag == "redirect" || flag == "permanent" || redirect) {
		res.unknown(fmt.Sprintf("the rewrite at %s builds its URI from %s", st.at(d), repl.unknown))
	}
	if flag == "redirect" || flag == "permanent" || redirect {
		code := 302
		if flag == "permanent" {
			code = 301
		}
		if !strings.HasSuffix(target, "?") && st.args != "" {
			if strings.Contains(target, "?") {
				target += "&" + st.args
			} else {
				target += "?" + st.args
			}
		}
		target = strings.TrimSuffix(target, "?")
		res.Status = code
		res.Answer = fmt.Sprintf("%d redirect to %s (rewrite at %s)%s", code, target, st.at(d), dependsNote(repl))
		res.step("rewrite", d, "rewrite %s at %s matches %s: %s", d.Arg(0), st.at(d), strconv.Quote(st.uri), res.Answer)
		return scriptOut{stop: true}, true
	}
	newURI, newArgs, hasArgs := strings.Cut(target, "?")
	if hasArgs {
		if newArgs == "" {
			st.args = ""
		} else if st.args != "" && !strings.HasSuffix(target, "?") {
			st.args = newArgs + "&" + st.args
		} else {
			st.args = newArgs
		}
	}
	old := st.uri
	st.uri = newURI
	res.step("rewrite", d, "rewrite %s at %s changes %s to %s%s", d.Arg(0), st.at(d), strconv.Quote(old), strconv.Quote(newURI), cond(flag == "", "", " ("+flag+")"))
	switch flag {
	case "last":
		return scriptOut{last: true}, true
	case "break":
		return scriptOut{brk: true}, true
	}
	if loc != nil {
		st.uriChanged = true
	}
	return scriptOut{}, false
}

// doReturn runs a return; sent reports that nginx sends the response
// itself (ngx_http_send_response) rather than as an error or a redirect
// (ngx_http_special_response_handler, where error_page applies).
func (st *state) doReturn(res *Result, d *parser.Directive) (sent bool) {
	code, text := 0, ""
	switch len(d.Args) {
	case 1:
		if n, err := strconv.Atoi(d.Arg(0)); err == nil {
			code = n
		} else {
			code, text = 302, d.Arg(0)
		}
	case 2:
		code, _ = strconv.Atoi(d.Arg(0))
		text = d.Arg(1)
	}
	// the status does not depend on the text: an unknown variable in it
	// is said in the answer, and the answer stays certain
	v := st.expand(text)
	res.Status = code
	switch {
	case code == 444:
		res.Closed = true
		res.Answer = fmt.Sprintf("444: the connection is closed without a response (return at %s)", st.at(d))
	case code >= 301 && code <= 308 && code != 304 && code != 305 && code != 306:
		res.Answer = fmt.Sprintf("%d redirect to %s (return at %s)%s", code, v.s, st.at(d), dependsNote(v))
	case text != "":
		res.Answer = fmt.Sprintf("%d with the body %s (return at %s)%s", code, strconv.Quote(untrusted.Clip(v.s)), st.at(d), dependsNote(v))
	default:
		res.Answer = fmt.Sprintf("%d (return at %s)", code, st.at(d))
	}
	res.step("return", d, "%s", res.Answer)
	if code == 444 || code >= 301 && code <= 308 || code >= 400 && text == "" {
		return false
	}
	st.sent(res, code)
	return true
}

// dependsNote says which variable a text route wrote in part depends on.
func dependsNote(v value) string {
	if v.unknown == "" {
		return ""
	}
	return "; the text depends on " + v.unknown + ", written here as empty"
}

// level is one block whose directives apply at a location.
type level struct {
	label string
	dirs  []*parser.Directive
	block *parser.Directive
}

// levelsOf lists the levels whose directives apply at a location: http,
// the server, each enclosing location, then an if block.
func (c *Config) levelsOf(s *Server, loc *Loc, ifDir *parser.Directive) []level {
	var out []level
	if len(c.HTTP) > 0 {
		out = append(out, level{label: "http", dirs: c.httpPlain(), block: c.httpDir})
	}
	if s != nil {
		out = append(out, level{label: "server", dirs: s.Body, block: s.Dir})
	}
	var chain []*Loc
	for l := loc; l != nil; l = l.Parent {
		chain = append([]*Loc{l}, chain...)
	}
	for _, l := range chain {
		out = append(out, level{label: "location " + l.Label(), dirs: l.Body, block: l.Dir})
	}
	if ifDir != nil {
		out = append(out, level{label: "if (" + Condition(ifDir) + ")", dirs: parser.Level(ifDir.Block), block: ifDir})
	}
	return out
}

// effective returns the occurrences of name in effect across levels
// (parser.InEffect), and those of outer levels they replace.
func effective(levels []level, name string) Setting {
	at := func(i int) []*parser.Directive {
		var here []*parser.Directive
		for _, d := range levels[i].dirs {
			if d.Name == name && d.Block == nil {
				here = append(here, d)
			}
		}
		return here
	}
	dirs, i := parser.InEffect(len(levels), name, at)
	if i < 0 {
		return Setting{}
	}
	s := Setting{Name: name, Dirs: dirs, Level: levels[i].label}
	for j := 0; j < i && knowledge.Inherited(name); j++ {
		s.Replaces = append(s.Replaces, at(j)...)
	}
	return s
}

// flag reads an on/off directive in effect.
func (c *Config) flag(levels []level, name string, def bool) bool {
	s := effective(levels, name)
	if len(s.Dirs) == 0 {
		return def
	}
	return s.Dirs[len(s.Dirs)-1].Arg(0) == "on"
}

// settings lists every directive in effect at the answering block.
func settings(levels []level) []Setting {
	var names []string
	seen := map[string]bool{}
	for i, lv := range levels {
		for _, d := range lv.dirs {
			if d.Block != nil || seen[d.Name] || d.Name == "include" || (!knowledge.Inherited(d.Name) && i != len(levels)-1) {
				continue
			}
			seen[d.Name] = true
			names = append(names, d.Name)
		}
	}
	var out []Setting
	for _, n := range names {
		if s := effective(levels, n); s.Name != "" {
			out = append(out, s)
		}
	}
	return out
}

// rootOrAlias finds the root or alias in effect: nginx keeps them in one
// place, so the innermost level that sets either wins.
func rootOrAlias(levels []level) (*parser.Directive, int) {
	for i := len(levels) - 1; i >= 0; i-- {
		var found *parser.Directive
		for _, d := range levels[i].dirs {
			if (d.Name == "root" || d.Name == "alias") && d.Block == nil {
				found = d
			}
		}
		if found != nil {
			return found, i
		}
	}
	return nil, -1
}

// documentRoot is $document_root: root, or the directory alias names.
func (st *state) documentRoot() value {
	d, _ := rootOrAlias(st.levels)
	if d == nil {
		return value{s: st.abs("html")}
	}
	v := st.expand(d.Arg(0))
	v.s = st.abs(v.s)
	return v
}

func (st *state) abs(p string) string {
	if filepath.IsAbs(p) || p == "" {
		return p
	}
	prefix := st.opt.Prefix
	if prefix == "" {
		prefix = "/usr/share/nginx"
	}
	return filepath.Join(prefix, p) + cond(strings.HasSuffix(p, "/"), "/", "")
}

// filePath maps a URI onto the file system as the static module does:
// root + URI, or for alias the alias in place of the location's prefix
// (a regex location's alias is the whole path).
func (st *state) filePath(uri string) (string, string) {
	d, i := rootOrAlias(st.levels)
	if d == nil {
		return st.abs("html") + uri, ""
	}
	v := st.expand(d.Arg(0))
	p := st.abs(v.s)
	if d.Name == "root" {
		return strings.TrimSuffix(p, "/") + uri, v.unknown
	}
	owner := st.locAt(i)
	switch {
	case owner == nil:
		return p + uri, v.unknown
	case owner.Mod == "~" || owner.Mod == "~*":
		return p, v.unknown
	case strings.HasPrefix(uri, owner.Pattern):
		return p + uri[len(owner.Pattern):], v.unknown
	}
	return p + uri, v.unknown
}

// locAt is the location of level i ("if" levels belong to the location
// around them).
func (st *state) locAt(i int) *Loc {
	var chain []*Loc
	for l := st.loc; l != nil; l = l.Parent {
		chain = append([]*Loc{l}, chain...)
	}
	base := len(st.levels) - len(chain)
	if st.ifDir != nil {
		base--
	}
	j := i - base
	if j >= len(chain) {
		j = len(chain) - 1
	}
	if j < 0 {
		return nil
	}
	return chain[j]
}

func (st *state) fastcgiScriptName() string {
	name := st.uri
	if s := effective(st.levels, "fastcgi_split_path_info"); len(s.Dirs) > 0 {
		caps, _, _ := matchCaps(st.cfg.compile(s.Dirs[len(s.Dirs)-1].Arg(0), false), st.uri)
		if v, has := caps["1"]; has {
			name = v
		}
	}
	if strings.HasSuffix(name, "/") {
		if s := effective(st.levels, "fastcgi_index"); len(s.Dirs) > 0 {
			name += s.Dirs[len(s.Dirs)-1].Arg(0)
		}
	}
	return name
}

// exists looks at the disk when allowed; known is false otherwise.
func (st *state) exists(p string, dir bool) (ok, known bool) {
	if st.opt.Disk != nil {
		return st.opt.Disk(p, dir), true
	}
	if !st.opt.RootCheck {
		return false, false
	}
	fi, err := os.Stat(p)
	if err != nil {
		return false, true
	}
	if dir {
		return fi.IsDir(), true
	}
	return fi.Mode().IsRegular(), true
}
