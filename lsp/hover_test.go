package lsp

import (
	"strings"
	"testing"
)

// A hover describes a directive from the table, where a variable is set
// (or that nginx defines it, or that it is a capture), and the findings of
// the line once the rules have run; a blank place has none.
func TestHover(t *testing.T) {
	s := newServer(t)
	text := "http {\n    server {\n        set $x 1;\n        return 200 \"$x $uri $1 $nope\";\n        tcp_nodelay off;\n\n    }\n}\n"
	uri := openFile(t, s, t.TempDir(), "h.conf", text)
	hover := func(line int, after string) string {
		t.Helper()
		i := strings.Index(strings.Split(text, "\n")[line], after)
		h := s.hover(place(uri, pos(line, i+1)))
		if h == nil {
			return ""
		}
		return h.Contents.Value
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
