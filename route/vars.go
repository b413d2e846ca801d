package route

import (
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// value is a variable's value, or why route cannot know it.
type value struct {
	s       string
	unknown string // non-empty: the value depends on this
}

// state is one request on its way through the configuration.
type state struct {
	cfg    *Config
	req    *Request
	opt    Options
	server *Server
	host   string // the host nginx compares, lower case
	uri    string
	args   string
	caps   map[string]string // the last regex's captures
	vars   map[string]value  // set variables
	intern bool              // after an internal redirect
	// uriChanged marks a rewrite without a flag in a location
	uriChanged bool
	depth      int // map evaluation depth
	// spent and looked count what expand built for this request (bytes
	// of values, variables looked up); over says why it stopped
	spent, looked int
	over          string

	loc    *Loc              // the location being processed
	ifDir  *parser.Directive // a true if block of that location
	levels []level           // the levels whose directives apply
	named  *Loc              // a named location to go to next
	// errorPaged is set once an error_page redirected the request: nginx
	// follows one (recursive_error_pages off)
	errorPaged bool
	// errStatus is the status an error_page redirect keeps (nginx's
	// r->err_status): a response sent after it carries this status
	// (0: the response's own); errStatusAt is that error_page
	errStatus   int
	errStatusAt *parser.Directive
	// limit is the limit_except block whose configuration nginx uses
	// because the method is not among those it lets through
	limit   *parser.Directive
	lastHow string // why the last location searched for answered
}

// builtins known from the request alone; others are unknown.
func (st *state) variable(name string) value {
	lname := strings.ToLower(name)
	if v, ok := st.vars[lname]; ok {
		return v
	}
	if name[0] >= '0' && name[0] <= '9' {
		// "$0", "${1}": not a capture ("$1" to "$9" are, read by expand),
		// and a name no regex group and no module defines; only "set $0"
		// could, and nginx -t refuses it otherwise (knowledge.VarRefs)
		return value{unknown: "$" + name + ` (no variable nginx defines: nginx -t fails with unknown "` + lname + `" variable)`}
	}
	if v, ok := st.caps[name]; ok {
		return value{s: v} // a named capture
	}
	r := st.req
	switch lname {
	case "uri", "document_uri":
		return value{s: st.uri}
	case "request_uri":
		return value{s: r.Target}
	case "args", "query_string":
		return value{s: st.args}
	case "is_args":
		if st.args != "" {
			return value{s: "?"}
		}
		return value{}
	case "scheme":
		return value{s: r.Scheme}
	case "https":
		if r.Scheme == "https" {
			return value{s: "on"}
		}
		return value{}
	case "request_method":
		return value{s: r.Method}
	case "server_port":
		return value{s: strconv.Itoa(r.Port)}
	case "server_protocol":
		return value{s: "HTTP/1.1"}
	case "host":
		if st.host != "" {
			return value{s: st.host}
		}
		return value{s: st.serverName()}
	case "server_name":
		return value{s: st.serverName()}
	case "request":
		return value{s: r.Method + " " + r.Target + " HTTP/1.1"}
	case "remote_addr", "binary_remote_addr", "realip_remote_addr":
		if r.Client == "" {
			return value{unknown: "$" + lname + " (the client's address; give --client)"}
		}
		return value{s: r.Client}
	case "server_addr":
		if r.Addr == "" {
			return value{unknown: "$server_addr (give --addr)"}
		}
		return value{s: r.Addr}
	case "content_type":
		return value{s: r.Headers["content-type"]}
	case "content_length":
		return value{s: r.Headers["content-length"]}
	case "cookie":
		return value{s: r.Headers["cookie"]}
	case "document_root":
		return st.documentRoot()
	case "request_filename":
		p, why := st.filePath(st.uri)
		return value{s: p, unknown: why}
	case "hostname":
		if st.opt.Hostname == "" {
			return value{unknown: "$hostname (the host name of the machine nginx runs on; give --hostname)"}
		}
		return value{s: st.opt.Hostname}
	case "fastcgi_script_name":
		return value{s: st.fastcgiScriptName()}
	}
	switch {
	case lname == "http_host":
		if r.HasHost {
			return value{s: r.Host}
		}
		return value{}
	case strings.HasPrefix(lname, "http_"):
		return value{s: r.Headers[strings.ReplaceAll(lname[5:], "_", "-")]}
	case strings.HasPrefix(lname, "arg_"):
		return value{s: argValue(st.args, lname[4:])}
	case strings.HasPrefix(lname, "cookie_"):
		return value{s: cookieValue(r.Headers["cookie"], name[7:])}
	}
	if m := st.cfg.maps["$"+lname]; m != nil && st.depth < 10 {
		return st.evalMap(m)
	}
	return value{unknown: "$" + name}
}

func (st *state) serverName() string {
	if st.server == nil {
		return ""
	}
	for _, n := range st.server.Names {
		if n.re == nil {
			return n.Value
		}
	}
	return ""
}

// argValue finds a query argument as $arg_name does: the first, its name
// compared without regard to case, its value undecoded.
func argValue(args, name string) string {
	for _, kv := range strings.Split(args, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func cookieValue(h, name string) string {
	for _, c := range strings.Split(h, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(c), "=")
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// route's bound on what one request expands. nginx builds a value as long
// as memory lasts: each "set $e $e$e;" doubles one, so forty of them in a
// 600-byte file ask for a terabyte, and a chain of maps each naming the
// next many times asks for as many look-ups. No configuration that serves
// requests comes near either bound; past one, expand builds nothing more
// and the answer says it depends on what route did not expand.
const (
	maxExpandBytes   = 1 << 20 // bytes of values built for one request
	maxExpandLookups = 100_000 // variables looked up for one request
)

// expand substitutes variables in a directive argument.
func (st *state) expand(s string) value {
	if !strings.Contains(s, "$") {
		return value{s: s}
	}
	if st.over != "" {
		return value{unknown: st.over}
	}
	out := value{}
	var b strings.Builder
	last := 0
	for _, r := range knowledge.VarRefs(s) {
		if st.looked++; st.looked > maxExpandLookups {
			return st.exhausted(s, strconv.Itoa(maxExpandLookups)+" variable look-ups")
		}
		v := value{s: st.caps[r.Name]} // an unset capture is empty
		if r.Kind != knowledge.Capture {
			v = st.variable(r.Name)
		}
		if st.over != "" {
			return value{unknown: st.over}
		}
		if st.spent+b.Len()+r.Start-last+len(v.s) > maxExpandBytes {
			return st.exhausted(s, strconv.Itoa(maxExpandBytes>>20)+" MiB of variable values")
		}
		b.WriteString(s[last:r.Start])
		if v.unknown != "" && out.unknown == "" {
			out.unknown = v.unknown
		}
		b.WriteString(v.s)
		last = r.End
	}
	b.WriteString(s[last:])
	out.s = b.String()
	st.spent += len(out.s)
	return out
}

// exhausted stops expanding for the rest of the request: what s and every
// later value would have been is unknown.
func (st *state) exhausted(s, bound string) value {
	st.over = "the value of " + strconv.Quote(untrusted.Clip(s)) + ", past route's bound of " + bound +
		" for one request (route expands no further value, and whatever depends on one is not known)"
	return value{unknown: st.over}
}

// evalMap evaluates a map block for its source value.
func (st *state) evalMap(m *parser.Directive) value {
	st.depth++
	defer func() { st.depth-- }()
	src := st.expand(m.Arg(0))
	if src.unknown != "" {
		return src
	}
	var def value
	hostnames := false
	type entry struct{ key, val string }
	var exact []entry
	var res []*parser.Directive
	for _, e := range parser.Level(m.Block) {
		switch {
		case e.Name == "default" && len(e.Args) == 1:
			def = st.expand(e.Arg(0))
			continue
		case e.Name == "hostnames" && len(e.Args) == 0:
			hostnames = true
			continue
		case e.Name == "volatile" && len(e.Args) == 0:
			continue
		}
		if len(e.Args) != 1 {
			continue
		}
		key := e.Name
		if key == "\\default" || key == "\\hostnames" || key == "\\volatile" || key == "\\include" {
			key = key[1:]
		}
		if strings.HasPrefix(key, "~") {
			res = append(res, e)
			continue
		}
		exact = append(exact, entry{key, e.Arg(0)})
	}
	s := src.s
	for _, e := range exact {
		if e.key == s || (hostnames && strings.EqualFold(e.key, s)) {
			return st.expand(e.val)
		}
	}
	if hostnames {
		best, bestLen := "", -1
		for _, e := range exact {
			suffix := ""
			switch {
			case strings.HasPrefix(e.key, "*."):
				suffix = e.key[1:]
			case strings.HasPrefix(e.key, "."):
				suffix = e.key
				if strings.EqualFold(s, e.key[1:]) {
					return st.expand(e.val)
				}
			default:
				continue
			}
			if len(s) > len(suffix) && strings.HasSuffix(strings.ToLower(s), strings.ToLower(suffix)) && len(suffix) > bestLen {
				best, bestLen = e.val, len(suffix)
			}
		}
		if bestLen >= 0 {
			return st.expand(best)
		}
	}
	for _, e := range res {
		pat, ci := e.Name[1:], false
		if strings.HasPrefix(pat, "*") {
			pat, ci = pat[1:], true
		}
		caps, ok, why := matchCaps(st.cfg.compile(pat, ci), s)
		if why != "" {
			return value{unknown: "the map regex " + e.Name + " at " + st.at(e) + " (" + why + ")"}
		}
		if ok {
			st.caps = caps
			return st.expand(e.Arg(0))
		}
	}
	return def
}

// condition evaluates the argument list of an if block.
func (st *state) condition(d *parser.Directive) (bool, string) {
	args := d.ArgValues()
	if len(args) > 0 {
		args[0] = strings.TrimPrefix(args[0], "(")
		args[len(args)-1] = strings.TrimSuffix(args[len(args)-1], ")")
		if args[len(args)-1] == "" {
			args = args[:len(args)-1]
		}
		if len(args) > 0 && args[0] == "" {
			args = args[1:]
		}
	}
	switch len(args) {
	case 1:
		v := st.expand(args[0])
		if v.unknown != "" {
			return false, v.unknown
		}
		return v.s != "" && v.s != "0", ""
	case 2:
		op := args[0]
		neg := strings.HasPrefix(op, "!")
		switch strings.TrimPrefix(op, "!") {
		case "-f", "-d", "-e", "-x":
			p := st.expand(args[1])
			if p.unknown != "" {
				return false, p.unknown
			}
			if st.opt.Disk != nil {
				// an assumption: "-d" asks for a directory, the others
				// for a file
				return st.opt.Disk(p.s, strings.TrimPrefix(op, "!") == "-d") != neg, ""
			}
			if !st.opt.RootCheck {
				return false, "whether " + p.s + " exists on the disk (route checks it with --root-check)"
			}
			fi, err := os.Stat(p.s)
			ok := false
			switch strings.TrimPrefix(op, "!") {
			case "-f":
				ok = err == nil && fi.Mode().IsRegular()
			case "-d":
				ok = err == nil && fi.IsDir()
			case "-e":
				ok = err == nil
			case "-x":
				ok = err == nil && fi.Mode()&0o111 != 0
			}
			return ok != neg, ""
		}
	case 3:
		v := st.expand(args[0])
		if v.unknown != "" {
			return false, v.unknown
		}
		switch args[1] {
		case "=":
			return v.s == args[2], ""
		case "!=":
			return v.s != args[2], ""
		case "~", "~*", "!~", "!~*":
			caps, ok, why := matchCaps(st.cfg.compile(args[2], strings.HasSuffix(args[1], "*")), v.s)
			if why != "" {
				return false, "the regex " + args[2] + " (" + why + ")"
			}
			if ok {
				st.caps = caps
			}
			return ok != strings.HasPrefix(args[1], "!"), ""
		}
	}
	return false, "a condition route does not read: " + strings.Join(d.ArgValues(), " ")
}

// clientIn reports whether the client address is in an allow/deny operand.
func clientIn(client, operand string) bool {
	if operand == "all" {
		return true
	}
	ip := net.ParseIP(client)
	if ip == nil {
		return false
	}
	if strings.Contains(operand, "/") {
		_, n, err := net.ParseCIDR(operand)
		return err == nil && n.Contains(ip)
	}
	o := net.ParseIP(operand)
	return o != nil && o.Equal(ip)
}

// escapeURI writes a URI for a Location header or an upstream request the
// way nginx escapes it (spaces and controls, '%' kept when already an
// escape).
func escapeURI(s string) string {
	return (&url.URL{Path: s}).EscapedPath()
}
