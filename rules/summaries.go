package rules

import (
	"slices"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// listenFirsts are, per http block and address, the first listen of the
// tree's server blocks (in walk order) that marks the default server, and
// the first that gives socket options: all duplicate-definition's finding
// at a listen reads of other server blocks. order lists the keys as met,
// "d" or "o" before each.
type listenFirsts struct {
	defaults, options map[string]*parser.Directive
	order             []string
}

// listenFirstsKey keys listenFirstsOf's value of a run (Pass.Shared).
type listenFirstsKey struct{}

// listenFirstsOf is the tree's listenFirsts, worked out once per run: p
// walks the whole tree.
func listenFirstsOf(p *Pass) *listenFirsts {
	return p.Shared(listenFirstsKey{}, func() any {
		f := &listenFirsts{defaults: map[string]*parser.Directive{}, options: map[string]*parser.Directive{}}
		defs := &definitions{p: p}
		whole := len(mainRoots(p.Tree)) > 0
		// the server blocks of http and their listens (the listen visits
		// of a server block follow its visit), not each block's statements
		var server *parser.Directive
		var scope string
		var listens []*parser.Directive // the server's, so far
		p.Each(func(d *parser.Directive, c *parser.Context) {
			if d.Name == "server" {
				// another server directive (of an upstream, or one nested
				// in the block) leaves the block's listens to come its own
				if d.Block != nil && c.In() == parser.CtxHTTP && !engine.InStream(c) {
					server, listens = nil, listens[:0]
					if scope = defs.scopeIn(c); scope != "" {
						server = d
					}
				}
				return
			}
			if server == nil || len(c.Blocks) == 0 || c.Blocks[len(c.Blocks)-1] != server {
				return
			}
			// as serverListens meets them: the first listen of each socket
			// of the server (listensTwice reports the others); most
			// listens give neither, and are not keyed
			listens = append(listens, d)
			opts, def := socketOptions(d), whole && (hasArg(d, "default_server") >= 0 || hasArg(d, "default") >= 0)
			if !opts && !def || len(d.Args) == 0 {
				return
			}
			k := socketKey(d)
			if k == "" || slices.ContainsFunc(listens[:len(listens)-1], func(e *parser.Directive) bool { return len(e.Args) > 0 && sameSocket(e, d) }) {
				return
			}
			if _, ok := f.options[scope+k]; !ok && opts {
				f.options[scope+k] = d
				f.order = append(f.order, "o"+scope+k)
			}
			if _, ok := f.defaults[scope+k]; !ok && def {
				f.defaults[scope+k] = d
				f.order = append(f.order, "d"+scope+k)
			}
		}, "server", "listen")
		return f
	}).(*listenFirsts)
}

// duplicateSummary writes what duplicate-definition's findings in a
// server block read of the rest of the tree (engine.ScopeSummary): the
// first default server and socket options of each address, where they
// are. Not ok where a directive judged across the http block (upstream,
// log_format, a zone, a cache path) stands inside a server block, where a
// finding at it reads the other server blocks.
func duplicateSummary(p *Pass) (string, bool) {
	inServer := false
	p.Each(func(d *parser.Directive, c *parser.Context) {
		inServer = inServer || c.Enclosing(parser.CtxServer) != nil
	}, definedAcrossServers...)
	if inServer {
		return "", false
	}
	f := listenFirstsOf(p)
	var b strings.Builder
	for _, k := range f.order {
		l := f.options[k[1:]]
		if k[0] == 'd' {
			l = f.defaults[k[1:]]
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(l.File.Path))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(int(l.Line)))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(int(l.Col)))
		b.WriteByte('\n')
	}
	return b.String(), true
}

// sameSocket reports whether two listens of one server are keyed alike by
// listensTwice.
func sameSocket(a, b *parser.Directive) bool {
	return socketKey(a) == socketKey(b) && (hasArg(a, "udp") > 0) == (hasArg(b, "udp") > 0)
}
