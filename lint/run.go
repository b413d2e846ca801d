package lint

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
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
const GCPercent = 200

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
	gcPrevLimit = debug.SetMemoryLimit(-1) // as it is
	s.gcOff = true
	return func() {
		// the first collection's finalizer sets them too: one after the
		// other, so that what is restored is what stays
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcArmed {
			// a first collection still to come changes nothing now
			debug.SetMemoryLimit(gcPrevLimit)
			gcArmed = false
		}
		debug.SetGCPercent(prev)
		gcTuned.Store(false)
	}
}

var (
	gcTuned     atomic.Bool
	gcPrevLimit int64 // the memory limit before TuneGC
	// gcMu orders the first collection's finalizer and TuneGC's restore;
	// gcArmed, under it: the memory limit is the first tree's bound, and
	// the collection that ends it is yet to come
	gcMu    sync.Mutex
	gcArmed bool
)

// load is loader.Load for lint: once the first tree is read, the garbage
// collector, off while it was (see TuneGC), is turned on (gcAfterTree).
func (s *Settings) load(p string, opt loader.Options) (*loader.Tree, error) {
	t, err := loader.Load(p, opt)
	if s.gcOff {
		gcAfterTree(t)
		s.gcOff = false
	}
	return t, err
}

// gcLargeTree is the size of a tree's files from which gcAfterTree bounds
// the first collection by the heap: below it, GCPercent from the start
// costs nothing (the heap is a few MB), and reading the heap's size would
// cost a hook run a stop of the world.
const gcLargeTree = 1 << 20

// gcAfterTree turns the collector on once the first tree is loaded, with
// its first collection when the heap is three times what loading left
// (what GCPercent would allow had the collector marked the tree), not at
// once: GOGC counts from the heap the last collection found live, before
// the tree, and so started a collection as loading ended that marked the
// whole tree (100 MB on a 20,000-site tree, 50 ms of CPU) to free next to
// nothing. Until that first collection a memory limit holds the heap (the
// tree's three times, and 64 MiB more); from it on GCPercent decides, as
// before, from what it found live. A lint that never grows that far makes
// no collection at all. A tree under gcLargeTree, or GOMEMLIMIT in the
// environment (the limit is the user's), has GCPercent from the start.
func gcAfterTree(t *loader.Tree) {
	size := 0
	if t != nil {
		for _, f := range t.Files {
			size += len(f.Src)
		}
	}
	if size < gcLargeTree || os.Getenv("GOMEMLIMIT") != "" {
		debug.SetGCPercent(GCPercent)
		return
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m) // a brief stop, whatever the heap's size
	heap := int64(min(m.HeapAlloc, 1<<40))
	gcMu.Lock()
	gcArmed = true
	debug.SetMemoryLimit(3*heap + 64<<20)
	gcMu.Unlock()
	// the first collection finds the sentinel unreachable and runs its
	// finalizer: GCPercent takes over, counting from what it found live
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcArmed {
			debug.SetGCPercent(GCPercent)
			debug.SetMemoryLimit(gcPrevLimit)
			gcArmed = false
		}
	})
}

// gcSentinel is an object of its own (not the tiny allocator's, whose
// blocks hold several objects and free them together), to see the first
// collection by.
type gcSentinel struct{ _ *int }
