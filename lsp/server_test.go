package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"
	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// client drives a server over pipes, as an editor does.
type client struct {
	t      *testing.T
	w      io.WriteCloser
	nextID int
	mu     sync.Mutex
	// responses by id and notifications in order of arrival
	responses map[int]*protocol.Message
	notes     []*protocol.Message
	arrived   chan struct{}
	done      chan error
}

func start(t *testing.T, opt Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, w: inW, responses: map[int]*protocol.Message{}, arrived: make(chan struct{}, 1000), done: make(chan error, 1)}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	go func() {
		err := Serve(context.Background(), inR, outW, opt)
		outW.Close()
		c.done <- err
	}()
	go func() {
		r := bufio.NewReader(outR)
		for {
			m, err := protocol.ReadMessage(r)
			if err != nil {
				return
			}
			c.mu.Lock()
			if m.Method != "" {
				c.notes = append(c.notes, m)
			} else {
				var id int
				json.Unmarshal(m.ID, &id)
				c.responses[id] = m
			}
			c.mu.Unlock()
			c.arrived <- struct{}{}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Error("the server did not stop when its input closed")
		}
	})
	return c
}

func (c *client) send(m map[string]any) {
	m["jsonrpc"] = "2.0"
	b, _ := json.Marshal(m)
	fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(b), b)
}

func (c *client) notify(method string, params any) {
	c.send(map[string]any{"method": method, "params": params})
}

// hangGuard is how long the client waits for an answer: long enough for a
// loaded machine running the race detector, there only to end a hang. What
// the server's work may grow with is tested as sizes, not time.
const hangGuard = 2 * time.Minute

// call sends a request and waits for its response.
func (c *client) call(method string, params any, result any) *protocol.ResponseError {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	c.send(map[string]any{"id": id, "method": method, "params": params})
	deadline := time.After(hangGuard)
	for {
		c.mu.Lock()
		m := c.responses[id]
		c.mu.Unlock()
		if m != nil {
			if m.Error != nil {
				return m.Error
			}
			if result != nil {
				if err := json.Unmarshal(m.Result, result); err != nil {
					c.t.Fatalf("%s: %v: %s", method, err, m.Result)
				}
			}
			return nil
		}
		select {
		case <-c.arrived:
		case <-deadline:
			c.t.Fatalf("no answer to %s within %v", method, hangGuard)
		}
	}
}

// diagnostics waits for diagnostics of uri that satisfy ok.
func (c *client) diagnostics(uri string, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	c.t.Helper()
	return c.diagnosticsFrom(0, uri, ok)
}

// noted is how many notifications have arrived: diagnosticsFrom it waits
// for what the server publishes after them.
func (c *client) noted() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notes)
}

// diagnosticsFrom is diagnostics among the notifications from the seen-th on.
func (c *client) diagnosticsFrom(seen int, uri string, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	c.t.Helper()
	deadline := time.After(hangGuard)
	var last []protocol.Diagnostic
	for {
		c.mu.Lock()
		notes := c.notes[seen:]
		seen = len(c.notes)
		c.mu.Unlock()
		for _, m := range notes {
			if m.Method != "textDocument/publishDiagnostics" {
				continue
			}
			var p struct {
				URI         string                `json:"uri"`
				Diagnostics []protocol.Diagnostic `json:"diagnostics"`
			}
			json.Unmarshal(m.Params, &p)
			if p.URI == uri {
				last = p.Diagnostics
				if ok(p.Diagnostics) {
					return p.Diagnostics
				}
			}
		}
		select {
		case <-c.arrived:
		case <-deadline:
			c.t.Fatalf("no diagnostics as expected for %s within %v; last: %+v", uri, hangGuard, last)
		}
	}
}

func hasCode(ds []protocol.Diagnostic, code string, line int) bool {
	for _, d := range ds {
		if d.Code == code && (line < 0 || d.Range.Start.Line == line) {
			return true
		}
	}
	return false
}

