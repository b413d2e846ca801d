package lsp

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// newServer is a server as Serve makes it, initialized, for calling its
// handlers directly; nothing it publishes is read.
func newServer(t *testing.T) *Server {
	s := &Server{opt: Options{Log: io.Discard, Delay: time.Millisecond}, conn: protocol.NewConn(io.Discard), docs: map[string]*document{}, results: map[string]*analysis{}, timers: map[string]*time.Timer{}, initDone: true}
	t.Cleanup(s.stop)
	return s
}

// openFile writes text to a file of dir and opens it in s as an editor
// does.
func openFile(t *testing.T, s *Server, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := pathToURI(p)
	s.open(didOpenParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "nginx", Version: 1, Text: text}})
	return uri
}

func (s *Server) text(uri string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri].text
}

// An edit replaces its range of the buffer (in UTF-16 positions, the ends
// in either order), one without a range the whole text, in the order sent;
// a close forgets the buffer.
func TestChangeEdits(t *testing.T) {
	s := newServer(t)
	uri := openFile(t, s, t.TempDir(), "a.conf", "events {}\n# é\nhttp {}\n")
	edit := func(r *protocol.Range, text string) protocol.TextDocumentContentChangeEvent {
		return protocol.TextDocumentContentChangeEvent{Range: r, Text: text}
	}
	r := span(pos(1, 3), pos(1, 2)) // "é", its ends reversed
	s.change(didChangeParams{TextDocument: protocol.VersionedTextDocumentIdentifier{URI: uri, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{edit(&r, "e")}})
	if got := s.text(uri); got != "events {}\n# e\nhttp {}\n" {
		t.Errorf("after a range's edit: %q", got)
	}
	s.change(didChangeParams{TextDocument: protocol.VersionedTextDocumentIdentifier{URI: uri, Version: 3},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{edit(nil, "http {\n}\n"), edit(&protocol.Range{Start: pos(1, 0), End: pos(1, 0)}, "  gzip on;\n")}})
	if got := s.text(uri); got != "http {\n  gzip on;\n}\n" {
		t.Errorf("after the whole text and an insertion: %q", got)
	}
	s.close(textDocumentParams{TextDocument: textDocumentIdentifier{URI: uri}})
	if len(s.docs) != 0 || len(s.results) != 0 {
		t.Errorf("a closed buffer is kept: %d documents, %d results", len(s.docs), len(s.results))
	}
	// an edit of a buffer that is not open is dropped
	s.change(didChangeParams{TextDocument: protocol.VersionedTextDocumentIdentifier{URI: uri, Version: 4},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{edit(nil, "x")}})
	if len(s.docs) != 0 {
		t.Error("an edit opened a buffer")
	}
}
