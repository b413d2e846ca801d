package format

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// A Job is one file whose layout changes: the file as read, the name it
// is shown by and its new bytes.
type Job struct {
	File *parser.File
	Name string
	Data []byte
}

// Batch works out, tree by tree, what formatting a set of files writes.
// Each file is judged alone: one that cannot be formatted is a problem of
// its own, and the others are still formatted.
type Batch struct {
	Options Options
	// RootsOnly formats the trees' main files only, not what they include
	// (the pre-commit hook's changed files).
	RootsOnly bool
	// Foreign reports whether a main file that does not read whole is
	// another program's file rather than a broken configuration (RootsOnly
	// skips it); nil: never.
	Foreign func(path string, f *parser.File) bool
	// Name is how a path is shown (relative to the working directory).
	Name func(path string) string

	Jobs     []Job
	Problems []error  // one per file that cannot be formatted
	Skipped  []string // the paths of the foreign files RootsOnly passed over
	// Outside says, one line each, what the trees include from outside
	// themselves (a link out): read by nginx, never formatted here.
	Outside []string
	seen    map[string]bool
}

// Add plans the files of a tree loaded from path.
func (b *Batch) Add(path string, t *loader.Tree) {
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	name := b.Name
	if name == nil {
		name = func(p string) string { return p }
	}
	files := t.Files
	if b.RootsOnly {
		files = t.Roots
		// a file that reads whole is formatted as standard input is; one
		// that does not, with no nginx directive before its error, is
		// another program's
		if len(t.Roots) == 1 && rootBroken(t) && b.Foreign != nil && b.Foreign(path, t.Roots[0]) {
			b.Skipped = append(b.Skipped, path)
			return
		}
	}
	broken := map[string]bool{}
	for _, d := range t.Diagnostics {
		if unreadable(d) && (!b.RootsOnly || isRoot(t, d.File)) && !broken[d.File] {
			broken[d.File] = true
			b.Problems = append(b.Problems, fmt.Errorf("%s:%d:%d: %s (not formatted)", name(d.File), d.Line, d.Col, d.Message))
		}
	}
	for _, d := range t.Diagnostics {
		if d.Rule == loader.IncludeOutsideTree {
			msg, _, _ := strings.Cut(d.Message, ";")
			b.Outside = append(b.Outside, fmt.Sprintf("%s:%d: not formatted: %s", name(d.File), d.Line, msg))
		}
	}
	for _, u := range t.Unreadable {
		broken[u] = true
		b.Problems = append(b.Problems, fmt.Errorf("%s: could not be read (not formatted)", name(u)))
	}
	for _, file := range files {
		if b.seen[file.Path] || broken[file.Path] || !boundedread.Within(file.Path, t.Dir) {
			continue // another tree had it, it was refused, or it lies outside this one
		}
		b.seen[file.Path] = true
		data, err := Source(file, b.Options)
		if err != nil {
			b.Problems = append(b.Problems, Explain(err, name))
			continue
		}
		if !bytes.Equal(data, file.Src) {
			shown := file.Path
			if file.Via != "" && !strings.HasPrefix(filepath.Base(file.Via), ".") {
				shown = file.Via
			}
			b.Jobs = append(b.Jobs, Job{file, name(shown), data})
		}
	}
}

// Problem is an error of Source said for a user: a file nginx would
// refuse to read by its place and message; Err is the error itself
// (errors.As finds an ErrChanged, nginxtune's own fault, in it).
type Problem struct {
	Msg string
	Err error
}

func (p *Problem) Error() string { return p.Msg }
func (p *Problem) Unwrap() error { return p.Err }

// Explain turns an error of Source into a Problem, naming paths with name.
func Explain(err error, name func(string) string) error {
	var refused *RefusedError
	if errors.As(err, &refused) {
		d := refused.Diagnostic
		return &Problem{fmt.Sprintf("%s:%d:%d: %s (not formatted)", name(d.File), d.Line, d.Col, d.Message), err}
	}
	return &Problem{err.Error(), err}
}

// unreadable reports whether a diagnostic says a file's text does not read
// whole (a main file without events reads whole: nginx -t refuses the
// configuration, not the file's text).
func unreadable(d finding.Diagnostic) bool {
	return d.Rule == parser.Syntax && d.Severity == finding.Error && !loader.NoEvents(d)
}

// rootBroken reports whether the tree's one root does not read whole.
func rootBroken(t *loader.Tree) bool {
	for _, d := range t.Diagnostics {
		if unreadable(d) && d.File == t.Roots[0].Path {
			return true
		}
	}
	return t.Roots[0].Broken
}

func isRoot(t *loader.Tree, path string) bool {
	for _, r := range t.Roots {
		if r.Path == path {
			return true
		}
	}
	return false
}
