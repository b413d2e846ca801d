package lsp

import (
	"net/url"
	"path/filepath"
	"unicode/utf16"
	"unicode/utf8"
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

// lines indexes a text's line starts, for converting between byte
// offsets and LSP positions (UTF-16 code units).
type lines struct {
	text   string
	starts []int
}

func newLines(text string) *lines {
	l := &lines{text: text, starts: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

// position converts a byte offset.
func (l *lines) position(off int) Position {
	off = max(0, min(off, len(l.text)))
	lo, hi := 0, len(l.starts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if l.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return Position{Line: lo, Character: utf16Len(l.text[l.starts[lo]:off])}
}

// offset converts a position; a position past the end of its line is the
// line's end.
func (l *lines) offset(p Position) int {
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
	units := 0
	for i := start; i < end; {
		if units >= p.Character {
			return i
		}
		r, size := utf8.DecodeRuneInString(l.text[i:])
		units += utf16.RuneLen(r)
		if utf16.RuneLen(r) < 0 {
			units++
		}
		i += size
	}
	return end
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if k := utf16.RuneLen(r); k > 0 {
			n += k
		} else {
			n++
		}
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
