package parser

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// WriteJSON streams exactly what encoding the whole JSON() document does.
func TestWriteJSONMatchesEncoder(t *testing.T) {
	var paths []string
	for _, pat := range []string{"../fixtures/mission/*.conf", "../fixtures/rules/*.conf", "../fixtures/parser/*/*.conf", "../fixtures/trees/*"} {
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
