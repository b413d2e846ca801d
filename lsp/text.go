package lsp

import (
	"net/url"
	"path/filepath"
	"sort"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/parser"
)

// uriToPath turns a file: URI into an absolute path; ok is false for other
// schemes (an untitled buffer).
func uriToPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	return filepath.Clean(u.Path), true
}

// pathToURI is the file: URI of an absolute path.
func pathToURI(p string) string {
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// lines indexes a text for converting between byte offsets and LSP
// positions (UTF-16 code units): the line starts, and marks every
// markEvery bytes with the UTF-16 units before them. A conversion counts
// from the nearest mark, at most markEvery bytes, so converting every
// finding of a long line costs no more than a short one's: counting from
// the line's start took a 930 KB one-line file minutes.
type lines struct {
	text   string
	starts []int // the byte offset each line starts at
	units  []int // the UTF-16 units before each line
	marks  []mark
}

// mark is a rune boundary and the UTF-16 units of the text before it.
type mark struct{ off, units int }

const markEvery = 256

func newLines(text string) *lines {
	l := &lines{text: text, starts: []int{0}, units: []int{0}}
	units := 0
	for i, r := range text {
		if i >= len(l.marks)*markEvery {
			l.marks = append(l.marks, mark{i, units})
		}
		units += runeUnits(r)
		if r == '\n' {
			l.starts = append(l.starts, i+1)
			l.units = append(l.units, units)
		}
	}
	if len(l.marks) == 0 {
		l.marks = []mark{{0, 0}}
	}
	return l
}

// unitsAt is the number of UTF-16 units before a byte offset.
func (l *lines) unitsAt(off int) int {
	k := min(off/markEvery, len(l.marks)-1)
	if l.marks[k].off > off {
		k-- // the rune at the mark's place began before off
	}
	m := l.marks[k]
	return m.units + utf16Len(l.text[m.off:off])
}

// line is the line a byte offset is on.
func (l *lines) line(off int) int {
	return sort.SearchInts(l.starts, off+1) - 1
}

// position converts a byte offset.
func (l *lines) position(off int) protocol.Position {
	off = max(0, min(off, len(l.text)))
	n := l.line(off)
	return protocol.Position{Line: n, Character: l.unitsAt(off) - l.units[n]}
}

// offset converts a position; a position past the end of its line is the
// line's end.
func (l *lines) offset(p protocol.Position) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(l.starts) {
		return len(l.text)
	}
	start := l.starts[p.Line]
	end := len(l.text)
	if p.Line+1 < len(l.starts) {
		end = l.starts[p.Line+1] - 1
	}
	// from the last mark at or before the position, within the line
	want := l.units[p.Line] + max(0, p.Character)
	k := sort.Search(len(l.marks), func(k int) bool { return l.marks[k].units > want }) - 1
	i, units := start, l.units[p.Line]
	if k >= 0 && l.marks[k].off > start {
		i, units = l.marks[k].off, l.marks[k].units
	}
	for i < end {
		if units >= want {
			return i
		}
		r, size := utf8.DecodeRuneInString(l.text[i:])
		units += runeUnits(r)
		i += size
	}
	return end
}

// fileLines indexes each file of a tree once for one answer, however many
// places in it the answer names.
type fileLines map[*parser.File]*lines

func (c fileLines) of(f *parser.File) *lines {
	l := c[f]
	if l == nil {
		l = newLines(string(f.Src))
		c[f] = l
	}
	return l
}

// runeUnits is a rune's length in UTF-16: an invalid byte counts one.
func runeUnits(r rune) int {
	if k := utf16.RuneLen(r); k > 0 {
		return k
	}
	return 1
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += runeUnits(r)
	}
	return n
}

// statementEnd is where a finding's range ends: the end of the statement
// or of its first line.
func statementEnd(text string, off int) int {
	for i := off; i < len(text); i++ {
		switch text[i] {
		case ';', '{':
			return i + 1
		case '\n':
			return i
		}
	}
	return len(text)
}
