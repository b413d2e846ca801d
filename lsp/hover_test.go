package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hoverAt is the hover's text just inside the first occurrence of after
// on a line of the open text, "" when there is none.
func hoverAt(s *Server, uri, text string, line int, after string) string {
	i := strings.Index(strings.Split(text, "\n")[line], after)
	h := s.hover(place(uri, pos(line, i+1)))
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

// A hover describes a directive from the table, where a variable is set
// (or that nginx defines it, or that it is a capture), and the findings of
// the line once the rules have run; a blank place has none.
func TestHover(t *testing.T) {
	s := newServer(t)
	text := "http {\n    server {\n        set $x 1;\n        return 200 \"$x $uri $1 $nope\";\n        tcp_nodelay off;\n\n    }\n}\n"
	uri := openFile(t, s, t.TempDir(), "h.conf", text)
	hover := func(line int, after string) string {
		t.Helper()
		return hoverAt(s, uri, text, line, after)
	}
	for _, c := range []struct {
		line     int
		at, want string
	}{
		{1, "server", "**server** — "},
		{3, "$x", "**$x** is set by:\n\n- `set` at h.conf:3"},
		{3, "$uri", "**$uri**: built into nginx"},
		{3, "$1", "**$1**: a capture of the last regular expression"},
		{3, "$nope", "**$nope**: set nowhere in the tree"},
	} {
		if got := hover(c.line, c.at); !strings.HasPrefix(got, c.want) {
			t.Errorf("hover on %s: %q, want it to start with %q", c.at, got, c.want)
		}
	}
	// the range is the word hovered
	if h := s.hover(place(uri, pos(3, 20))); h == nil || h.Range == nil || *h.Range != span(pos(3, 20), pos(3, 22)) {
		t.Errorf("the range of $x: %+v", h)
	}
	if got := hover(5, ""); got != "" {
		t.Errorf("hover on a blank line: %q", got)
	}
	// the findings of the line, with their rule's Why and Fix, once a
	// full analysis of the same text has been made
	s.current(uri, true)
	if got := hover(4, "off"); !strings.Contains(got, "**tcp-nodelay-off** (") || !strings.Contains(got, "*Fix:*") {
		t.Errorf("hover on a finding: %q", got)
	}
}

// A directive's hover says what it does and, with no nginx version set,
// gathers every version of the table, naming the versions where the forms
// or defaults differ; defaults nginx computes in code are shown too; a
// built-in variable says what it holds.
func TestHoverFacts(t *testing.T) {
	s := newServer(t)
	text := "http {\n    upstream app {\n        server 127.0.0.1:8080;\n        keepalive 16;\n    }\n    server {\n        root /srv;\n        return 200 $request_uri;\n    }\n}\n"
	uri := openFile(t, s, t.TempDir(), "f.conf", text)
	hover := func(line int, after string) string {
		t.Helper()
		return hoverAt(s, uri, text, line, after)
	}
	for _, c := range []struct {
		line      int
		at        string
		want      []string
		forbidden []string
	}{
		{3, "keepalive", []string{
			"**keepalive** — How many idle connections",
			"Arguments: 1 argument (nginx 1.22.1, 1.26.3, 1.28.3); 1 or 2 arguments (nginx 1.30.4)",
			"Default: 32 local (nginx 1.30.4)",
			"In nginx: 1.22.1, 1.26.3, 1.28.3, 1.30.4",
		}, nil},
		{6, "root", []string{"**root** — The directory", "Default: html\n", "Contexts: http, server, location, if-location"}, []string{"(nginx"}},
		{7, "$request_uri", []string{"**$request_uri**: built into nginx", "The original URI with its query string"}, nil},
	} {
		got := hover(c.line, c.at)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("hover on %s: %q, want %q in it", c.at, got, w)
			}
		}
		for _, f := range c.forbidden {
			if strings.Contains(got, f) {
				t.Errorf("hover on %s: %q, want no %q", c.at, got, f)
			}
		}
	}
}

// With an nginx version set, a directive that version lacks says so.
func TestHoverNotInVersion(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".nginxtune.yaml"), []byte("nginx-version: 1.22.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "server {\n    http2 on;\n}\n"
	uri := openFile(t, s, dir, "v.conf", text)
	h := s.hover(place(uri, pos(1, 6)))
	if h == nil || !strings.Contains(h.Contents.Value, "**Not in nginx 1.22.1**, the version linted for: nginx 1.26.3, 1.28.3, 1.30.4 has it.") {
		t.Errorf("hover on http2 for 1.22.1: %+v", h)
	}
}
