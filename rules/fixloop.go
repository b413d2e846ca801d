package rules

import (
	"errors"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// MaxFixPasses bounds the rounds of fixing: a fix can make room for
// another (a new upstream block, then the headers its proxy_pass needs), so
// fixes are applied, the tree linted again, and the new fixes applied, at
// most this many times.
const MaxFixPasses = 5

// ErrFixBroke says a round of fixes left a tree that read whole before
// unreadable: a bug of a rule's fix; the caller restores the files.
var ErrFixBroke = errors.New("the fixes left the configuration unreadable")

// FixSession is the one loop of fixing, for the command's --fix, the
// fixture harness and the fuzz target: what differs is how a tree is
// linted and how a round's edits are written.
type FixSession struct {
	// Lint reads the tree again and runs the rules.
	Lint func() (diags []finding.Diagnostic, broken bool, trees []*loader.Tree, err error)
	// Apply writes one round's edits (chosen by SelectFixes, not
	// overlapping) all or nothing, and returns the files it changed; the
	// command's writes atomically through the file that was read.
	Apply func(set engine.FixSet, trees []*loader.Tree) (written []string, err error)
	// Outside is told of the files a fix would have written that are not
	// part of the tree (never written).
	Outside func(file string)
}

// FixResult is what a session did.
type FixResult struct {
	Fixes   int      // findings whose fix was applied
	Written []string // files changed, in the order first written
	// the tree and findings after the last round
	Diags  []finding.Diagnostic
	Trees  []*loader.Tree
	Broken bool
}

// Run applies the fixes of diags (the findings of trees) in rounds. After
// the first round it applies only what the user was shown: fixes of a rule
// the first report had a fixable finding of in that file, and of the
// follow-up rules of those (followUpOf); anything else a fix brings up is
// left for the report. The written files are in the result also when an
// error ends the run, for the caller to restore.
func (s FixSession) Run(diags []finding.Diagnostic, trees []*loader.Tree, broken bool) (FixResult, error) {
	res := FixResult{Diags: diags, Trees: trees, Broken: broken}
	shown, shownRule := map[string]bool{}, map[string]bool{}
	for _, d := range diags {
		if d.Fix != nil {
			shown[d.Rule+"\x00"+d.File] = true
			shownRule[d.Rule] = true
		}
	}
	followUp := func(rule string) bool {
		for _, parent := range followUpOf[rule] {
			if shownRule[parent] {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	wasBroken := broken
	for pass := 0; pass < MaxFixPasses; pass++ {
		for i, d := range res.Diags {
			if pass > 0 && d.Fix != nil && !shown[d.Rule+"\x00"+d.File] && !followUp(d.Rule) {
				res.Diags[i].Fix = nil // reported, fixable by another run
			}
		}
		set := engine.SelectFixes(res.Diags, inTrees(res.Trees))
		if s.Outside != nil {
			for _, f := range set.Outside {
				s.Outside(f)
			}
		}
		if set.Fixes == 0 {
			break
		}
		written, err := s.Apply(set, res.Trees)
		for _, f := range written {
			if !seen[f] {
				seen[f] = true
				res.Written = append(res.Written, f)
			}
		}
		if err != nil {
			return res, err
		}
		if len(written) == 0 {
			break // nothing changed on disk (read-only files, say)
		}
		res.Fixes += set.Fixes
		if res.Diags, res.Broken, res.Trees, err = s.Lint(); err != nil {
			return res, err
		}
		if res.Broken && !wasBroken {
			return res, ErrFixBroke
		}
	}
	return res, nil
}

// inTrees accepts the files the trees read from inside themselves: a file
// read from outside the tree (through --allow-outside, a live include) is
// never written.
func inTrees(trees []*loader.Tree) func(string) bool {
	in := map[string]bool{}
	for _, t := range trees {
		for _, f := range t.Files {
			in[f.Path] = true
		}
		for _, p := range t.Outside {
			delete(in, p)
		}
	}
	return func(file string) bool { return in[file] }
}

// followUpOf names, for a rule, the rules whose fixes make its findings
// appear: --fix applies them in a later pass although the first report did
// not show them, since the first fix's description promised them (a new
// upstream with keepalive needs HTTP/1.1 and an empty Connection header
// where it is proxied to). Any other finding a fix brings up is reported,
// not applied: --fix changes only what the user was shown.
var followUpOf = map[string][]string{
	"proxy-keepalive-headers": {"upstream-keepalive"},
}
