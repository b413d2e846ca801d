package lsp

import (
	"testing"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// The outline is the blocks: a server by its names with its first listen,
// a location or a map by its arguments; a data block's entries are not
// blocks of the outline.
func TestSymbols(t *testing.T) {
	s := newServer(t)
	text := "http {\n    server {\n        listen 80;\n        listen 443;\n        server_name a b;\n        location /x { if ($a) { return 404; } }\n    }\n    map $a $b { default 1; }\n}\n"
	uri := openFile(t, s, t.TempDir(), "s.conf", text)
	syms := s.symbols(textDocumentParams{TextDocument: textDocumentIdentifier{URI: uri}})
	type entry struct {
		name, detail string
		kind         protocol.SymbolKind
		children     int
	}
	var got []entry
	var walk func([]protocol.DocumentSymbol)
	walk = func(ss []protocol.DocumentSymbol) {
		for _, x := range ss {
			got = append(got, entry{x.Name, x.Detail, x.Kind, len(x.Children)})
			walk(x.Children)
		}
	}
	walk(syms)
	want := []entry{
		{"http", "", protocol.SymbolModule, 2},
		{"server a b", "listen 80", protocol.SymbolClass, 1},
		{"location /x", "", protocol.SymbolMethod, 1},
		{"if ($a)", "", protocol.SymbolMethod, 0},
		{"map $a $b", "", protocol.SymbolVariable, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("outline %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if r := syms[0].Children[0].SelectionRange; r != span(pos(1, 4), pos(1, 10)) {
		t.Errorf("the server's name at %+v", r)
	}
	if syms := s.symbols(textDocumentParams{TextDocument: textDocumentIdentifier{URI: "file:///not/open.conf"}}); syms == nil || len(syms) != 0 {
		t.Errorf("the outline of a document not open: %+v", syms)
	}
}
