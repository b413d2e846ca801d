package rules

import (
	"fmt"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Helpers of the rules about the settings of servers that serve files
// (sendfile-off, tcp_nopush and the like): where such a setting is
// missing or off, and how a finding names the servers.

// reportStaticSetting reports a directive missing from the scope of the
// servers that serve files: once per http block when the whole http level
// lacks it, naming the first such server, or at the directive that turns it
// off. skip leaves out servers where the setting does not matter.
func reportStaticSetting(p *Pass, name string, bad func(d *parser.Directive) bool, skip func(hs httpServer) bool,
	missing func(at *parser.Directive, first *parser.Directive, n int) finding.Diagnostic, off func(d *parser.Directive) finding.Diagnostic) {
	type group struct {
		at, first *parser.Directive
		n         int
	}
	var order []*group
	byAt := map[*parser.Directive]*group{}
	for _, hs := range p.httpServers() {
		s, c := hs.s, hs.c
		if !hs.files || (skip != nil && skip(hs)) {
			continue
		}
		set := p.EffectiveIn(c, s, name)
		switch {
		case set.Found() && bad(set.Last()):
			p.Report(off(set.Last()))
		case !set.Found() && set.Complete:
			at := c.Enclosing(parser.CtxHTTP)
			if at == nil {
				at = s
			}
			g := byAt[at]
			if g == nil {
				g = &group{at: at, first: s}
				byAt[at] = g
				order = append(order, g)
			}
			g.n++
		}
	}
	for _, g := range order {
		p.Report(missing(g.at, g.first, g.n))
	}
}

// serverName names a server block for messages: its first server_name and
// where it is.
func serverName(s *parser.Directive) string {
	name := ""
	if ns := engine.FindIn(s.Block, "server_name"); len(ns) > 0 && len(ns[0].Args) > 0 {
		name = ns[0].Arg(0)
		if len(name) > 40 {
			name = name[:37] + "..."
		}
		name += " "
	}
	return fmt.Sprintf("server %sat %s", name, where(s))
}

// serversNote says which servers a finding at the http block is about.
func serversNote(first *parser.Directive, n int) string {
	if n > 1 {
		return fmt.Sprintf("%s and %d more serve files", serverName(first), n-1)
	}
	return serverName(first) + " serves files"
}