// copyTree copies fixtures/lsp into a temporary directory.
func copyTree(t *testing.T) string {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../fixtures/lsp")); err != nil {
		t.Fatal(err)
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return dir
}

func TestProtocol(t *testing.T) {
	dir := copyTree(t)
	c := start(t, Options{Delay: time.Millisecond})
	var init struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	if err := c.call("hover", map[string]any{}, nil); err == nil || err.Code != protocol.CodeNotInitialized {
		t.Errorf("a request before initialize: %+v", err)
	}
	if err := c.call("initialize", map[string]any{"rootUri": pathToURI(dir)}, &init); err != nil {
		t.Fatal(err)
	}
	if init.Capabilities["hoverProvider"] != true || init.Capabilities["documentFormattingProvider"] != true {
		t.Errorf("capabilities: %v", init.Capabilities)
	}
	c.notify("initialized", map[string]any{})

	app := filepath.Join(dir, "sites", "app.conf")
	appURI := pathToURI(app)
	text, _ := os.ReadFile(app)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": appURI, "languageId": "nginx", "version": 1, "text": string(text)}})
	// linted inside nginx.conf: the map there makes the keepalive
	// finding, and the typo is on line 16 (15 from zero)
	ds := c.diagnostics(appURI, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "unknown-directive", 15) })
	if !hasCode(ds, "proxy-keepalive-headers", 5) || !hasCode(ds, "tcp-nodelay-off", 3) {
		t.Errorf("diagnostics: %+v", ds)
	}

	// the unsaved buffer of nginx.conf counts: without the upstream
	// block, proxy_pass http://app names a host and reuses no connection
	main := filepath.Join(dir, "nginx.conf")
	mainText, _ := os.ReadFile(main)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": pathToURI(main), "languageId": "nginx", "version": 1, "text": string(mainText)}})
	noUpstream := strings.Replace(string(mainText), "    upstream app {\n        server 127.0.0.1:8080;\n        keepalive 16;\n    }\n", "", 1)
	if noUpstream == string(mainText) {
		t.Fatal("fixtures/lsp/nginx.conf changed: update this test")
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": pathToURI(main), "version": 2}, "contentChanges": []any{map[string]any{"text": noUpstream}}})
	c.diagnostics(appURI, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "upstream-keepalive", 5) })
	from := c.noted()
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": pathToURI(main), "version": 3}, "contentChanges": []any{map[string]any{"text": string(mainText)}}})
	c.diagnosticsFrom(from, appURI, func(ds []protocol.Diagnostic) bool { return !hasCode(ds, "upstream-keepalive", -1) })

	// an incremental change fixes the typo
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": appURI, "version": 2},
		"contentChanges": []any{map[string]any{"range": span(pos(15, 4), pos(15, 11)), "text": "sendfile"}}})
	c.diagnostics(appURI, func(ds []protocol.Diagnostic) bool {
		return !hasCode(ds, "unknown-directive", -1) && hasCode(ds, "tcp-nodelay-off", 3)
	})

	// hover: a directive, a variable, a finding
	var h protocol.Hover
	c.call("textDocument/hover", place(appURI, pos(6, 10)), &h)
	if !strings.Contains(h.Contents.Value, "proxy_http_version") || !strings.Contains(h.Contents.Value, "nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_http_version") ||
		!strings.Contains(h.Contents.Value, "Default: 1.0 (nginx 1.22.1, 1.26.3, 1.28.3); 1.1 (nginx 1.30.4)") {
		t.Errorf("hover on proxy_http_version: %q", h.Contents.Value)
	}
	c.call("textDocument/hover", place(appURI, pos(7, 40)), &h)
	if !strings.Contains(h.Contents.Value, "$connection_upgrade") || !strings.Contains(h.Contents.Value, "nginx.conf:8") {
		t.Errorf("hover on $connection_upgrade: %q", h.Contents.Value)
	}
	c.call("textDocument/hover", place(appURI, pos(3, 6)), &h)
	if !strings.Contains(h.Contents.Value, "tcp-nodelay-off") || !strings.Contains(h.Contents.Value, "*Fix:*") {
		t.Errorf("hover on a finding: %q", h.Contents.Value)
	}

	// completion: directives of a location, values, variables, upstreams
	labels := func(pos protocol.Position) map[string]bool {
		var l protocol.CompletionList
		c.call("textDocument/completion", place(appURI, pos), &l)
		out := map[string]bool{}
		for _, it := range l.Items {
			out[it.Label] = true
		}
		return out
	}
	edit := func(version int, r protocol.Range, text string) {
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": appURI, "version": version},
			"contentChanges": []any{map[string]any{"range": r, "text": text}}})
	}
	edit(3, span(pos(4, 0), pos(4, 0)), "        proxy_b\n")
	got := labels(pos(4, 15))
	if !got["proxy_buffering"] || !got["proxy_buffer_size"] || got["proxy_http_version"] || got["worker_processes"] {
		t.Errorf("directive completion in a location: %d items", len(got))
	}
	edit(4, span(pos(4, 0), pos(5, 0)), "        proxy_buffering \n")
	if got := labels(pos(4, 24)); !got["on"] || !got["off"] {
		t.Errorf("flag values: %v", got)
	}
	edit(5, span(pos(4, 0), pos(5, 0)), "        proxy_http_version \n")
	if got := labels(pos(4, 27)); !got["1.1"] || !got["1.0"] {
		t.Errorf("enumeration values: %v", got)
	}
	edit(6, span(pos(4, 0), pos(5, 0)), "        proxy_pass http://\n")
	if got := labels(pos(4, 26)); !got["http://app"] {
		t.Errorf("upstream names: %v", got)
	}
	// each item replaces the word typed: "http://" becomes "http://app",
	// not "http://http://app"
	var l protocol.CompletionList
	c.call("textDocument/completion", place(appURI, pos(4, 26)), &l)
	for _, it := range l.Items {
		if e := it.TextEdit; e == nil || e.Range != (span(pos(4, 19), pos(4, 26))) || e.NewText != it.Label {
			t.Errorf("%s: text edit %+v, want %q over the typed \"http://\" (4:19-4:26)", it.Label, e, it.Label)
		}
	}
	edit(7, span(pos(4, 0), pos(5, 0)), "        add_header X $\n")
	if got := labels(pos(4, 22)); !got["$connection_upgrade"] || !got["$request_uri"] || !got["$http_"] {
		t.Errorf("variables: %d items", len(got))
	}
	edit(8, span(pos(4, 0), pos(5, 0)), "")

	// navigation
	var locs []protocol.Location
	c.call("textDocument/definition", place(appURI, pos(5, 26)), &locs)
	if len(locs) != 1 || locs[0].URI != pathToURI(main) || locs[0].Range.Start.Line != 3 {
		t.Errorf("definition of the upstream: %+v", locs)
	}
	c.call("textDocument/definition", place(appURI, pos(10, 28)), &locs)
	if len(locs) != 1 || locs[0].URI != appURI || locs[0].Range.Start.Line != 12 {
		t.Errorf("definition of @fallback: %+v", locs)
	}
	c.call("textDocument/definition", place(pathToURI(main), pos(11, 15)), &locs)
	if len(locs) != 1 || locs[0].URI != appURI {
		t.Errorf("definition of the include: %+v", locs)
	}
	c.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": pathToURI(main)}, "position": pos(3, 14), "context": map[string]any{"includeDeclaration": true}}, &locs)
	if len(locs) != 2 {
		t.Errorf("references of the upstream: %+v", locs)
	}
	c.call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": appURI}, "position": pos(7, 40), "context": map[string]any{"includeDeclaration": true}}, &locs)
	if len(locs) != 2 || locs[0].URI != pathToURI(main) || locs[1].URI != appURI {
		t.Errorf("references of $connection_upgrade: %+v", locs)
	}
	var syms []protocol.DocumentSymbol
	c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": appURI}}, &syms)
	if len(syms) != 1 || syms[0].Name != "server app.example" || len(syms[0].Children) != 3 || syms[0].Children[1].Name != "location /old" {
		t.Errorf("symbols: %+v", syms)
	}

	// a quick fix, and formatting
	var actions []protocol.CodeAction
	c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": appURI}, "range": span(pos(3, 0), pos(3, 0)), "context": map[string]any{"diagnostics": []any{}}}, &actions)
	if len(actions) != 1 || actions[0].Title != "turn tcp_nodelay on" || actions[0].Edit.Changes[appURI][0].NewText != "on" {
		t.Errorf("code actions: %+v", actions)
	}
	edit(9, span(pos(1, 0), pos(1, 0)), "  listen 81;\n")
	var edits []protocol.TextEdit
	c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": appURI}, "options": map[string]any{"tabSize": 4, "insertSpaces": true}}, &edits)
	if len(edits) != 1 || !strings.Contains(edits[0].NewText, "\n    listen 81;\n") {
		t.Errorf("formatting: %+v", edits)
	}

	if err := c.call("workspace/unknownThing", map[string]any{}, nil); err == nil || err.Code != protocol.CodeMethodNotFound {
		t.Errorf("an unknown method: %+v", err)
	}
	if err := c.call("shutdown", nil, nil); err != nil {
		t.Error(err)
	}
	c.notify("exit", nil)
	select {
	case err := <-c.done:
		if err != nil {
			t.Error(err)
		}
		c.done <- nil
	case <-time.After(5 * time.Second):
		t.Error("exit did not stop the server")
	}
}

