package route

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// locations runs the location phases for the current URI: find the
// location, its rewrite statements, access, try_files and the content
// handler, following rewrites and internal redirects.
func (st *state) locations(res *Result) {
	for cycle := 0; ; cycle++ {
		if cycle > maxCycles {
			res.Status, res.Closed = 500, false
			res.Answer = "500: more than 10 rewrites or internal redirects (nginx logs \"rewrite or internal redirection cycle\")"
			res.step("cycle", nil, "%s", res.Answer)
			return
		}
		res.Status, res.Answer, res.Closed = 0, "", false
		var loc *Loc
		if st.named != nil {
			loc, st.named = st.named, nil
			res.step("location", loc.Dir, "location %s at %s: the named location", loc.Label(), st.at(loc.Dir))
		} else {
			lr := findLocation(st.server.Locs, st.uri, st.opt.names())
			for _, u := range lr.unknown {
				res.unknown(u)
			}
			res.Candidates = candidates(st.server.Locs, st.uri, lr)
			if lr.redirect {
				res.Location, res.LocationHow = lr.loc, lr.how
				res.Status = 301
				target := lr.loc.Pattern
				if st.args != "" {
					target += "?" + st.args
				}
				res.Answer = fmt.Sprintf("301 redirect to %s (nginx adds the slash for %s at %s, which proxies)", target, lr.loc.Label(), st.at(lr.loc.Dir))
				res.step("location", lr.loc.Dir, "%s", res.Answer)
				st.loc, st.levels = lr.loc, st.cfg.levelsOf(st.server, lr.loc, nil)
				return
			}
			loc = lr.loc
			if lr.caps != nil {
				st.caps = lr.caps
			}
			if loc == nil {
				res.step("location", nil, "no location matches %s: the server's own configuration answers", strconv.Quote(st.uri))
			} else {
				res.step("location", loc.Dir, "location %s at %s: %s", loc.Label(), st.at(loc.Dir), lr.how)
				st.lastHow = lr.how
			}
		}
		res.Location, res.If = loc, nil
		res.LocationHow = "named location"
		if loc != nil && loc.Mod != "@" {
			res.LocationHow = st.lastHow
		}
		st.loc, st.ifDir = loc, nil
		st.levels = st.cfg.levelsOf(st.server, loc, nil)
		if loc != nil && !st.intern && hasDirective(loc.Body, "internal") {
			res.step("internal", loc.Dir, "the location is internal: a request from outside gets 404")
			if st.respond(res, 404) {
				continue
			}
			return
		}
		st.limit = nil
		if loc != nil {
			st.limit = limitedBy(loc, st.req.Method)
		}
		if st.limit != nil {
			// ngx_http_update_location_config: the block's configuration
			// replaces the location's, and rewrite statements, if blocks
			// and try_files are not inherited into it
			res.step("limit_except", st.limit, "%s is not among the methods limit_except at %s lets through: nginx uses its block's configuration, where the location's rewrite statements, if blocks and try_files do not run", st.req.Method, st.at(st.limit))
			st.levels = append(st.levels, level{label: "limit_except", dirs: parser.Level(st.limit.Block), block: st.limit})
		}
		st.uriChanged = false
		if loc != nil && st.limit == nil {
			out := st.script(res, loc.Body, loc)
			if out.ifDir != nil {
				st.ifDir, res.If = out.ifDir, out.ifDir
				st.levels = st.cfg.levelsOf(st.server, loc, out.ifDir)
			}
			if out.stop {
				if !out.sent && st.respond(res, res.Status) {
					continue
				}
				return
			}
			if out.last || (st.uriChanged && !out.brk) {
				res.step("location", nil, "the URI changed: the locations are searched again for %s", strconv.Quote(st.uri))
				continue
			}
		}
		if code := st.access(res); code != 0 {
			if st.respond(res, code) {
				continue
			}
			return
		}
		if tf := effective(st.levels, "try_files"); len(tf.Dirs) > 0 {
			switch st.tryFiles(res, tf.Dirs[len(tf.Dirs)-1]) {
			case flowRedirect:
				continue
			case flowDone:
				return
			}
		}
		if st.content(res) {
			continue
		}
		return
	}
}

