package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
)

// Fixes are byte-range edits on the original text: nothing is reformatted,
// comments and blank lines stay where they are.

// indentOf returns the white space before d on its line, or "" when other
// text precedes it.
func indentOf(d *parser.Directive) string {
	if ls := lineStart(d); ls >= 0 {
		return string(d.File.Src[ls:d.Start])
	}
	return ""
}

// newline returns the line ending the file uses.
func newline(f *parser.File) string { return f.Newline() }

// lineStart returns the offset of the first byte of d's line when only white
// space precedes d on it, else -1.
func lineStart(d *parser.Directive) int {
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

// insertAfter adds a statement on the line after d, indented like d.
func insertAfter(d *parser.Directive, stmt string) finding.Edit {
	nl := newline(d.File)
	ind := indentOf(d)
	if ind == "" && lineStart(d) < 0 {
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

// insertBefore adds a statement on its own line before d.
func insertBefore(d *parser.Directive, stmt string) finding.Edit {
	nl := newline(d.File)
	if ls := lineStart(d); ls >= 0 {
		return finding.Edit{File: d.File.Path, Start: ls, End: ls, New: indentOf(d) + stmt + nl}
	}
	return finding.Edit{File: d.File.Path, Start: int(d.Start), End: int(d.Start), New: stmt + " "}
}

// insertInBlock adds a statement as the last one of block b, indented like
// its other statements.
func insertInBlock(b *parser.Directive, stmt string) finding.Edit {
	if len(b.Block) > 0 {
		return insertAfter(b.Block[len(b.Block)-1], stmt)
	}
	close := b.End - 1
	return finding.Edit{File: b.File.Path, Start: int(close), End: int(close), New: " " + stmt + " "}
}

// removeStatement deletes d, with its line when nothing else is on it.
func removeStatement(d *parser.Directive) finding.Edit {
	src := d.File.Src
	start, end := int(d.Start), int(d.End)
	if ls := lineStart(d); ls >= 0 {
		// the whole line, with a trailing comment that belongs to it
		if eol, ok := restOfLine(src, end); ok {
			start = ls
			end = min(eol+1, len(src))
		}
	}
	return finding.Edit{File: d.File.Path, Start: start, End: end}
}

// removeArg deletes argument i of d with the white space before it.
func removeArg(d *parser.Directive, i int) finding.Edit {
	a := d.Args[i]
	start := int(a.Offset)
	src := d.File.Src
	for start > 0 && (src[start-1] == ' ' || src[start-1] == '\t') {
		start--
	}
	return finding.Edit{File: d.File.Path, Start: start, End: int(a.Offset) + len(a.Raw)}
}

// replaceArg replaces argument i of d.
func replaceArg(d *parser.Directive, i int, s string) finding.Edit {
	a := d.Args[i]
	return finding.Edit{File: d.File.Path, Start: int(a.Offset), End: int(a.Offset) + len(a.Raw), New: s}
}

// appendArgs adds text after the last argument of d.
func appendArgs(d *parser.Directive, s string) finding.Edit {
	end := int(d.Start) + len(d.Name)
	if n := len(d.Args); n > 0 {
		end = int(d.Args[n-1].Offset) + len(d.Args[n-1].Raw)
	}
	return finding.Edit{File: d.File.Path, Start: end, End: end, New: " " + s}
}

// insertFirstAll adds statements, one per line, as the first ones of block
// b (one edit: two insertions at one place would collide).
func insertFirstAll(b *parser.Directive, stmts ...string) finding.Edit {
	if len(stmts) == 1 || len(b.Block) == 0 || lineStart(b.Block[0]) < 0 {
		e := insertFirst(b, strings.Join(stmts, " "))
		return e
	}
	sep := newline(b.File) + indentOf(b.Block[0])
	return insertFirst(b, strings.Join(stmts, sep))
}

// insertBeforeAll adds statements before d: one per line, indented like d,
// when d starts its line; on d's line, space-separated, when d stands in a
// one-line block (a line break there would start the next at column 0).
func insertBeforeAll(d *parser.Directive, stmts ...string) finding.Edit {
	if lineStart(d) < 0 {
		return insertBefore(d, strings.Join(stmts, " "))
	}
	return insertBefore(d, strings.Join(stmts, newline(d.File)+indentOf(d)))
}

// replaceStmt replaces the whole statement d (name to ";") with s.
func replaceStmt(d *parser.Directive, s string) finding.Edit {
	return finding.Edit{File: d.File.Path, Start: int(d.Start), End: int(d.End), New: s}
}
