package parser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// WriteJSON streams exactly what encoding the whole JSON() document does.
func TestWriteJSONMatchesEncoder(t *testing.T) {
	var paths []string
	for _, pat := range []string{"../fixtures/mission/*.conf", "../fixtures/rules/*.conf", "../fixtures/rules/*/*.conf", "../fixtures/parser/*/*.conf", "../fixtures/trees/*"} {
		m, _ := filepath.Glob(pat)
		paths = append(paths, m...)
	}
	paths = append(paths, "../fixtures/rules/include-tree")
	if len(paths) < 10 {
		t.Fatalf("only %d fixtures", len(paths))
	}
	for _, p := range paths {
		tr, err := Load(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(tr.JSON()); err != nil {
			t.Fatal(err)
		}
		if err := tr.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: WriteJSON differs from the encoder:\n%s", p, textdiffShort(want.String(), got.String()))
		}
	}
	empty := &Tree{byPath: map[string]*File{}}
	var want, got bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.Encode(empty.JSON())
	empty.WriteJSON(&got)
	if got.String() != want.String() {
		t.Errorf("empty tree: %q, want %q", got.String(), want.String())
	}
}

// textdiffShort shows where two texts part.
func textdiffShort(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return "want ..." + a[lo:min(len(a), i+80)] + "\ngot  ..." + b[lo:min(len(b), i+80)]
}

// The crossplane payload follows crossplane: no parentheses around an if
// condition, and backslash escapes inside quotes kept as written.
func TestCrossplaneArgs(t *testing.T) {
	src := "http {\n" +
		"    server {\n" +
		"        if ($arg_fail) { return 500; }\n" +
		"        if ( $request_method = POST ) { return 405; }\n" +
		"        if ($http_origin ~* \"^https://(a|b)\\.example$\") { return 204; }\n" +
		"        if (!-f $request_filename) { return 404; }\n" +
		"        location / {\n" +
		"            return 200 \"TEST\\n\";\n" +
		"            add_header X-Q 'it\\'s';\n" +
		"        }\n" +
		"    }\n" +
		"}\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	var walk func(ds []CPDir)
	walk = func(ds []CPDir) {
		for _, d := range ds {
			got[fmt.Sprintf("%s@%d", d.Directive, d.Line)] = d.Args
			if d.Block != nil {
				walk(*d.Block)
			}
		}
	}
	walk(tr.Crossplane().Config[0].Parsed)
	want := map[string][]string{
		"if@3":         {"$arg_fail"},
		"if@4":         {"$request_method", "=", "POST"},
		"if@5":         {"$http_origin", "~*", `^https://(a|b)\.example$`},
		"if@6":         {"!-f", "$request_filename"},
		"return@8":     {"200", `TEST\n`},
		"add_header@9": {"X-Q", `it\'s`},
	}
	for k, w := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(w) || len(got[k]) != len(w) {
			t.Errorf("%s: args %q, want %q", k, got[k], w)
		}
	}
	// the native format keeps nginx's reading
	for _, f := range tr.Files {
		for _, d := range f.Directives[0].Block[0].Block {
			if d.Name == "location" && d.Block[0].Arg(1) != "TEST\n" {
				t.Errorf("native value %q, want a line feed", d.Block[0].Arg(1))
			}
		}
	}
}
