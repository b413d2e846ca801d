package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
)

// WriteTreeJSON streams exactly what encoding the whole document does.
// Its own JSONWriter escapes what a terminal or a CI runner would act on,
// as every JSON printer of the package does: TestWriteTreeJSONEscaped.
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
		tr, err := loader.Load(p, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if err := EncodeJSON(&want, treeJSON(tr)); err != nil {
			t.Fatal(err)
		}
		if err := WriteTreeJSON(&got, tr); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: WriteTreeJSON differs from the encoder:\n%s", p, textdiffShort(want.String(), got.String()))
		}
	}
	empty := &loader.Tree{}
	var want, got bytes.Buffer
	EncodeJSON(&want, treeJSON(empty))
	WriteTreeJSON(&got, empty)
	if got.String() != want.String() {
		t.Errorf("empty tree: %q, want %q", got.String(), want.String())
	}
}

// JSONTree is the native JSON document WriteTreeJSON streams, whole.
type JSONTree struct {
	Roots       []string      `json:"roots"`
	Files       []JSONFile    `json:"files"`
	Diagnostics []JSONDiag    `json:"diagnostics"`
	Dump        bool          `json:"nginx_T_dump,omitempty"`
	Inferred    []JSONPathMap `json:"inferred_maps,omitempty"`
}

// treeJSON is the native JSON document of the tree built whole: what
// WriteTreeJSON writes one file at a time.
func treeJSON(t *loader.Tree) JSONTree {
	idx := fileIndex(t)
	out := JSONTree{Roots: []string{}, Files: []JSONFile{}, Diagnostics: []JSONDiag{}, Dump: t.Dump}
	for _, r := range t.Roots {
		out.Roots = append(out.Roots, r.Path)
	}
	for _, m := range t.Inferred {
		out.Inferred = append(out.Inferred, JSONPathMap(m))
	}
	for _, f := range t.Files {
		out.Files = append(out.Files, jsonFile(f, idx))
	}
	out.Diagnostics = jsonDiags(t.Diagnostics)
	return out
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
	tr, err := loader.Load(p, loader.Options{})
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
	walk(Crossplane(tr).Config[0].Parsed)
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

// A file name or an argument that would reorder a terminal's text or start
// a runner's workflow command reaches parse's JSON as JSON escapes, with
// no JSONWriter around the call (the command had to add one).
func TestWriteTreeJSONEscaped(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a\u202e\u0085.conf")
	if err := os.WriteFile(name, []byte("events {}\nhttp { server { server_name \"##[x\u202e\"; } }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := loader.Load(name, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteTreeJSON(&got, tr); err != nil {
		t.Fatal(err)
	}
	out := got.String()
	for _, raw := range []string{"\u202e", "\u0085", "##["} {
		if strings.Contains(out, raw) {
			t.Errorf("%q raw in %s", raw, out)
		}
	}
	if !strings.Contains(out, `#\u0023[x\u202e`) {
		t.Errorf("the server name is not escaped as JSON: %s", out)
	}
}
