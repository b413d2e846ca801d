// Package route answers which server and location of an nginx configuration
// answer a request, and what happens there, by the rules nginx applies
// (src/http/ngx_http_core_module.c: ngx_http_core_find_location and
// ngx_http_core_find_static_location; ngx_http_request.c:
// ngx_http_find_virtual_server; ngx_http_parse.c:
// ngx_http_parse_complex_uri; the rewrite module's script engine).
//
// Where the answer depends on something the configuration does not decide
// (the disk, a variable set by a module, the client's address when none is
// given), the result says so in Unknown instead of guessing.
package route

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// Config is the http part of a tree, read once for many requests.
type Config struct {
	Tree *loader.Tree
	// HTTP is the http block's statements, includes read in place.
	HTTP    []*parser.Directive
	httpDir *parser.Directive
	Servers []*Server
	// Fragment is set when the tree's root is not a main file: other
	// servers may share an address in files route did not see.
	Fragment bool
	maps     map[string]*parser.Directive // "$name" -> its map block
	regexes  map[string]*compiled
	picks    map[string]addrPick // pickAddress's answers by address and port
	// plain is the http level's directives without blocks (servers,
	// upstreams, maps): what a level's settings are read from, without
	// walking every server of a large tree for each one
	plain []*parser.Directive
}

// Server is one http server block.
type Server struct {
	Dir     *parser.Directive
	Body    []*parser.Directive // its statements, includes read in place
	Listens []Listen
	Names   []Name
	Locs    []*Loc
	named   map[string]*Loc
	index   int
}

// Listen is one listen directive as nginx reads its address.
type Listen struct {
	Dir     *parser.Directive
	Unix    string // the socket path for unix: addresses
	IP      string // "" for a wildcard
	V6      bool
	Port    int
	Default bool
	SSL     bool
	// Implicit is set for the *:80 a server without listen gets.
	Implicit bool
}

// Condition is an if block's condition as written, without the
// parentheses.
func Condition(d *parser.Directive) string {
	if d.BlockOpen < 0 {
		return strings.Join(d.ArgValues(), " ")
	}
	c := strings.TrimSpace(d.File.SrcText(int(d.Start)+2, int(d.BlockOpen)))
	c = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(c, "("), ")"))
	return c
}

// Name is one server_name value.
type Name struct {
	Dir   *parser.Directive
	Value string
	re    *compiled
}

// Loc is one location block.
type Loc struct {
	Dir     *parser.Directive
	Mod     string // "=", "^~", "~", "~*", "@" or "" (a plain prefix)
	Pattern string
	Body    []*parser.Directive
	Locs    []*Loc
	Parent  *Loc
	re      *compiled
	// autoRedirect: a prefix ending in "/" whose own block names a
	// proxy_pass (or fastcgi_pass, ...): nginx answers the URI without
	// the slash with a 301 to it
	autoRedirect bool
}

// compiled is a regular expression as nginx's PCRE would run it: Go's
// regexp where the two agree (the pattern has nothing Go lacks and the
// subject is printable ASCII), else route's backtracking matcher (pcre.go),
// else why route cannot run it. On other subjects the two differ: PCRE's
// "$" matches before a final newline ("\.php$" matches "/x.php%0A"), its
// "." is one byte, not one UTF-8 character, and its \s has .
type compiled struct {
	re  *regexp.Regexp
	bt  *pcre
	err string
}

// find runs the expression on s: the submatch indexes as
// regexp.FindStringSubmatchIndex returns them (nil: no match), or why
// route cannot tell.
func (c *compiled) find(s string) (idx []int, why string) {
	switch {
	case c.re != nil && printableASCII(s):
		return c.re.FindStringSubmatchIndex(s), ""
	case c.re != nil && c.bt == nil:
		return nil, "the subject " + strconv.Quote(untrusted.Clip(s)) + " is not printable ASCII, where PCRE and Go's regexp may differ, and the pattern has what route's matcher does not run"
	case c.bt != nil:
		idx, over := c.bt.run(s)
		if over {
			return nil, fmt.Sprintf(errBound, maxSteps)
		}
		return idx, ""
	}
	return nil, c.err
}

