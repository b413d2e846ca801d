package rules

import (
	"bytes"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Pass is what a rule's check receives: the engine's pass, and what the
// analyses several rules share work out once per pass.
type Pass struct {
	*engine.Pass
	// what a variable's set and map definitions bring (definedTaint):
	// worked out once, cycles cut
	taintMemo map[string]taint
	taintBusy map[string]bool
	taintCut  bool
	// what a rewrite sets the URI to (rewriteTaintOnce) and whether its
	// regex matches every path (matchesAnyPath), by rewrite and regex
	rewriteMemo map[*parser.Directive]taint
	anyPath     map[string]bool
	// how the http *_pass directives use addresses (passUses)
	uses *passUses
	// the upstream blocks a *_pass may name (upstreamsFor)
	upstreams map[upstreamsKey]map[string]*parser.Directive
	// the run's shared values (Pass.Shared), kept at hand: they are asked
	// for per directive
	langc  *langCache
	taints *taintScope
	named  map[string]bool
}

// check is a rule's check as the engine runs it: over a Pass of the rules.
func check(f func(*Pass)) func(*engine.Pass) {
	return func(p *engine.Pass) { f(&Pass{Pass: p}) }
}

// summary is a ScopeSummary rule's Summary as the engine calls it: over
// a Pass of the rules.
func summary(f func(*Pass) (string, bool)) func(*engine.Pass) (string, bool) {
	return func(p *engine.Pass) (string, bool) { return f(&Pass{Pass: p}) }
}

// whole is p over the whole tree's walk (engine.Pass.WholeTree): p itself
// except where a ScopeSummary rule walks the server blocks an edit
// touched, and reads there what its summary covers.
func (p *Pass) whole() *Pass {
	w := p.WholeTree()
	if w == p.Pass {
		return p
	}
	return &Pass{Pass: w}
}

// For is the pass of another rule of the run that reports with p
// (engine.Pass.For), sharing p's memos; nil when that rule is disabled.
func (p *Pass) For(id string) *Pass {
	ep := p.Pass.For(id)
	if ep == nil {
		return nil
	}
	q := *p
	q.Pass = ep
	return &q
}

// namedGroupsKey keys namedGroups' value of a run (Pass.Shared).
type namedGroupsKey struct{}

// namedGroups are the names of the named capture groups in the tree's
// arguments and map keys, each a variable the match defines. Collected once:
// unknownVariables counts them as defined, and taint looks a variable up as
// a capture only when it is one of them (that walk is not free).
func (p *Pass) namedGroups() map[string]bool {
	if p.named != nil {
		return p.named
	}
	// the whole tree's, also where the rule walks part of it
	// (engine.ScopeSummary)
	w := p.whole()
	p.named = w.Shared(namedGroupsKey{}, func() any {
		named := map[string]bool{}
		add := func(s string) {
			for _, n := range knowledge.NamedCaptures(s) {
				named[n] = true
			}
		}
		// a group's "(?" is in the file's text as written (no escape makes
		// either byte), so only the arguments of files that hold one are
		// read: most files have none, and reading every argument of a
		// large tree was the cost
		holds := map[*parser.File]bool{}
		var last *parser.File
		lastHolds := false
		for _, v := range w.Visits() {
			if f := v.D.File; f != last {
				h, ok := holds[f]
				if !ok {
					h = fileHolds(f, "(?")
					holds[f] = h
				}
				last, lastHolds = f, h
			}
			if !lastHolds {
				continue
			}
			for _, a := range v.D.Args {
				add(a.Value)
			}
		}
		w.Each(func(d *parser.Directive, _ *parser.Context) {
			for _, e := range d.Block {
				add(e.Name)
			}
		}, "map")
		return named
	}).(map[string]bool)
	return p.named
}

// fileHolds reports whether f's text holds s, for a string no escape
// writes (letters, digits, "_", a group's "(?"): a name or value holds it
// only where the text does; true for a file whose text is not kept.
func fileHolds(f *parser.File, s string) bool {
	return f == nil || len(f.Src) == 0 || bytes.Contains(f.Src, []byte(s))
}
