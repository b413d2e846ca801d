package lsp

import (
	"slices"
	"testing"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// lineContext reads the blocks open at the cursor, the words of the
// statement typed so far and the word being typed, past comments and
// quoted strings (whose ";", "{" and "}" end nothing).
func TestLineContext(t *testing.T) {
	for _, c := range []struct {
		text          string
		blocks, words []string
		partial       string
	}{
		{"http {\n  server {\n    listen 80;\n    pro", []string{"http", "server"}, nil, "pro"},
		{"http {\n  # a { comment;\n  return 200 \"a;{b}\" x", []string{"http"}, []string{"return", "200", "\"a;{b}\""}, "x"},
		{"events { }\nhttp { server { } add_header X $ho", []string{"http"}, []string{"add_header", "X"}, "$ho"},
		{"http {\n  proxy_pass http://", []string{"http"}, []string{"proxy_pass"}, "http://"},
		{"http {\n  gzip ", []string{"http"}, []string{"gzip"}, ""},
	} {
		blocks, words, partial := lineContext(c.text, len(c.text))
		if !slices.Equal(blocks, c.blocks) || !slices.Equal(words, c.words) || partial != c.partial {
			t.Errorf("%q: %q %q %q, want %q %q %q", c.text, blocks, words, partial, c.blocks, c.words, c.partial)
		}
	}
}

// Completion offers, for what is typed: variables after "$", the
// directives of the block, a flag's on and off, an enumeration's values,
// upstreams after a proxy_pass-like directive and named locations after
// try_files; every item replaces the word typed.
func TestCompletionItems(t *testing.T) {
	s := newServer(t)
	text := func(typed string) string {
		return "http {\n    upstream app { server 127.0.0.1:8080; }\n    server {\n        location @fallback { return 200; }\n        location / {\n" +
			typed + "\n        }\n    }\n}\n"
	}
	uri := openFile(t, s, t.TempDir(), "c.conf", text(""))
	for i, c := range []struct {
		typed     string
		want, not []string
	}{
		{"gzi", []string{"gzip", "gzip_types", "gzip_vary"}, []string{"gunzip_buffers", "events", "worker_processes"}},
		{"gzip ", []string{"on", "off"}, []string{"gzip"}},
		{"proxy_http_version ", []string{"1.0", "1.1"}, []string{"on"}},
		{"try_files $uri @fa", []string{"@fallback"}, []string{"app"}},
		{"grpc_pass grpc://a", []string{"grpc://app"}, []string{"@fallback"}},
		{"add_header X $re", []string{"$request_uri", "$remote_addr", "$http_"}, []string{"gzip"}},
	} {
		s.change(didChangeParams{TextDocument: protocol.VersionedTextDocumentIdentifier{URI: uri, Version: i + 2},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{{Text: text(c.typed)}}})
		_, _, partial := lineContext(c.typed, len(c.typed))
		got := map[string]bool{}
		for _, it := range s.completion(place(uri, pos(5, len(c.typed)))).Items {
			got[it.Label] = true
			if e := it.TextEdit; e == nil || e.Range != span(pos(5, len(c.typed)-len(partial)), pos(5, len(c.typed))) || e.NewText != it.Label {
				t.Errorf("%q, %s: text edit %+v", c.typed, it.Label, e)
			}
		}
		for _, w := range c.want {
			if !got[w] {
				t.Errorf("%q: no %q among %d items", c.typed, w, len(got))
			}
		}
		for _, w := range c.not {
			if got[w] {
				t.Errorf("%q: %q offered", c.typed, w)
			}
		}
	}
}