// Bad input never stops the server: it answers the next request.
func TestHostileBuffers(t *testing.T) {
	dir := copyTree(t)
	c := start(t, Options{Delay: time.Millisecond})
	c.call("initialize", map[string]any{"rootUri": pathToURI(dir)}, nil)
	open := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		uri := pathToURI(p)
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "nginx", "version": 1, "text": text}})
		return uri
	}
	// a malformed buffer: a syntax diagnostic
	bad := open("sites/bad.conf", "server {\n    listen 80\n    location / {\n")
	c.diagnostics(bad, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "syntax", -1) })
	// an include cycle
	cyc := open("cycle.conf", "include cycle.conf;\n")
	c.diagnostics(cyc, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "include-cycle", -1) })
	// a file outside any tree, and a buffer with no file
	outside := filepath.Join(t.TempDir(), "lone.conf")
	os.WriteFile(outside, []byte("sendfile on;\n"), 0o644)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": pathToURI(outside), "languageId": "nginx", "version": 1, "text": "sendfile on;\n"}})
	c.diagnostics(pathToURI(outside), func(ds []protocol.Diagnostic) bool { return true })
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "untitled:1", "languageId": "nginx", "version": 1, "text": "http { server { listen 80; } }"}})
	c.diagnostics("untitled:1", func(ds []protocol.Diagnostic) bool { return true })
	// a large buffer, and the same on one line: each finding's column is
	// counted from a mark near it, not from the line's start (the bound is
	// TestPositionsLocal's)
	server := "server { listen 80; location / { tcp_nodelay off; return 200; } }"
	huge := open("sites/huge.conf", strings.Repeat(server+"\n", 2000))
	var h *protocol.Hover
	c.call("textDocument/hover", place(huge, pos(3000, 2)), &h)
	long := open("sites/long.conf", strings.Repeat(server+" ", 2000))
	// (the servers share the name "" on *:80 too: server-name-conflict)
	ds := c.diagnostics(long, func(ds []protocol.Diagnostic) bool {
		n := 0
		for _, d := range ds {
			if d.Code == "tcp-nodelay-off" {
				n++
			}
		}
		return n == 2000
	})
	at := 1999*(len(server)+1) + strings.Index(server, "off;")
	if r := ds[len(ds)-1].Range; r != (span(pos(0, at), pos(0, at+len("off;")))) {
		t.Errorf("the last finding of the long line at %+v, want at column %d", r, at)
	}
	// malformed JSON and params: errors, not an exit
	fmt.Fprintf(c.w, "Content-Length: 5\r\n\r\n{oops")
	if err := c.call("textDocument/hover", "not an object", nil); err == nil || err.Code != protocol.CodeInvalidParams {
		t.Errorf("bad params: %+v", err)
	}
	var syms []protocol.DocumentSymbol
	if err := c.call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": bad}}, &syms); err != nil {
		t.Errorf("after bad input: %v", err)
	}
	// positions past the end of a line or the file are clamped
	if err := c.call("textDocument/completion", place(bad, pos(999, 999)), nil); err != nil {
		t.Errorf("a position past the end: %v", err)
	}
}

