package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
)

// WriteTreeJSON streams exactly what encoding the whole document does.
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
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(treeJSON(tr)); err != nil {
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
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.Encode(treeJSON(empty))
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
