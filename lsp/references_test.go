package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

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

// refersTo finds $name and ${name} in an argument, not a longer name that
// begins with it.
func TestRefersTo(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want bool
	}{
		{"$a", true}, {"x$a/y", true}, {"${a}b", true}, {"$ab", false}, {"$ab$a", true},
		{"$ab${a}", true}, {"a", false}, {"$b", false}, {"$a_", false}, {"$", false},
	} {
		if got := refersTo(c.raw, "a"); got != c.want {
			t.Errorf("refersTo(%q, a) = %v", c.raw, got)
		}
	}
}

// References of an upstream are the directives that pass to it, and its
// own name when the client asks for the declaration; those of a variable
// every argument that reads it.
func TestReferences(t *testing.T) {
	s := newServer(t)
	lines := []string{
		"http {",
		"    upstream app { server 127.0.0.1:8080; }",
		"    server {",
		"        set $v 1;",
		"        location / { proxy_pass http://app; add_header X ${v}b; }",
		"        location /b { grpc_pass grpc://app:9/x; return 200 $vv; }",
		"    }",
		"}",
	}
	uri := openFile(t, s, t.TempDir(), "nginx.conf", strings.Join(lines, "\n")+"\n")
	refs := func(line int, word string, decl bool) []int {
		var p referenceParams
		p.TextDocument.URI = uri
		p.Position = pos(line, strings.Index(lines[line], word)+1)
		p.Context.IncludeDeclaration = decl
		var got []int
		for _, l := range s.references(p) {
			got = append(got, l.Range.Start.Line)
		}
		return got
	}
	for _, c := range []struct {
		line int
		word string
		decl bool
		want []int
	}{
		{1, "app", true, []int{1, 4, 5}},
		{1, "app", false, []int{4, 5}},
		{4, "http://app", false, []int{4, 5}},
		{3, "$v", true, []int{3, 4}},
		{4, "proxy_pass", true, nil},
	} {
		if got := refs(c.line, c.word, c.decl); !slices.Equal(got, c.want) {
			t.Errorf("references of %s (line %d, declaration %v): lines %v, want %v", c.word, c.line, c.decl, got, c.want)
		}
	}
}
