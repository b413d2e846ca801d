package lsp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
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

// Go-to-definition and references index each file they answer from once:
// indexing it again for every place found made k references in one file
// cost k times the file. Twice the references on one line allocate about
// twice, not four times, the memory.
func TestReferencesLinear(t *testing.T) {
	dir := copyTree(t)
	c := start(t, Options{Delay: time.Millisecond})
	c.call("initialize", map[string]any{"rootUri": pathToURI(dir)}, nil)
	allocated := func(n int) uint64 {
		v := fmt.Sprintf("$v%d", n) // a name of its own: each file is in the tree
		text := "server { listen 80; set " + v + " 1;" + strings.Repeat(" add_header X "+v+";", n) + " }\n"
		p := filepath.Join(dir, fmt.Sprintf("sites/refs%d.conf", n))
		os.WriteFile(p, []byte(text), 0o644)
		uri := pathToURI(p)
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "nginx", "version": 1, "text": text}})
		c.diagnostics(uri, func([]protocol.Diagnostic) bool { return true })
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var locs []protocol.Location
		c.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(0, 25), "context": map[string]any{"includeDeclaration": true}}, &locs)
		runtime.ReadMemStats(&after)
		if len(locs) != n+1 || locs[n].Range.Start != (pos(0, len(text)-4-len(v))) {
			t.Fatalf("%d references: got %d, the last %+v", n, len(locs), locs[len(locs)-1])
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, big := allocated(2000), allocated(4000)
	if big > 3*small+1<<20 {
		t.Errorf("references allocated %d bytes for 2000 on a line, %d for 4000: want it linear", small, big)
	}
	t.Logf("%d and %d bytes", small, big)
}
