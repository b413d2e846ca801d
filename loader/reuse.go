package loader

import (
	"bytes"
	"sync"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
)

// Reuse keeps the files one load parsed for the next loads of the same
// tree (Options.Reuse): an editor loads the tree again on every keystroke,
// and only the buffer typed in has changed. It saves the parse, nothing
// else: the loader resolves every include, checks the boundary, reads each
// file (or takes its overlay) as it does without it, and only then, where
// it would parse the bytes it read, takes the file parsed before from the
// same real path, the same file on disk (device and inode) under the same
// name, and byte for byte the same text. What it hands out is what
// parsing those bytes gives.
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
	var diag *finding.Diagnostic
	if e.diag != nil {
		d := *e.diag
		diag = &d
	}
	return e.f, diag
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
			continue
		}
		if root[f] || f.Dev == 0 && f.Ino == 0 || f.Context != nil || hasInclude(f) {
			continue
		}
		e := &reused{f: f, load: r.loads}
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

// hasInclude reports whether a file holds an include directive the loader
// would resolve (and record in it).
func hasInclude(f *parser.File) bool {
	found := false
	parser.WalkFile(f.Directives, func(d *parser.Directive) {
		found = found || d.Name == "include"
	})
	return found
}
