package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// Formatting replaces the whole buffer with fmt's layout: the editor's
// indentation unless the settings give one; a formatted buffer or one
// with a syntax error gets no edit, a document not open an error.
func TestFormatting(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	uri := openFile(t, s, dir, "f.conf", "http {\nserver {\nlisten 80;\n}\n}\n")
	formatting := func(uri string, tabSize int, spaces bool) ([]protocol.TextEdit, *protocol.ResponseError) {
		var p formattingParams
		p.TextDocument.URI = uri
		p.Options = protocol.FormattingOptions{TabSize: tabSize, InsertSpaces: spaces}
		return s.formatting(p)
	}
	for _, c := range []struct {
		tabSize int
		spaces  bool
		want    string
	}{
		{2, true, "http {\n  server {\n    listen 80;\n  }\n}\n"},
		{4, false, "http {\n\tserver {\n\t\tlisten 80;\n\t}\n}\n"},
	} {
		edits, err := formatting(uri, c.tabSize, c.spaces)
		if err != nil || len(edits) != 1 || edits[0].NewText != c.want || edits[0].Range != span(pos(0, 0), pos(5, 0)) {
			t.Errorf("tab size %d, spaces %v: %+v %v", c.tabSize, c.spaces, edits, err)
		}
	}
	// a .nginxtune.yaml beside the file gives the layout, as lint reads it
	withSettings := filepath.Join(dir, "set")
	if err := os.MkdirAll(withSettings, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(withSettings, ".nginxtune.yaml"), []byte("fmt:\n  indent: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := openFile(t, s, withSettings, "f.conf", "http {\nserver {\nlisten 80;\n}\n}\n")
	if edits, err := formatting(set, 2, true); err != nil || len(edits) != 1 || edits[0].NewText != "http {\n   server {\n      listen 80;\n   }\n}\n" {
		t.Errorf("with the settings' layout: %+v %v", edits, err)
	}
	done := openFile(t, s, dir, "done.conf", "http {\n    gzip on;\n}\n")
	broken := openFile(t, s, dir, "broken.conf", "http {\nserver {\n")
	for _, u := range []string{done, broken} {
		if edits, err := formatting(u, 4, true); err != nil || edits == nil || len(edits) != 0 {
			t.Errorf("%s: %+v %v, want no edit", u, edits, err)
		}
	}
	if _, err := formatting("file:///not/open.conf", 4, true); err == nil || err.Code != protocol.CodeInvalidParams {
		t.Errorf("a document not open: %+v", err)
	}
}
