package format

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/nginxtest"

	"github.com/nginxtune/nginxtune/parser"
)

const corpusDir = "../../shared/corpus"

func format(t *testing.T, name, src string, opt Options) (string, error) {
	t.Helper()
	f, d := parser.Parse(name, []byte(src))
	if d != nil {
		t.Fatalf("%s: %s", name, d.Message)
	}
	out, err := Source(f, opt)
	return string(out), err
}

func TestLayout(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"one per line", "events { worker_connections 768; }\n", "events {\n    worker_connections 768;\n}\n"},
		{"blank lines", "a 1;\n\n\n\nb 2;\n", "a 1;\n\nb 2;\n"},
		{"no blank after brace", "http {\n\n    a 1;\n\n}\n", "http {\n    a 1;\n}\n"},
		{"trailing comment", "a 1;   # one\nb 2;\n", "a 1; # one\nb 2;\n"},
		{"comment on brace", "http {   # h\n  a 1;\n}\n", "http { # h\n    a 1;\n}\n"},
		{"comment lines", "http {\n# c\n      a 1;\n  # d\n}\n", "http {\n    # c\n    a 1;\n    # d\n}\n"},
		{"empty block", "location / {    }\n", "location / {}\n"},
		{"comment in empty block", "location / {\n# c\n}\n", "location / {\n    # c\n}\n"},
		{"quotes kept", "add_header X \"a  b\" 'c\\'d';\n", "add_header X \"a  b\" 'c\\'d';\n"},
		{"multi-line argument", "log_format main '$a'\n      '$b';\n", "log_format main '$a'\n    '$b';\n"},
		{"map kept", "map $a $b {\n  x   1;\n   y 2;\n}\n", "map $a $b {\n  x   1;\n   y 2;\n}\n"},
		{"lua kept", "content_by_lua_block {\n  ngx.say('{')  -- }\n}\n", "content_by_lua_block {\n  ngx.say('{')  -- }\n}\n"},
		{"crlf", "a 1;\r\nb { c 2; }\r\n", "a 1;\r\nb {\r\n    c 2;\r\n}\r\n"},
		{"if", "if ( $a ~* \"x\" ) { return 403; }\n", "if ( $a ~* \"x\" ) {\n    return 403;\n}\n"},
		{"end of file comment", "a 1;\n\n# end\n", "a 1;\n\n# end\n"},
	} {
		got, err := format(t, c.name, c.in, Options{})
		if err != nil || got != c.want {
			t.Errorf("%s: got %q (%v), want %q", c.name, got, err, c.want)
		}
	}
	got, _ := format(t, "tabs", "http { a 1; }\n", Options{Tabs: true})
	if got != "http {\n\ta 1;\n}\n" {
		t.Errorf("tabs: %q", got)
	}
	got, _ = format(t, "two", "http { a 1; }\n", Options{Indent: 2})
	if got != "http {\n  a 1;\n}\n" {
		t.Errorf("indent 2: %q", got)
	}
}

func TestBrokenRefused(t *testing.T) {
	f, d := parser.Parse("x.conf", []byte("http {\n"))
	if d == nil {
		t.Fatal("no syntax error")
	}
	if _, err := Source(f, Options{}); err == nil {
		t.Fatal("a broken file was formatted")
	}
}

// TestCorpus formats every corpus file that parses: the result must read
// as the original (Source checks it) and formatting it again must change
// nothing.
func TestCorpus(t *testing.T) {
	nginxtest.RequireCorpus(t, corpusDir)
	n, skipped := 0, 0
	filepath.WalkDir(corpusDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".tsv") || strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		f, d := parser.Parse(p, b)
		if d != nil {
			skipped++
			return nil
		}
		n++
		once, err := Source(f, Options{})
		if err != nil {
			t.Errorf("%v", err)
			return nil
		}
		g, d := parser.Parse(p, once)
		if d != nil {
			t.Errorf("%s: formatted file does not parse: %s", p, d.Message)
			return nil
		}
		twice, err := Source(g, Options{})
		if err != nil || !bytes.Equal(once, twice) {
			t.Errorf("%s: not idempotent (%v)", p, err)
		}
		return nil
	})
	t.Logf("%d corpus files formatted, %d with syntax errors skipped", n, skipped)
	if n < 1000 {
		t.Errorf("only %d corpus files", n)
	}
}
