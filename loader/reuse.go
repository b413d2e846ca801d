package loader

import (
	"bytes"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
)

// Reuse keeps the files one load parsed for the next loads of the same
// tree (Options.Reuse): an editor loads the tree again on every keystroke,
// and only the buffer typed in has changed. It saves the parse, and the
// read of a file unchanged on disk: the loader resolves every include,
// checks the boundary and stats each file as it does without it; where a
// stat says a file kept is unchanged since the load that read it (the
// same device, inode, size, modification and change times, the change
// racyWindow before that load: Reuse.unchanged) it takes the file without
// reading it; otherwise it reads the file (or takes its overlay), and
// where it would parse the bytes it read, takes the file parsed before
// from the same real path, the same file on disk (device and inode) under
// the same name, and byte for byte the same text. What it hands out is
// what parsing those bytes gives.
//
// A file is kept only when no load writes to it: one without include
// directives (the loader records an include's files in its directive) that
// is not a root (whose context the loader settles). The trees of
// successive loads share such files, as the rules of one run share a
// tree: they are to be read, not changed. Loads that share a Reuse run
// one at a time. The files of the last two loads are kept, no more.
type Reuse struct {
	mu    sync.Mutex
	loads uint64
	files map[string]*reused // by real path
}

type reused struct {
	f    *parser.File
	diag *finding.Diagnostic // the parse's syntax error, nil when none
	load uint64              // the last load that met the file
	// st: what a stat said of the file before the load that read the
	// bytes kept, when nothing can have changed them unseen since (stable);
	// nil when the file is read again
	st os.FileInfo
}

// racyWindow is how long before a load a file must have last changed for
// a stat to tell that it is unchanged since: file systems keep times in
// ticks (a few milliseconds; two seconds on FAT), so a file written in the
// tick of the load's read could be written again with the same size and
// times. (A variable so that a test can read files it just wrote.)
var racyWindow = 3 * time.Second

// stable reports whether what a stat taken during a load that started at
// start says of a file tells every later change: its change time lies
// racyWindow or more before start.
func stable(st os.FileInfo, start time.Time) bool {
	c, ok := changeTime(st)
	return ok && st.Mode().IsRegular() && c < start.Add(-racyWindow).UnixNano()
}

// unchanged returns the file kept from the real path when a stat of it
// says it is the file whose bytes the load that kept it read, unchanged
// since: the same device and inode, size, modification and change times
// (any write, rename onto it or change of its times moves the change
// time, which no call sets back), with a copy of its syntax error. The
// loader then takes its bytes and parse without reading the file again.
func (r *Reuse) unchanged(real string, st os.FileInfo) (*parser.File, *finding.Diagnostic) {
	if r == nil || st == nil {
		return nil, nil
	}
	e := r.files[real]
	if e == nil || e.st == nil || e.f.Path != real || !sameStat(e.st, st) {
		return nil, nil
	}
	return e.f, e.diagCopy()
}

// sameStat reports whether two stats of a file say the same of it.
func sameStat(a, b os.FileInfo) bool {
	ca, ok := changeTime(a)
	cb, ok2 := changeTime(b)
	sa, sb := a.Sys().(*syscall.Stat_t), b.Sys().(*syscall.Stat_t)
	return ok && ok2 && ca == cb && sa != nil && sb != nil && sa.Dev == sb.Dev && sa.Ino == sb.Ino &&
		a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && a.Mode() == b.Mode()
}

func (e *reused) diagCopy() *finding.Diagnostic {
	if e.diag == nil {
		return nil
	}
	d := *e.diag
	return &d
}

// take returns the file parsed before from the same real path and bytes,
// with a copy of its syntax error, or nil. Safe while other goroutines of
// the same load take (prefetch): the map is written only by keep.
func (r *Reuse) take(real string, b []byte) (*parser.File, *finding.Diagnostic) {
	if r == nil {
		return nil, nil
	}
	e := r.files[real]
	if e == nil || e.f.Path != real || !bytes.Equal(e.f.Src, b) {
		return nil, nil
	}
	return e.f, e.diagCopy()
}

// keep records the files of a finished load that no load writes to, and
// forgets those the last two loads did not meet.
func (r *Reuse) keep(l *loader, roots []string) {
	r.loads++
	if r.files == nil {
		r.files = map[string]*reused{}
	}
	root := map[*parser.File]bool{}
	for _, p := range roots {
		root[l.tree.byPath[p]] = true
	}
	for _, f := range l.tree.Roots {
		root[f] = true
	}
	for _, f := range l.tree.Files {
		if e := r.files[f.Path]; e != nil && e.f == f {
			e.load = r.loads
			if !l.unread[f] {
				// its bytes read and compared in this load
				e.st = l.stableStat(f)
			}
			continue
		}
		if root[f] || f.Dev == 0 && f.Ino == 0 || f.Context != nil || hasInclude(f) {
			continue
		}
		e := &reused{f: f, load: r.loads, st: l.stableStat(f)}
		if d := l.syntax[f]; d != nil {
			c := *d
			e.diag = &c
		}
		r.files[f.Path] = e
	}
	for p, e := range r.files {
		if e.load+1 < r.loads {
			delete(r.files, p)
		}
	}
}

// stableStat is what this load's stat said of a file it read, when it
// tells every later change (stable), else nil.
func (l *loader) stableStat(f *parser.File) os.FileInfo {
	if _, ok := l.opt.Overlay[f.Path]; ok {
		return nil // its bytes are the overlay's, not what the stat describes
	}
	if st := l.stats[f.Path]; st != nil && stable(st, l.start) {
		return st
	}
	return nil
}

// hasInclude reports whether a file holds an include directive the loader
// would resolve (and record in it).
func hasInclude(f *parser.File) bool {
	found := false
	parser.WalkFile(f.Directives, func(d *parser.Directive) {
		found = found || d.Name == "include"
	})
	return found
}
