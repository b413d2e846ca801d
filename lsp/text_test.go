package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// naivePosition and naiveOffset count from the line's start, rune by
// rune: what the index must agree with.
func naivePosition(text string, off int) protocol.Position {
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return protocol.Position{Line: line, Character: utf16Len(text[start:off])}
}

func naiveOffset(text string, p protocol.Position) int {
	start := 0
	for range p.Line {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			return len(text)
		}
		start += i + 1
	}
	end := len(text)
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
	}
	units := 0
	for i := start; i < end; {
		if units >= p.Character {
			return i
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		units += max(1, utf16.RuneLen(r))
		i += size
	}
	return end
}

// The index gives the answers counting from the line's start gives, for
// every offset and position of texts mixing runes of every UTF-16 width,
// invalid bytes, CRLF and lines longer than the distance between marks.
func TestPositionsIndexed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "€", "😀", "\n", "\r\n", "\xff", "\xe2\x82", strings.Repeat("b", 300)}
	for range 30 {
		var b strings.Builder
		for range rng.IntN(150) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		l := newLines(text)
		for off := 0; off <= len(text); off++ {
			if got, want := l.position(off), naivePosition(text, off); got != want {
				t.Fatalf("%q: position(%d) = %v, want %v", text, off, got, want)
			}
		}
		lines := strings.Split(text, "\n")
		for line := -1; line <= len(lines); line++ {
			units := 0
			if line >= 0 && line < len(lines) {
				units = utf16Len(lines[line])
			}
			for ch := -1; ch <= units+2; ch++ {
				p := pos(line, ch)
				if got, want := l.offset(p), naiveOffset(text, p); line >= 0 && got != want || line < 0 && got != 0 {
					t.Fatalf("%q: offset(%v) = %d, want %d", text, p, got, want)
				}
			}
		}
	}
}

// The language server converts every finding's offset to a UTF-16 column:
// counting from the line's start, a 930 KB one-line file took 90 s before
// its diagnostics (findings × bytes of the line). A conversion reads at
// most 1 KB before its place, whatever the line's length: once the index
// is built, the text before that is swapped for runes of another width
// and the answers do not change.
func TestPositionsLocal(t *testing.T) {
	const n = 1 << 20
	text := strings.Repeat("a", n)
	l := newLines(text)
	keep := n - 8192
	l.text = strings.Repeat("😀", keep/4) + text[keep:]
	for _, off := range []int{keep + 1024, keep + 1024 + 100, n - 1} {
		if got := l.position(off); got != (pos(0, off)) {
			t.Errorf("position(%d) = %v: counted from further back than 1 KB", off, got)
		}
		if got := l.offset(pos(0, off)); got != off {
			t.Errorf("offset(0:%d) = %d: counted from further back than 1 KB", off, got)
		}
	}
}