// subexpNames are the names of the groups, "" for unnamed ones.
func (c *compiled) subexpNames() []string {
	if c.re != nil {
		return c.re.SubexpNames()
	}
	if c.bt != nil {
		return c.bt.names
	}
	return nil
}

// Label is how a location is written: "= /x", "~ \.php$", "/".
func (l *Loc) Label() string {
	if l.Mod == "" || l.Mod == "@" {
		return l.Pattern
	}
	return l.Mod + " " + l.Pattern
}

// Label names a server by its first server_name, or its listen when it has
// none.
func (s *Server) Label() string {
	for _, n := range s.Names {
		if n.Value != "" {
			return n.Value
		}
	}
	if len(s.Listens) > 0 && !s.Listens[0].Implicit {
		return "(no name, listen " + s.Listens[0].Dir.Arg(0) + ")"
	}
	return `(no name)`
}

// Build reads the http servers of a loaded tree.
func Build(t *loader.Tree) *Config {
	c := &Config{Tree: t, maps: map[string]*parser.Directive{}, regexes: map[string]*compiled{}}
	for _, r := range t.Roots {
		top := parser.Level(r.Directives)
		switch strings.Join(r.Context, ",") {
		case "main":
			for _, d := range top {
				if d.Name == "http" && d.Block != nil {
					c.httpDir = d
					c.HTTP = append(c.HTTP, parser.Level(d.Block)...)
				}
			}
		case "main,http":
			c.Fragment = true
			c.HTTP = append(c.HTTP, top...)
		default:
			c.Fragment = true
		}
	}
	for _, d := range c.HTTP {
		switch d.Name {
		case "server":
			if d.Block != nil {
				c.Servers = append(c.Servers, c.server(d, len(c.Servers)))
			}
		case "map":
			if len(d.Args) == 2 && d.Block != nil {
				c.maps[strings.ToLower(d.Arg(1))] = d
			}
		}
	}
	return c
}

func (c *Config) server(d *parser.Directive, i int) *Server {
	s := &Server{Dir: d, Body: parser.Level(d.Block), index: i, named: map[string]*Loc{}}
	for _, x := range s.Body {
		switch x.Name {
		case "listen":
			if l, ok := parseListen(x); ok {
				s.Listens = append(s.Listens, l)
			}
		case "server_name":
			for _, a := range x.Args {
				n := Name{Dir: x, Value: strings.ToLower(a.Value)}
				if a.Value == "$hostname" {
					n.Value = a.Value
				}
				if strings.HasPrefix(a.Value, "~") {
					n.Value = a.Value
					n.re = c.compile(a.Value[1:], true)
				}
				s.Names = append(s.Names, n)
			}
		}
	}
	if len(s.Listens) == 0 {
		s.Listens = []Listen{{Dir: d, Port: 80, Implicit: true}}
	}
	if len(s.Names) == 0 {
		s.Names = []Name{{Dir: d, Value: ""}}
	}
	s.Locs = c.locations(s.Body, nil, s)
	return s
}

func (c *Config) locations(body []*parser.Directive, parent *Loc, s *Server) []*Loc {
	var out []*Loc
	for _, d := range body {
		if d.Name != "location" || d.Block == nil {
			continue
		}
		l := &Loc{Dir: d, Parent: parent, Body: parser.Level(d.Block)}
		l.Mod, l.Pattern = locationArgs(d)
		switch l.Mod {
		case "~":
			l.re = c.compile(l.Pattern, false)
		case "~*":
			l.re = c.compile(l.Pattern, true)
		case "@":
			if _, dup := s.named[l.Pattern]; !dup {
				s.named[l.Pattern] = l
			}
		}
		if (l.Mod == "" || l.Mod == "^~" || l.Mod == "=") && strings.HasSuffix(l.Pattern, "/") {
			for _, x := range l.Body {
				if knowledge.IsPassHandler(x.Name) {
					l.autoRedirect = true
				}
			}
		}
		l.Locs = c.locations(l.Body, l, s)
		out = append(out, l)
	}
	return out
}

