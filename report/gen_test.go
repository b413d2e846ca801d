package report

import (
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/templates"
)

// What gen prints holds names and text from flags and profile files: a
// terminal or a CI log showing it gets no escape sequence and no workflow
// command from them.
func TestGenFilesEscaped(t *testing.T) {
	var b strings.Builder
	GenFiles(&b, []templates.File{
		{Path: "sites/a\x1b]8;;x\x07.conf", Content: "server {\n::error::owned\n}\n"},
		{Path: "sites-enabled/a\n::warning::x", Link: "../sites/a\x1b[2J.conf"},
		{Path: "mime.types", Content: "types {}\n", Stock: true},
	})
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("raw control characters in %q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "::") {
			t.Errorf("a workflow command at the start of a line: %q", l)
		}
	}
	for _, want := range []string{"# ==> mime.types: nginxtune's own (1 lines)", "(symbolic link) <==", "server {"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q not in %q", want, out)
		}
	}
}
