package engine

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
)

// Fixes are byte-range edits on the original text: nothing is reformatted,
// comments and blank lines stay where they are.

// IndentOf returns the white space before d on its line, or "" when other
// text precedes it.
func IndentOf(d *parser.Directive) string {
	if ls := LineStart(d); ls >= 0 {
		return string(d.File.Src[ls:d.Start])
	}
	return ""
}

// LineStart returns the offset of the first byte of d's line when only white
// space precedes d on it, else -1.
func LineStart(d *parser.Directive) int {
	src := d.File.Src
	i := int(d.Start)
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] != '\n' {
		return -1
	}
	return i
}

// InsertAfter adds a statement on the line after d, indented like d.
func InsertAfter(d *parser.Directive, stmt string) finding.Edit {
	nl := d.File.Newline()
	ind := IndentOf(d)
	if ind == "" && LineStart(d) < 0 {
		return finding.Edit{File: d.File.Path, Start: int(d.End), End: int(d.End), New: " " + stmt}
	}
	// after a trailing comment, so the comment stays with its statement
	if eol, ok := restOfLine(d.File.Src, int(d.End)); ok {
		at := eol
		if at > 0 && d.File.Src[at-1] == '\r' {
			at--
		}
		return finding.Edit{File: d.File.Path, Start: at, End: at, New: nl + ind + stmt}
	}
	return finding.Edit{File: d.File.Path, Start: int(d.End), End: int(d.End), New: nl + ind + stmt}
}

// restOfLine returns the offset of the line end after off and whether only
// white space or a comment stands between.
func restOfLine(src []byte, off int) (int, bool) {
	i := off
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r') {
		i++
	}
	if i < len(src) && src[i] == '#' {
		for i < len(src) && src[i] != '\n' {
			i++
		}
	}
	return i, i == len(src) || src[i] == '\n'
}

// InsertBefore adds a statement on its own line before d.
func InsertBefore(d *parser.Directive, stmt string) finding.Edit {
	nl := d.File.Newline()
	if ls := LineStart(d); ls >= 0 {
		return finding.Edit{File: d.File.Path, Start: ls, End: ls, New: IndentOf(d) + stmt + nl}
	}
	return finding.Edit{File: d.File.Path, Start: int(d.Start), End: int(d.Start), New: stmt + " "}
}

// InsertInBlock adds a statement as the last one of block b, indented like
// its other statements.
func InsertInBlock(b *parser.Directive, stmt string) finding.Edit {
	if len(b.Block) > 0 {
		return InsertAfter(b.Block[len(b.Block)-1], stmt)
	}
	close := b.End - 1
	return finding.Edit{File: b.File.Path, Start: int(close), End: int(close), New: " " + stmt + " "}
}

// RemoveStatement deletes d, with its line when nothing else is on it.
func RemoveStatement(d *parser.Directive) finding.Edit {
	src := d.File.Src
	start, end := int(d.Start), int(d.End)
	if ls := LineStart(d); ls >= 0 {
		// the whole line, with a trailing comment that belongs to it
		if eol, ok := restOfLine(src, end); ok {
			start = ls
			end = min(eol+1, len(src))
		}
	}
	return finding.Edit{File: d.File.Path, Start: start, End: end}
}

// RemoveArg deletes argument i of d with the white space before it.
func RemoveArg(d *parser.Directive, i int) finding.Edit {
	a := d.Args[i]
	start := int(a.Offset)
	src := d.File.Src
	for start > 0 && (src[start-1] == ' ' || src[start-1] == '\t') {
		start--
	}
	return finding.Edit{File: d.File.Path, Start: start, End: int(a.Offset) + len(a.Raw)}
}

// ReplaceArg replaces argument i of d.
func ReplaceArg(d *parser.Directive, i int, s string) finding.Edit {
	a := d.Args[i]
	return finding.Edit{File: d.File.Path, Start: int(a.Offset), End: int(a.Offset) + len(a.Raw), New: s}
}

// AppendArgs adds text after the last argument of d.
func AppendArgs(d *parser.Directive, s string) finding.Edit {
	end := int(d.Start) + len(d.Name)
	if n := len(d.Args); n > 0 {
		end = int(d.Args[n-1].Offset) + len(d.Args[n-1].Raw)
	}
	return finding.Edit{File: d.File.Path, Start: end, End: end, New: " " + s}
}

// InsertFirstAll adds statements, one per line, as the first ones of block
// b (one edit: two insertions at one place would collide).
func InsertFirstAll(b *parser.Directive, stmts ...string) finding.Edit {
	if len(stmts) == 1 || len(b.Block) == 0 || LineStart(b.Block[0]) < 0 {
		e := InsertFirst(b, strings.Join(stmts, " "))
		return e
	}
	sep := b.File.Newline() + IndentOf(b.Block[0])
	return InsertFirst(b, strings.Join(stmts, sep))
}

// InsertBeforeAll adds statements before d: one per line, indented like d,
// when d starts its line; on d's line, space-separated, when d stands in a
// one-line block (a line break there would start the next at column 0).
func InsertBeforeAll(d *parser.Directive, stmts ...string) finding.Edit {
	if LineStart(d) < 0 {
		return InsertBefore(d, strings.Join(stmts, " "))
	}
	return InsertBefore(d, strings.Join(stmts, d.File.Newline()+IndentOf(d)))
}

// ReplaceStmt replaces the whole statement d (name to ";") with s.
func ReplaceStmt(d *parser.Directive, s string) finding.Edit {
	return finding.Edit{File: d.File.Path, Start: int(d.Start), End: int(d.End), New: s}
}

// InsertFirst adds a statement as the first one of block b.
func InsertFirst(b *parser.Directive, stmt string) finding.Edit {
	if len(b.Block) > 0 {
		return InsertBefore(b.Block[0], stmt)
	}
	return InsertInBlock(b, stmt)
}