type flow int

const (
	flowOn       flow = iota // go on to the next phase
	flowRedirect             // an internal redirect: search again
	flowDone                 // the answer is decided
)

// limitedBy returns loc's limit_except block when method is not among
// those it lets through (GET lets HEAD through), else nil.
func limitedBy(loc *Loc, method string) *parser.Directive {
	for _, d := range loc.Body {
		if d.Name != "limit_except" || d.Block == nil {
			continue
		}
		for _, m := range d.ArgValues() {
			if strings.EqualFold(m, method) || strings.EqualFold(m, "GET") && method == "HEAD" {
				return nil
			}
		}
		return d
	}
	return nil
}

func hasDirective(body []*parser.Directive, name string) bool {
	for _, d := range body {
		if d.Name == name {
			return true
		}
	}
	return false
}

// internalRedirect moves the request to uri ("/x?args" or "@name").
func (st *state) internalRedirect(res *Result, target string, d *parser.Directive, why string) bool {
	st.intern = true
	if strings.HasPrefix(target, "@") {
		l := st.server.named[target]
		if l == nil {
			res.Status = 500
			res.Answer = "500: the named location " + target + " does not exist in this server"
			res.step("redirect", d, "%s", res.Answer)
			return false
		}
		st.named = l
		res.step("redirect", d, "%s: internal redirect to %s", why, target)
		return true
	}
	uri, args, hasArgs := strings.Cut(target, "?")
	st.uri = uri
	if hasArgs {
		st.args = args
	}
	res.step("redirect", d, "%s: internal redirect to %s", why, strconv.Quote(target))
	return true
}

// respond applies error_page to a status nginx produced; it reports
// whether the request goes on (an internal redirect).
func (st *state) respond(res *Result, code int) bool {
	if code == 497 {
		code = 400 // the status sent unless an error_page 497 says otherwise
		if ep, target := st.errorPageFor(497); ep != nil {
			return st.followErrorPage(res, ep, target, 497)
		}
	}
	res.Status = code
	if res.Answer == "" {
		res.Answer = strconv.Itoa(code)
	}
	if code < 300 || code == 444 || res.Closed {
		return false
	}
	st.errStatus, st.errStatusAt = code, nil // nginx's r->err_status

	ep, target := st.errorPageFor(code)
	if ep == nil {
		return false
	}
	return st.followErrorPage(res, ep, target, code)
}

func (st *state) errorPageFor(code int) (*parser.Directive, string) {
	if st.errorPaged && !st.cfg.flag(st.levels, "recursive_error_pages", false) {
		return nil, ""
	}
	s := effective(st.levels, "error_page")
	for _, d := range s.Dirs {
		args := d.ArgValues()
		if len(args) < 2 {
			continue
		}
		target := args[len(args)-1]
		for _, a := range args[:len(args)-1] {
			if n, err := strconv.Atoi(a); err == nil && n == code {
				return d, target
			}
		}
	}
	return nil, ""
}

func (st *state) followErrorPage(res *Result, d *parser.Directive, target string, code int) bool {
	st.errorPaged = true
	v := st.expand(target)
	if v.unknown != "" {
		res.unknown(fmt.Sprintf("the error_page at %s names %s", st.at(d), v.unknown))
	}
	if strings.HasPrefix(v.s, "/") || strings.HasPrefix(v.s, "@") {
		// the status the response after the redirect is sent with: the
		// error's own, "=N" N, "=" the response's own
		// (ngx_http_send_error_page; 494 to 497 become 400)
		st.errStatus, st.errStatusAt = code, d
		if code >= 494 && code <= 497 {
			st.errStatus = 400
		}
		for _, a := range d.ArgValues() {
			if a == "=" {
				st.errStatus = 0
			} else if n, err := strconv.Atoi(strings.TrimPrefix(a, "=")); err == nil && strings.HasPrefix(a, "=") {
				st.errStatus = n
			}
		}
		if st.req.Method != "HEAD" {
			st.req.Method = "GET"
		}
		return st.internalRedirect(res, v.s, d, fmt.Sprintf("error_page at %s catches %d", st.at(d), code))
	}
	res.Status = 302
	for _, a := range d.ArgValues() {
		if strings.HasPrefix(a, "=") {
			if n, err := strconv.Atoi(a[1:]); err == nil {
				res.Status = n
			}
		}
	}
	res.Answer = fmt.Sprintf("%d redirect to %s (error_page at %s catches %d)", res.Status, v.s, st.at(d), code)
	res.step("error_page", d, "%s", res.Answer)
	return false
}

