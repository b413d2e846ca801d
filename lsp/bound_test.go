package lsp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// TestNoWorkspaceStaysInDirectory: without a workspace folder the tree of an
// open file lies in the directory it was opened in (docs/security.md), as
// lint's does in its working directory: an nginx.conf above that directory
// (here one whose upstream would make findings in the file: in /tmp, it
// could be another user's) is never read. The server searched every
// directory up to / for one.
func TestNoWorkspaceStaysInDirectory(t *testing.T) {
	dir := copyTree(t)
	site := filepath.Join(dir, "sites", "app.conf")
	c := start(t, Options{Delay: time.Millisecond})
	if err := c.call("initialize", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	c.notify("initialized", map[string]any{})
	text, err := os.ReadFile(site)
	if err != nil {
		t.Fatal(err)
	}
	uri := pathToURI(site)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "nginx", "version": 1, "text": string(text)}})
	ds := c.diagnostics(uri, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "tcp-nodelay-off", 3) })
	if hasCode(ds, "proxy-keepalive-headers", -1) {
		t.Errorf("linted inside the nginx.conf above the directory it was opened in: %+v", ds)
	}
}
