package lsp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/rules"
)

func newTestServer(root string) *Server {
	return &Server{opt: Options{Log: io.Discard}, conn: protocol.NewConn(io.Discard), docs: map[string]*document{}, results: map[string]*analysis{}, timers: map[string]*time.Timer{}, root: root}
}

// TestIncrementalSameAsFromScratch replays an edit session, one character
// per change, through a server that keeps what its analyses read (the
// parsed files of the tree), and after each change compares the findings
// of the open file with those of a new server that reads everything
// afresh: the same, while the edits change the tree itself (a new include,
// an upstream deleted on disk, another site's file changed, a syntax error
// and its fix, a second buffer opened and edited).
func TestIncrementalSameAsFromScratch(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	for _, d := range []string{"sites", "snippets"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("nginx.conf", "events {}\nhttp {\n    include upstreams.conf;\n    include sites/*.conf;\n}\n")
	write("upstreams.conf", "upstream app {\n    server 127.0.0.1:8080;\n}\n")
	write("snippets/proxy.conf", "proxy_set_header Connection \"\";\nproxy_http_version 1.1;\n")
	write("sites/other.conf", "server {\n    listen 80;\n    server_name other.example;\n    location / { proxy_pass http://app; }\n}\n")
	app := filepath.Join(dir, "sites/app.conf")
	text := "server {\n    listen 80;\n    server_name app.example;\n    location / {\n        proxy_pass http://app;\n    }\n}\n"
	write("sites/app.conf", text)

	inc := newTestServer(dir)
	uri := pathToURI(app)
	other := filepath.Join(dir, "sites/other.conf")
	otherURI := pathToURI(other)
	inc.open(didOpenParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1, Text: text}})
	version := 1
	steps, differ := 0, map[string]bool{}
	check := func(what string) {
		t.Helper()
		steps++
		got := inc.analyze(uri, true)
		scratch := newTestServer(dir)
		inc.mu.Lock()
		for u, d := range inc.docs {
			c := *d
			scratch.docs[u] = &c
		}
		inc.mu.Unlock()
		fresh := scratch.analyze(uri, true)
		// every rule run whole over the tree read afresh, its findings
		// in the open file kept
		var want []finding.Diagnostic
		for _, dg := range rules.Run(fresh.tree, fresh.cfg) {
			if dg.File == app || dg.Via == app {
				want = append(want, dg)
			}
		}
		if !reflect.DeepEqual(got.diags, want) || !reflect.DeepEqual(fresh.diags, want) {
			t.Fatalf("%s: the findings differ from a full run over a fresh analysis:\n%v\nwant:\n%v", what, got.diags, want)
		}
		differ[fmt.Sprint(want)] = true
	}
	edit := func(what, next string) {
		t.Helper()
		version++
		inc.change(didChangeParams{TextDocument: protocol.VersionedTextDocumentIdentifier{URI: uri, Version: version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{{Text: next}}})
		text = next
		check(what)
	}
	// type s at off, one character a change
	typeAt := func(what string, off int, s string) {
		t.Helper()
		head, tail := text[:off], text[off:]
		for i := 1; i <= len(s); i++ {
			edit(fmt.Sprintf("%s, %q typed", what, s[:i]), head+s[:i]+tail)
		}
	}
	// delete n characters at off, one a change
	deleteAt := func(what string, off, n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			edit(fmt.Sprintf("%s, %d deleted", what, i+1), text[:off]+text[off+1:])
		}
	}
	check("opened")
	typeAt("a directive", strings.Index(text, "    location"), "    gzip on;\n")
	typeAt("a new include", strings.Index(text, "        proxy_pass"), "        include snippets/proxy.conf;\n")
	// an upstream deleted on disk, and put back
	write("upstreams.conf", "")
	inc.diskChanged()
	check("the upstream deleted")
	write("upstreams.conf", "upstream app {\n    server 127.0.0.1:8080;\n}\n")
	inc.diskChanged()
	check("the upstream back")
	// another site takes the server name
	write("sites/other.conf", "server {\n    listen 80;\n    server_name app.example;\n}\n")
	inc.diskChanged()
	check("another site's name")
	// a syntax error: the server block's "}" deleted, then typed again
	end := strings.LastIndex(text, "}")
	deleteAt("the closing brace", end, 1)
	typeAt("the closing brace", end, "}")
	// the include's file name mistyped and fixed
	at := strings.Index(text, "proxy.conf")
	deleteAt("the include's file", at, 5)
	typeAt("the include's file", at, "proxy")
	// a second buffer, edited: its text, not the disk's, is in the tree
	inc.open(didOpenParams{TextDocument: protocol.TextDocumentItem{URI: otherURI, Version: 1, Text: "server {\n    listen 80;\n    server_name app.example;\n}\n"}})
	check("another buffer opened")
	version2 := 1
	otherText := "server {\n    listen 80;\n    server_name app.example;\n}\n"
	for _, c := range "upstream app { server 127.0.0.2; }\n" {
		version2++
		otherText += string(c)
		inc.change(didChangeParams{TextDocument: protocol.VersionedTextDocumentIdentifier{URI: otherURI, Version: version2},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{{Text: otherText}}})
		check(fmt.Sprintf("the other buffer, %q", otherText[len(otherText)-10:]))
	}
	inc.stop()
	if len(differ) < 5 {
		t.Errorf("the session met %d sets of findings in %d steps: it does not exercise the tree's changes", len(differ), steps)
	}
}