func TestPositions(t *testing.T) {
	text := "a é\n😀b\r\nc"
	l := newLines(text)
	for _, c := range []struct {
		off int
		pos protocol.Position
	}{{0, pos(0, 0)}, {2, pos(0, 2)}, {4, pos(0, 3)}, {5, pos(1, 0)}, {9, pos(1, 2)}, {12, pos(2, 0)}} {
		if got := l.position(c.off); got != c.pos {
			t.Errorf("position(%d) = %v, want %v", c.off, got, c.pos)
		}
		if got := l.offset(c.pos); got != c.off {
			t.Errorf("offset(%v) = %d, want %d", c.pos, got, c.off)
		}
	}
	if p, ok := uriToPath("file:///etc/nginx/sites%20enabled/a.conf"); !ok || p != "/etc/nginx/sites enabled/a.conf" {
		t.Errorf("uriToPath: %q", p)
	}
	if pathToURI("/a b/c") != "file:///a%20b/c" {
		t.Errorf("pathToURI: %s", pathToURI("/a b/c"))
	}
}

// BenchmarkAnalyze is the work behind one round of diagnostics: the tree
// that includes the buffer loaded with the open buffers in place of their
// files, and the rules run.
func BenchmarkAnalyze(b *testing.B) {
	fixture := b.TempDir()
	if err := os.CopyFS(fixture, os.DirFS("../fixtures/lsp")); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dir  string
	}{{"fixtures-lsp", fixture}, {"servers=200", filepath.Dir(mustGen(b, 200))}, {"servers=2000", filepath.Dir(mustGen(b, 2000))}} {
		var file string
		filepath.Walk(tc.dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && file == "" && info.Mode().IsRegular() && filepath.Base(p) != "nginx.conf" && strings.HasSuffix(p, ".conf") {
				file = p
			}
			return nil
		})
		text, _ := os.ReadFile(file)
		s := &Server{opt: Options{Log: io.Discard}, conn: protocol.NewConn(io.Discard), docs: map[string]*document{}, results: map[string]*analysis{}, timers: map[string]*time.Timer{}, root: tc.dir}
		uri := pathToURI(file)
		s.docs[uri] = &document{uri: uri, path: file, text: string(text), gen: 1}
		if a := s.analyze(uri, true); a.tree.File(filepath.Join(tc.dir, "nginx.conf")) == nil {
			b.Fatalf("%s: %s was not linted inside its nginx.conf", tc.name, file)
		}
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				s.analyze(uri, true)
			}
		})
	}
}

