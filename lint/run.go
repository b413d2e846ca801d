package lint

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules"
)

// Result is what a run found: the findings, the trees they were found in,
// and whether a file could not be parsed to its end or read at all.
type Result struct {
	Diags  []finding.Diagnostic
	Broken bool
	Trees  []*loader.Tree
}

// Lint loads the trees of paths and runs the rules over them: the trees
// that include the paths with Options.Changed, a fragment that an
// nginx.conf above it includes inside that tree, else each path's own.
// Before it returns the nginx version is settled (Assumed), also on an
// error.
func (s *Settings) Lint(paths []string) (*Result, error) {
	diags, broken, trees, err := s.lint(paths)
	s.needVersion() // for the report, even when no tree was linted
	if err != nil {
		return nil, err
	}
	return &Result{Diags: diags, Broken: broken, Trees: trees}, nil
}

// lint is Lint, as a fix session reads the tree again after each round.
func (s *Settings) lint(paths []string) ([]finding.Diagnostic, bool, []*loader.Tree, error) {
	if s.opt.Changed {
		return s.lintChanged(paths)
	}
	// a fragment (a site, a snippet) that an nginx.conf above it
	// includes is linted inside that tree: the levels above decide
	// inheritance, upstreams and status pages
	if len(paths) == 1 && !s.opt.Fix && len(s.Roots) == 0 {
		if root := s.includedBy(paths[0]); root != "" {
			fmt.Fprintf(s.stderr, "nginxtune: %s is included by %s: linted inside that tree, findings in %s only\n", untrusted.Escape(RelPath(paths[0])), untrusted.Escape(RelPath(root)), untrusted.Escape(RelPath(paths[0])))
			return s.lintChanged(paths)
		}
	}
	return s.lintOnce(paths)
}

// lintOnce loads every path and runs the rules. broken is set when a file
// could not be parsed to its end.
func (s *Settings) lintOnce(paths []string) (diags []finding.Diagnostic, broken bool, trees []*loader.Tree, err error) {
	for _, p := range paths {
		t, err := s.load(p, s.Loader)
		if err != nil {
			return nil, false, nil, err
		}
		broken = broken || treeBroken(t)
		s.needVersion()
		cfg := s.Config
		if !cfg.Version.Known() && t.Dump && len(t.Roots) > 0 {
			// "nginx -T | nginxtune lint -" on the server: the dump names
			// the installed nginx's files
			if v := liveVersion(t.Roots[0].Path, s.nginx); v.Known() {
				cfg.Version = v
				s.dumpVersion = v
				fmt.Fprintf(s.stderr, "nginxtune: linting for nginx %s, the installed nginx (the dump reads %s); give --nginx-version if it comes from another machine\n", v, untrusted.Escape(t.Roots[0].Path))
			}
		}
		trees = append(trees, t)
		found, notShown := rules.RunCounted(t, cfg)
		s.notShown += notShown
		diags = append(diags, found...)
	}
	return diags, broken, trees, nil
}

// treeBroken reports whether a file of t could not be parsed to its end or
// read at all.
func treeBroken(t *loader.Tree) bool {
	for _, f := range t.Files {
		if f.Broken {
			return true
		}
	}
	return len(t.Unreadable) > 0
}

// GCPercent is the garbage collector's GOGC for lint once the tree is
// loaded: the heap may grow to three times what is live between
// collections, not two. A lint's heap only grows (the tree, then the
// findings) and the process ends after one pass, so each collection
// mostly marks what stays: on the 20,000-server trees of make bench-lint
// this makes six collections four and the run 7 % shorter, for 13 % more
// peak memory (still a fifth of what nginx -t takes for the same tree, so
// a tree too large for this is far too large for nginx).
//
// While the first tree is read the collector is off: nearly everything
// loading allocates is the tree itself, which stays, so the two or three
// collections it made found next to nothing to free, and took a core
// from the parsers for 50-100 ms on those trees. The tree's size is
// bounded (loader.MaxTreeBytes, the visit bounds), and so is what loading
// leaves behind. GOGC in the environment is left to decide.
//
// Once the tree is read, the collector stays off and a memory limit of
// that many percent more than the heap the reading left (and at least
// gcHeadroom more) bounds the run instead: the one collection that turning
// GOGC 200 on started right after loading marked the whole tree, which
// stays, beside the rules (130 ms of CPU on the 20,000-site tree of make
// bench-lint, 100 MB marked, 2 MB freed), and peak memory was the same
// without it.
const GCPercent = 200

// gcHeadroom is the least a lint's heap may grow past the loaded tree
// before the collector runs: room for the findings of a small tree
// (MaxFindings of them at most, each message cut at 1 KB), which the
// collector could not free either.
const gcHeadroom = 256 << 20

// TuneGC sets the collector up for a run of a command that ends after it
// (see GCPercent) and returns what puts it back as it was (tests run lint
// in-process).
func (s *Settings) TuneGC() (restore func()) {
	// the setting is the process's: one lint at a time sets it (a second
	// one running alongside, as tests may, runs with what is set)
	if os.Getenv("GOGC") != "" || !gcTuned.CompareAndSwap(false, true) {
		return func() {}
	}
	prev := debug.SetGCPercent(-1)
	prevLimit := debug.SetMemoryLimit(-1)
	s.gcOff = true
	return func() {
		debug.SetGCPercent(prev)
		debug.SetMemoryLimit(prevLimit)
		s.gcOff, s.gcLimit = false, 0
		gcTuned.Store(false)
	}
}

var gcTuned atomic.Bool

// load is loader.Load for lint: with the garbage collector off (see
// TuneGC), each tree read raises the memory limit that bounds the run to
// GCPercent more than the heap it left (at least gcHeadroom more), so that
// a large tree linted after a small one is not held to the small one's.
func (s *Settings) load(p string, opt loader.Options) (*loader.Tree, error) {
	t, err := loader.Load(p, opt)
	if s.gcOff {
		heap := heapBytes()
		if limit := max(heap*(100+GCPercent)/100, heap+gcHeadroom); limit > s.gcLimit {
			s.gcLimit = limit
			debug.SetMemoryLimit(limit)
		}
	}
	return t, err
}

// heapBytes is the size of the heap's objects (runtime/metrics reads it
// without stopping the program, but its package's initialisation costs
// every run, a hook's too, more than stopping a program that waits for
// nothing else).
func heapBytes() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