// sent sets the status of a response nginx sends itself (a return's text,
// a file): after an error_page redirect, the status error_page keeps
// replaces the response's own (ngx_http_send_header sets err_status).
func (st *state) sent(res *Result, code int) {
	res.Status = code
	if st.errStatus == 0 || st.errStatus == code {
		return
	}
	res.Status = st.errStatus
	how := fmt.Sprintf("the status error_page at %s keeps", st.at(st.errStatusAt))
	if st.errStatusAt == nil {
		how = "the status of the error nginx answers"
	}
	res.Answer = fmt.Sprintf("%d, %s: %s", st.errStatus, how, res.Answer)
}

// access applies limit_except, allow/deny and auth_basic; it returns the
// status nginx refuses with, or 0.
func (st *state) access(res *Result) int {
	levels := st.levels // with the limit_except block when it applies
	// the access module runs before auth_basic (its handler is
	// registered later and nginx runs a phase's handlers last-first);
	// allow and deny are one list: the innermost level with either
	var list []*parser.Directive
	for i := len(levels) - 1; i >= 0; i-- {
		for _, d := range levels[i].dirs {
			if (d.Name == "allow" || d.Name == "deny") && d.Block == nil {
				list = append(list, d)
			}
		}
		if len(list) > 0 {
			break
		}
	}
	addr := "" // "allow", "deny" or "" (no rule matched)
	var addrDir *parser.Directive
	for _, d := range list {
		operand := d.Arg(0)
		if operand != "all" && st.req.Client == "" {
			res.unknown(fmt.Sprintf("%s %s at %s depends on the client's address (give --client); route went on as if it did not match", d.Name, operand, st.at(d)))
			continue
		}
		if clientIn(st.req.Client, operand) {
			addr, addrDir = d.Name, d
			break
		}
	}
	auth := "" // "401", "sent" (credentials route cannot check) or ""
	var authDir *parser.Directive
	if ab := effective(levels, "auth_basic"); len(ab.Dirs) > 0 && ab.Dirs[len(ab.Dirs)-1].Arg(0) != "off" {
		authDir = ab.Dirs[len(ab.Dirs)-1]
		auth = "401"
		if _, ok := st.req.Headers["authorization"]; ok {
			auth = "sent"
			res.unknown(fmt.Sprintf("auth_basic at %s: whether the password is right depends on the user file", st.at(authDir)))
		}
	}
	if ar := effective(levels, "auth_request"); len(ar.Dirs) > 0 && ar.Dirs[len(ar.Dirs)-1].Arg(0) != "off" {
		res.unknown(fmt.Sprintf("auth_request at %s: the answer of the subrequest decides access", st.at(ar.Dirs[0])))
	}
	if addrDir != nil {
		res.step("access", addrDir, "%s %s at %s %s", addr, addrDir.Arg(0), st.at(addrDir), cond(addr == "deny", "refuses the client", "lets the client in"))
	}
	deny := func() int {
		res.Answer = fmt.Sprintf("403 (deny at %s)", st.at(addrDir))
		return 403
	}
	unauthorized := func() int {
		res.step("access", authDir, "auth_basic at %s asks for a password and the request has no Authorization header: 401", st.at(authDir))
		res.Answer = fmt.Sprintf("401 (auth_basic at %s)", st.at(authDir))
		return 401
	}
	if satisfyAny(levels) {
		switch {
		case addr == "allow" || auth == "sent":
			return 0
		case auth == "401":
			return unauthorized() // a 401 outranks a 403 under satisfy any
		case addr == "deny":
			return deny()
		}
		return 0
	}
	switch {
	case addr == "deny":
		return deny()
	case auth == "401":
		return unauthorized()
	}
	return 0
}

