package lsp

import (
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/parser"
)

// spotAt finds the innermost statement around an offset and the word of
// it the offset is on: the name (arg -1), an argument, a variable inside
// one ("$a" or "${a}", the later of two that touch), or none (arg -2).
func TestSpotAt(t *testing.T) {
	text := "http {\n    server {\n        return 200 \"${a}b$c$d\";\n    }\n}\n"
	f, diag := parser.Parse("t.conf", []byte(text))
	if diag != nil {
		t.Fatal(diag)
	}
	at := func(s string, delta int) int { return strings.Index(text, s) + delta }
	for _, c := range []struct {
		off       int
		dir       string
		arg       int
		word, v   string
		wordStart int
	}{
		{at("http", 2), "http", -1, "http", "", at("http", 0)},
		{at("server", 6), "server", -1, "server", "", at("server", 0)},
		{at("server {", 7), "server", -2, "", "", 0},
		{at("return", 0), "return", -1, "return", "", at("return", 0)},
		{at("200", 1), "return", 0, "200", "", at("200", 0)},
		{at("${a}", 2), "return", 1, "${a}b$c$d", "a", at("${a}", 0)},
		{at("b$c", 0), "return", 1, "${a}b$c$d", "", at("\"${a}", 0)},
		{at("$c", 2), "return", 1, "${a}b$c$d", "d", at("$d", 0)},
		{at("$c", 1), "return", 1, "${a}b$c$d", "c", at("$c", 0)},
	} {
		sp, ok := spotAt(f, c.off)
		if !ok || sp.dir.Name != c.dir || sp.arg != c.arg || sp.word != c.word || sp.varName != c.v || sp.arg != -2 && sp.start != c.wordStart {
			t.Errorf("at %d (%q): %v %+v", c.off, text[c.off:min(c.off+6, len(text))], ok, sp)
		}
	}
	if _, ok := spotAt(f, len(text)); ok {
		t.Error("a spot after the last statement")
	}
}
