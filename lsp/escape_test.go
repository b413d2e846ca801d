package lsp

import (
	"strings"
	"testing"
)

// What the server logs is one line whatever a path or a message holds: a
// terminal escape, a line break or a workflow command in a file's name is
// written escaped.
func TestLogEscapes(t *testing.T) {
	s := newServer(t)
	var b strings.Builder
	s.opt.Log = &b
	s.logf("%s: %v", "/tmp/a\x1b[31m\n::error::x.conf", "bad\rline")
	got := b.String()
	if strings.Count(got, "\n") != 1 || strings.ContainsAny(strings.TrimSuffix(got, "\n"), "\x1b\n\r") || strings.Contains(got, "\n::") {
		t.Errorf("logged %q", got)
	}
	if want := `nginxtune lsp: /tmp/a\x1b[31m\x0a::error::x.conf: bad\x0dline` + "\n"; got != want {
		t.Errorf("logged %q, want %q", got, want)
	}
}