func satisfyAny(levels []level) bool {
	s := effective(levels, "satisfy")
	return len(s.Dirs) > 0 && s.Dirs[len(s.Dirs)-1].Arg(0) == "any"
}

// tryFiles checks try_files' candidates in order and follows the last
// argument when none exists.
func (st *state) tryFiles(res *Result, d *parser.Directive) flow {
	args := d.ArgValues()
	if len(args) < 2 {
		return flowOn
	}
	for _, cand := range args[:len(args)-1] {
		// an argument that ends with "/" tests a directory; nginx drops
		// that slash when it reads the configuration, so the URI it goes
		// on with has none ("$uri/" for /wp-admin goes on as /wp-admin,
		// which the static module then redirects to /wp-admin/)
		dir := strings.HasSuffix(cand, "/")
		v := st.expand(strings.TrimSuffix(cand, "/"))
		if v.unknown != "" {
			res.unknown(fmt.Sprintf("try_files at %s: the candidate %s depends on %s", st.at(d), cand, v.unknown))
			continue
		}
		path, why := st.filePath(v.s)
		if why != "" {
			res.unknown(fmt.Sprintf("try_files at %s: the path of %s depends on %s", st.at(d), cand, why))
		}
		ok, known := st.exists(path, dir)
		if !known {
			what := path
			if dir {
				what = "the directory " + path
			}
			res.unknown(fmt.Sprintf("try_files at %s: whether %s exists on the disk (route looks with --root-check); route went on as if it did not", st.at(d), what))
			continue
		}
		if ok {
			res.step("try_files", d, "try_files at %s: %s exists, so the URI becomes %s", st.at(d), path, strconv.Quote(v.s))
			uri, args, has := strings.Cut(v.s, "?")
			st.uri = uri
			if has {
				st.args = args
			}
			return flowOn
		}
		res.step("try_files", d, "try_files at %s: %s does not exist", st.at(d), path)
	}
	last := args[len(args)-1]
	if strings.HasPrefix(last, "=") {
		code, err := strconv.Atoi(last[1:])
		if err == nil {
			res.Answer = fmt.Sprintf("%d (the last argument of try_files at %s)", code, st.at(d))
			res.step("try_files", d, "%s", res.Answer)
			if st.respond(res, code) {
				return flowRedirect
			}
			return flowDone
		}
	}
	v := st.expand(last)
	if v.unknown != "" {
		res.unknown(fmt.Sprintf("try_files at %s: its fallback depends on %s", st.at(d), v.unknown))
	}
	if st.internalRedirect(res, v.s, d, fmt.Sprintf("try_files at %s falls back to its last argument", st.at(d))) {
		return flowRedirect
	}
	return flowDone
}