func mustGen(b *testing.B, servers int) string {
	main, _ := gentree.Write(b, b.TempDir(), servers, 20)
	return main
}

// TestWatchedFiles: a client that lets the server register watchers is
// asked to watch the tree's files, and a change on disk to a file the
// editor has not opened (nginx.conf, its upstream block removed) changes the
// findings of the open one that it includes.
func TestWatchedFiles(t *testing.T) {
	dir := copyTree(t)
	c := start(t, Options{Delay: time.Millisecond})
	caps := map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}
	if err := c.call("initialize", map[string]any{"rootUri": pathToURI(dir), "capabilities": caps}, nil); err != nil {
		t.Fatal(err)
	}
	c.notify("initialized", map[string]any{})
	app := filepath.Join(dir, "sites", "app.conf")
	appURI := c.openFile(app)
	c.diagnostics(appURI, func(ds []protocol.Diagnostic) bool {
		return hasCode(ds, "unknown-directive", 15) && !hasCode(ds, "upstream-keepalive", -1)
	})
	c.mu.Lock()
	registered := false
	for _, m := range c.notes {
		if m.Method == "client/registerCapability" && m.ID != nil && strings.Contains(string(m.Params), "workspace/didChangeWatchedFiles") && strings.Contains(string(m.Params), "*.{conf,nginx,template}") {
			registered = true
		}
	}
	c.mu.Unlock()
	if !registered {
		t.Error("no registration of workspace/didChangeWatchedFiles")
	}
	main := filepath.Join(dir, "nginx.conf")
	mainText, _ := os.ReadFile(main)
	noUpstream := strings.Replace(string(mainText), "    upstream app {\n        server 127.0.0.1:8080;\n        keepalive 16;\n    }\n", "", 1)
	if noUpstream == string(mainText) {
		t.Fatal("fixtures/lsp/nginx.conf changed: update this test")
	}
	os.WriteFile(main, []byte(noUpstream), 0o644)
	c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": pathToURI(main), "type": 2}}})
	c.diagnostics(appURI, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "upstream-keepalive", 5) })

	// a client without dynamic registration is not asked
	c2 := start(t, Options{Delay: time.Millisecond})
	c2.call("initialize", map[string]any{"rootUri": pathToURI(dir)}, nil)
	c2.notify("initialized", map[string]any{})
	c2.call("textDocument/hover", place(appURI, pos(0, 0)), nil)
	c2.mu.Lock()
	for _, m := range c2.notes {
		if m.Method == "client/registerCapability" {
			t.Error("a registration sent to a client that does not support it")
		}
	}
	c2.mu.Unlock()
}

