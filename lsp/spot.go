package lsp

import (
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/parser"
)

// spot is what the cursor is on.
type spot struct {
	dir *parser.Directive // the innermost statement around the cursor
	arg int               // the argument's index; -1 on the name
	// word is the text of the name or argument, varName a "$name" the
	// cursor is on inside it ("" when none)
	word    string
	varName string
	start   int // byte offsets of word (or varName) in the file
	end     int
}

// spotAt finds the statement and word at a byte offset of a file.
func spotAt(f *parser.File, off int) (spot, bool) {
	d := innermost(f.Directives, off)
	if d == nil {
		return spot{}, false
	}
	if off >= int(d.Start) && off <= int(d.Start)+len(d.Name) {
		return spot{dir: d, arg: -1, word: d.Name, start: int(d.Start), end: int(d.Start) + len(d.Name)}, true
	}
	for i, a := range d.Args {
		s, e := int(a.Offset), int(a.Offset)+len(a.Raw)
		if off < s || off > e {
			continue
		}
		sp := spot{dir: d, arg: i, word: a.Value, start: s, end: e}
		// a variable inside the argument
		if name, vs, ve := varAt(a.Raw, off-s); name != "" {
			sp.varName, sp.start, sp.end = name, s+vs, s+ve
		}
		return sp, true
	}
	return spot{dir: d, arg: -2}, true
}

// innermost is the innermost statement among dirs and their blocks around
// a byte offset, nil when none is.
func innermost(dirs []*parser.Directive, off int) *parser.Directive {
	for _, d := range dirs {
		if off < int(d.Start) || off > int(d.End) {
			continue
		}
		if d.Block != nil && d.BlockOpen >= 0 && off > int(d.BlockOpen) {
			if in := innermost(d.Block, off); in != nil {
				return in
			}
		}
		return d
	}
	return nil
}

// varAt is the "$name" or "${name}" of an argument's raw text that a byte
// offset in it is on or just after: the name and the byte range of the
// whole reference (the later of two that touch), "" when none.
func varAt(raw string, off int) (name string, start, end int) {
	for _, r := range knowledge.VarRefs(raw) {
		if off >= r.Start && off <= r.End-boolInt(r.Kind == knowledge.Braced) {
			name, start, end = r.Name, r.Start, r.End
		}
	}
	return name, start, end
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stack is the context names around a statement: the file's context, then
// the blocks around it in the file.
func stack(a *analysis, d *parser.Directive) []string {
	var names []string
	for p := d.Parent; p != nil; p = p.Parent {
		names = append([]string{p.Name}, names...)
	}
	return append(append([]string(nil), a.ctx...), names...)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// spotOf reads the tree of a document and what a position is on.
func (s *Server) spotOf(uri string, pos protocol.Position) (*analysis, spot, bool) {
	a := s.current(uri, false)
	if a == nil || a.file == nil {
		return nil, spot{}, false
	}
	sp, ok := spotAt(a.file, newLines(a.text).offset(pos))
	return a, sp, ok
}