// content runs the content handler; it reports whether the request goes
// on (an internal redirect to an index file or an error_page).
func (st *state) content(res *Result) bool {
	if st.loc != nil {
		// the handler of the location, or of its true if block
		var handler, module *parser.Directive
		from := st.levels[len(st.levels)-1-boolInt(st.ifDir != nil):]
		if st.limit != nil {
			// proxy_pass and the like carry over into the limit_except
			// block (their modules' merge sets its handler); stub_status
			// and other modules' handlers do not
			from = st.levels[len(st.levels)-2 : len(st.levels)-1]
		}
		for _, lv := range from {
			for _, d := range lv.dirs {
				switch {
				case knowledge.IsPassHandler(d.Name):
					handler = d
				case knowledge.IsContentHandler(d.Name) && st.limit == nil:
					module = d
				}
			}
		}
		if handler != nil {
			st.handler(res, handler)
			return false
		}
		if module != nil {
			res.Answer = fmt.Sprintf("%s at %s answers", module.Name, st.at(module))
			if module.Name == "stub_status" || module.Name == "empty_gif" {
				if st.req.Method != "GET" && st.req.Method != "HEAD" {
					res.Answer = fmt.Sprintf("405: %s at %s answers only GET and HEAD", module.Name, st.at(module))
					res.step("content", module, "%s", res.Answer)
					return st.respond(res, 405)
				}
				st.sent(res, 200)
			}
			res.step("content", module, "%s", res.Answer)
			return false
		}
	}
	return st.static(res)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// handler describes a proxy_pass, fastcgi_pass, ... and what it sends.
func (st *state) handler(res *Result, d *parser.Directive) {
	target := st.expand(d.Arg(0))
	if target.unknown != "" {
		res.unknown(fmt.Sprintf("%s at %s names %s", d.Name, st.at(d), target.unknown))
	}
	res.Answer = fmt.Sprintf("%s %s (at %s)", d.Name, target.s, st.at(d))
	switch d.Name {
	case "proxy_pass", "grpc_pass":
		sent := st.upstreamURI(d, target.s)
		res.Answer += "; the URI sent upstream is " + sent
	case "fastcgi_pass":
		if sf := st.param("fastcgi_param", "SCRIPT_FILENAME"); sf != "" {
			res.Answer += "; SCRIPT_FILENAME " + sf
		} else {
			res.Answer += "; no SCRIPT_FILENAME is set (php-fpm answers \"Primary script unknown\")"
		}
	case "uwsgi_pass":
		if sf := st.param("uwsgi_param", "SCRIPT_NAME"); sf != "" {
			res.Answer += "; SCRIPT_NAME " + sf
		}
	}
	res.step("content", d, "%s", res.Answer)
}

// param evaluates a fastcgi_param-like directive's value for a name.
func (st *state) param(directive, name string) string {
	s := effective(st.levels, directive)
	val := ""
	for _, d := range s.Dirs {
		if d.Arg(0) == name {
			v := st.expand(d.Arg(1))
			val = v.s
			if v.unknown != "" {
				val += " (depends on " + v.unknown + ")"
			}
		}
	}
	return val
}

// upstreamURI is the URI proxy_pass sends (ngx_http_proxy_create_request).
func (st *state) upstreamURI(d *parser.Directive, target string) string {
	rest := target
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	slash := strings.IndexByte(rest, '/')
	changed := st.intern || st.uri != st.origURI()
	if strings.Contains(d.Arg(0), "$") {
		if slash >= 0 {
			return rest[slash:]
		}
		if changed {
			return escapeURI(st.uri) + argsPart(st.args)
		}
		return st.req.Target
	}
	if slash < 0 {
		if changed {
			return escapeURI(st.uri) + argsPart(st.args)
		}
		return st.req.Target
	}
	part := rest[slash:]
	if changed || st.loc == nil || st.loc.Mod == "~" || st.loc.Mod == "~*" || st.loc.Mod == "@" {
		return escapeURI(st.uri) + argsPart(st.args)
	}
	if strings.HasPrefix(st.uri, st.loc.Pattern) {
		return escapeURI(part+st.uri[len(st.loc.Pattern):]) + argsPart(st.args)
	}
	return escapeURI(part) + argsPart(st.args)
}

func argsPart(a string) string {
	if a == "" {
		return ""
	}
	return "?" + a
}

func (st *state) origURI() string {
	u, _, _ := normalize(st.req.Target, true)
	return u
}

// static is the index, autoindex and static modules.
func (st *state) static(res *Result) bool {
	path, why := st.filePath(st.uri)
	if why != "" {
		res.unknown("the file path depends on " + why)
	}
	if strings.HasSuffix(st.uri, "/") {
		idx := effective(st.levels, "index")
		names := []string{"index.html"}
		var at0 *parser.Directive
		if len(idx.Dirs) > 0 {
			names = nil
			for _, d := range idx.Dirs {
				names = append(names, d.ArgValues()...)
			}
			at0 = idx.Dirs[0]
		}
		for i, n := range names {
			v := st.expand(n)
			var p string
			if strings.HasPrefix(v.s, "/") {
				p, _ = st.filePath(v.s)
				if i == len(names)-1 {
					return st.internalRedirect(res, v.s, at0, "the last index is an absolute URI")
				}
			} else {
				p = path + v.s
			}
			ok, known := st.exists(p, false)
			if !known {
				res.unknown(fmt.Sprintf("whether the index file %s exists on the disk (route looks with --root-check)", p))
				res.Answer = fmt.Sprintf("the index file %s, by an internal redirect to %s, if it exists", p, strconv.Quote(st.uri+v.s))
				res.step("content", at0, "%s", res.Answer)
				return false
			}
			if ok {
				target := st.uri + v.s
				if strings.HasPrefix(v.s, "/") {
					target = v.s
				}
				return st.internalRedirect(res, target+argsPart(st.args), at0, "the index file "+p+" exists")
			}
		}
		dirOK, _ := st.exists(path, true)
		if ai := effective(st.levels, "autoindex"); len(ai.Dirs) > 0 && ai.Dirs[len(ai.Dirs)-1].Arg(0) == "on" && dirOK {
			res.Answer = "200: a directory listing of " + path + " (autoindex)"
			st.sent(res, 200)
			res.step("content", ai.Dirs[0], "%s", res.Answer)
			return false
		}
		code := 404
		if dirOK {
			code = 403
		}
		res.Answer = fmt.Sprintf("%d: no index file in %s%s", code, path, cond(dirOK, " (the directory exists; listing is off)", " (the directory does not exist)"))
		res.step("content", nil, "%s", res.Answer)
		return st.respond(res, code)
	}
	ok, known := st.exists(path, false)
	if !known {
		res.unknown(fmt.Sprintf("whether %s exists on the disk (route looks with --root-check)", path))
		res.Answer = "the static file " + path + " (404 if it does not exist)"
		res.step("content", nil, "%s", res.Answer)
		return false
	}
	if ok {
		if st.req.Method != "GET" && st.req.Method != "HEAD" {
			res.Answer = "405: the static module serves only GET and HEAD"
			res.step("content", nil, "%s", res.Answer)
			return st.respond(res, 405)
		}
		res.Answer = "200: the static file " + path
		st.sent(res, 200)
		res.step("content", nil, "%s", res.Answer)
		return false
	}
	if isDir, _ := st.exists(path, true); isDir {
		res.Status = 301
		res.Answer = fmt.Sprintf("301 redirect to %s/ (%s is a directory)", st.uri, path)
		res.step("content", nil, "%s", res.Answer)
		return false
	}
	res.Answer = "404: " + path + " does not exist"
	res.step("content", nil, "%s", res.Answer)
	return st.respond(res, 404)
}

// done fills in the settings at the block that answers.
func (st *state) done(res *Result) {
	res.URI, res.Args = st.uri, st.args
	if st.levels != nil {
		res.Settings = settings(st.levels)
	}
}

// candidates explains, for every location of the server, why it did or
// did not answer uri.
func candidates(locs []*Loc, uri string, lr locResult) []Candidate {
	var out []Candidate
	passed := map[*Loc]bool{}
	for _, l := range lr.passed {
		passed[l] = true
	}
	var walk func(ls []*Loc, parent *Loc)
	walk = func(ls []*Loc, parent *Loc) {
		for _, l := range ls {
			why := ""
			switch {
			case l == lr.loc:
				why = "answers: " + lr.how
			case l.Mod == "@":
				why = "a named location: only try_files, error_page and similar reach it"
			case l.Mod == "=":
				if l.Pattern == uri {
					why = "matches exactly, but an outer location's search ended first"
				} else {
					why = "exact match only, and the URI differs"
				}
			case l.Mod == "~" || l.Mod == "~*":
				_, matches, cannot := matchCaps(l.re, uri)
				switch {
				case cannot != "":
					why = "route cannot run it: " + cannot
				case passed[l]:
					why = "tested; does not match"
				case matches:
					why = "matches, but is not reached: an earlier match ended the search (an exact match, ^~, an earlier regex, or it is nested in a location that did not answer)"
				default:
					why = "does not match (not reached)"
				}
			default:
				switch {
				case !strings.HasPrefix(uri, l.Pattern):
					why = "the URI does not start with it"
				case lr.loc != nil && (lr.loc.Mod == "~" || lr.loc.Mod == "~*"):
					why = "a matching prefix, but a regex answers (prefixes not marked ^~ lose to regexes)"
				default:
					why = "a matching prefix, but a longer one or a nested location wins"
				}
			}
			if parent != nil {
				why = "nested in " + parent.Label() + "; " + why
			}
			out = append(out, Candidate{Loc: l, Why: why})
			walk(l.Locs, l)
		}
	}
	walk(locs, nil)
	return out
}