// The attack: for a workspace file ws/evil.conf that is a link to
// /elsewhere/site.conf, the server read /elsewhere/nginx.conf and hover and
// definition answered from it, where lint refuses the link. The document is
// read as lint reads it (alone: the link leaves the tree), so nothing of
// the other tree shows, with a workspace folder and without one; a link
// inside the workspace still reads its tree.
func TestWorkspaceLinkOut(t *testing.T) {
	elsewhere := copyTree(t)
	app, _ := os.ReadFile(filepath.Join(elsewhere, "sites", "app.conf"))
	os.WriteFile(filepath.Join(elsewhere, "site.conf"), app, 0o644)
	mainText, _ := os.ReadFile(filepath.Join(elsewhere, "nginx.conf"))
	os.WriteFile(filepath.Join(elsewhere, "nginx.conf"), []byte(strings.Replace(string(mainText), "include sites/*.conf;", "include site.conf;", 1)), 0o644)
	ws := copyTree(t)
	evil := filepath.Join(ws, "evil.conf")
	os.Symlink(filepath.Join(elsewhere, "site.conf"), evil)
	inner := filepath.Join(ws, "inner.conf")
	os.Symlink("sites/app.conf", inner)
	for _, root := range []string{ws, ""} {
		c := start(t, Options{Delay: time.Millisecond})
		params := map[string]any{}
		if root != "" {
			params["rootUri"] = pathToURI(root)
		}
		if err := c.call("initialize", params, nil); err != nil {
			t.Fatal(err)
		}
		c.notify("initialized", map[string]any{})
		uri := pathToURI(evil)
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "nginx", "version": 1, "text": string(app)}})
		ds := c.diagnostics(uri, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "tcp-nodelay-off", 3) })
		if hasCode(ds, "proxy-keepalive-headers", -1) {
			t.Errorf("root %q: a finding made by the other tree's upstream: %+v", root, ds)
		}
		var locs []protocol.Location
		c.call("textDocument/definition", place(uri, pos(5, 26)), &locs)
		for _, l := range locs {
			if strings.Contains(l.URI, pathToURI(elsewhere)) {
				t.Errorf("root %q: definition answered from outside: %+v", root, l)
			}
		}
		var h protocol.Hover
		c.call("textDocument/hover", place(uri, pos(7, 40)), &h)
		if strings.Contains(h.Contents.Value, "nginx.conf") {
			t.Errorf("root %q: hover answered from outside: %q", root, h.Contents.Value)
		}
		// a link inside the workspace: read in its tree, as lint does
		innerURI := pathToURI(inner)
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": innerURI, "languageId": "nginx", "version": 1, "text": string(app)}})
		c.diagnostics(innerURI, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "proxy-keepalive-headers", 5) })
	}
}