// locationArgs reads a location's modifier and pattern in both spellings
// nginx accepts: "location = /x" and "location =/x".
func locationArgs(d *parser.Directive) (mod, pattern string) {
	if len(d.Args) >= 2 {
		return d.Arg(0), d.Arg(1)
	}
	p := d.Arg(0)
	switch {
	case strings.HasPrefix(p, "="):
		return "=", p[1:]
	case strings.HasPrefix(p, "^~"):
		return "^~", p[2:]
	case strings.HasPrefix(p, "~*"):
		return "~*", p[2:]
	case strings.HasPrefix(p, "~"):
		return "~", p[1:]
	case strings.HasPrefix(p, "@"):
		return "@", p
	}
	return "", p
}

// httpPlain is the http level without its blocks.
func (c *Config) httpPlain() []*parser.Directive {
	if c.plain == nil {
		c.plain = make([]*parser.Directive, 0, 16)
		for _, d := range c.HTTP {
			if d.Block == nil {
				c.plain = append(c.plain, d)
			}
		}
	}
	return c.plain
}

// compile turns a PCRE pattern into Go's regexp where the two agree.
func (c *Config) compile(pattern string, caseless bool) *compiled {
	key := pattern
	if caseless {
		key = "(?i)" + key
	}
	if r, ok := c.regexes[key]; ok {
		return r
	}
	r := &compiled{}
	if unsupported(pattern) == "" {
		if re, err := regexp.Compile(key); err == nil {
			r.re = re
		}
	}
	// for the constructs Go's engine lacks or reads otherwise, and for
	// subjects on which the two differ
	if bt, err := compilePCRE(pattern, caseless); err == nil {
		r.bt = bt
	} else if r.re == nil {
		r.err = err.Error() + ", which route's matcher does not run"
	}
	c.regexes[key] = r
	return r
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// unsupported names PCRE constructs Go's engine lacks or reads otherwise.
func unsupported(p string) string {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 < len(p) {
				switch n := p[i+1]; {
				case n >= '1' && n <= '9':
					return "a back-reference (\\" + string(n) + ")"
				case n == 'Z' || n == 'G' || n == 'K' || n == 'R' || n == 'X' || n == 'h' || n == 'H' || n == 'v' || n == 'V' || n == 'g' || n == 'k':
					return "the PCRE escape \\" + string(n)
				}
			}
			i++
		case '(':
			rest := p[i+1:]
			for _, pre := range []string{"?=", "?!", "?<=", "?<!", "?>", "?'", "?|", "?#", "?R", "?&", "?("} {
				if strings.HasPrefix(rest, pre) {
					return "the PCRE group (" + pre
				}
			}
		case '+', '*', '?', '}':
			if i+1 < len(p) && p[i+1] == '+' && i > 0 && p[i-1] != '\\' {
				return "a possessive quantifier"
			}
		}
	}
	return ""
}

// parseListen reads a listen directive's address and the flags route uses.
func parseListen(d *parser.Directive) (Listen, bool) {
	l := Listen{Dir: d, Port: 80}
	a := d.Arg(0)
	if a == "" || strings.Contains(a, "$") {
		return l, false
	}
	for _, x := range d.Args[1:] {
		switch x.Value {
		case "default_server", "default":
			l.Default = true
		case "ssl":
			l.SSL = true
		}
	}
	if strings.HasPrefix(a, "unix:") {
		l.Unix, l.Port = a[5:], 0
		return l, true
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return l, false
		}
		host, l.V6 = a[1:end], true
		if rest := a[end+1:]; strings.HasPrefix(rest, ":") {
			port = rest[1:]
		}
		if host == "::" {
			host = ""
		}
	} else if h, p, ok := strings.Cut(a, ":"); ok {
		host, port = h, p
	} else if strings.Trim(a, "0123456789") == "" {
		host, port = "", a
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return l, false
		}
		l.Port = n
	}
	switch host {
	case "*", "0.0.0.0", "":
		host = ""
	case "localhost":
		host = "127.0.0.1"
	}
	l.IP = strings.ToLower(host)
	return l, true
}