// pos, span and place write positions, ranges and the params of a position
// briefly.
func pos(line, character int) protocol.Position {
	return protocol.Position{Line: line, Character: character}
}

func span(start, end protocol.Position) protocol.Range {
	return protocol.Range{Start: start, End: end}
}

func place(uri string, p protocol.Position) positionParams {
	return positionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: p}
}

// fmt: {align: true} in the settings lines up columns in the editor's
// formatting too, with the editor's step when the settings give none.
func TestFormattingAlignFromSettings(t *testing.T) {
	c := start(t, Options{})
	c.call("initialize", map[string]any{}, nil)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".nginxtune.yaml"), []byte("fmt:\n  align: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "site.conf")
	if err := os.WriteFile(p, []byte("server { listen 80; server_name a; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := pathToURI(p)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "nginx", "version": 1,
		"text": "server { listen 80; server_name a; }\n"}})
	var edits []protocol.TextEdit
	c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
	if len(edits) != 1 || edits[0].NewText != "server {\n  listen      80;\n  server_name a;\n}\n" {
		t.Errorf("formatting: %+v", edits)
	}
}

// Closing an unsaved buffer lints the other open buffers again: they read
// its file from disk from then on, and a finding only the discarded text
// made must go (it stayed until the other file was edited).
func TestCloseRelintsOthers(t *testing.T) {
	dir := copyTree(t)
	c := start(t, Options{Delay: time.Millisecond})
	if err := c.call("initialize", map[string]any{"rootUri": pathToURI(dir)}, nil); err != nil {
		t.Fatal(err)
	}
	c.notify("initialized", map[string]any{})
	app := filepath.Join(dir, "sites", "app.conf")
	appURI := c.openFile(app)
	c.diagnostics(appURI, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "tcp-nodelay-off", 3) })
	main := filepath.Join(dir, "nginx.conf")
	mainURI := c.openFile(main)
	mainText, _ := os.ReadFile(main)
	noUpstream := strings.Replace(string(mainText), "    upstream app {\n        server 127.0.0.1:8080;\n        keepalive 16;\n    }\n", "", 1)
	if noUpstream == string(mainText) {
		t.Fatal("fixtures/lsp/nginx.conf changed: update this test")
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": mainURI, "version": 2}, "contentChanges": []any{map[string]any{"text": noUpstream}}})
	c.diagnostics(appURI, func(ds []protocol.Diagnostic) bool { return hasCode(ds, "upstream-keepalive", 5) })
	// closed without saving: the upstream is back for every other buffer
	from := c.noted()
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": mainURI}})
	c.diagnosticsFrom(from, appURI, func(ds []protocol.Diagnostic) bool {
		return !hasCode(ds, "upstream-keepalive", -1) && hasCode(ds, "tcp-nodelay-off", 3)
	})
}

// openFile opens a file of the tree as the editor would, with its text on
// disk, and returns its URI.
func (c *client) openFile(path string) string {
	c.t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		c.t.Fatal(err)
	}
	uri := pathToURI(path)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "nginx", "version": 1, "text": string(text)}})
	return uri
}
