package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
)

// TestIncludedByOneBoundary: the command line and the language server ask
// one function which tree includes a file, where they had two that
// disagreed. With no bound given, the search stays in the file's own
// directory (the language server without a workspace folder searched every
// directory up to /, so another user's nginx.conf in /tmp above a checkout
// became the file's tree); with a bound reached through a link, the file's
// tree inside it is found (lint --changed and lint FILE, run in a checkout
// reached through a link, compared the resolved file with the link and
// found none). An nginx.conf above the bound is never found.
func TestIncludedByOneBoundary(t *testing.T) {
	top := t.TempDir()
	tree := filepath.Join(top, "tree")
	os.MkdirAll(filepath.Join(tree, "sites"), 0o755)
	os.WriteFile(filepath.Join(top, "nginx.conf"), []byte("events {}\nhttp { include tree/sites/*.conf; }\n"), 0o644)
	os.WriteFile(filepath.Join(tree, "nginx.conf"), []byte("events {}\nhttp { include sites/*.conf; }\n"), 0o644)
	site := filepath.Join(tree, "sites", "a.conf")
	os.WriteFile(site, []byte("server { listen 80; }\n"), 0o644)
	link := filepath.Join(t.TempDir(), "checkout")
	if err := os.Symlink(tree, link); err != nil {
		t.Fatal(err)
	}
	loads := 0
	load := func(main string) (*loader.Tree, error) {
		loads++
		return loader.Load(main, loader.Options{})
	}
	for _, c := range []struct {
		name, file, bound, want string
	}{
		{"no bound: the file's directory only", site, "", ""},
		{"bound through a link", site, link, filepath.Join(tree, "nginx.conf")},
		{"file through the link", filepath.Join(link, "sites", "a.conf"), tree, filepath.Join(tree, "nginx.conf")},
		{"bound below the main file", site, filepath.Join(tree, "sites"), ""},
		{"bound above the tree: nearest first", site, top, filepath.Join(tree, "nginx.conf")},
		{"file outside the bound", filepath.Join(top, "nginx.conf"), tree, ""},
		{"a main file is its own", filepath.Join(tree, "nginx.conf"), tree, ""},
	} {
		got, tr := IncludedBy(c.file, c.bound, load)
		if got != c.want || (tr != nil) != (c.want != "") {
			t.Errorf("%s: IncludedBy(%s, %q) = %q (tree %v), want %q", c.name, c.file, c.bound, got, tr != nil, c.want)
		}
		if c.want != "" && tr.File(site) == nil {
			t.Errorf("%s: the tree does not hold the file", c.name)
		}
	}
	// a main file found that does not include the file is not its tree
	os.WriteFile(filepath.Join(tree, "nginx.conf"), []byte("events {}\n"), 0o644)
	if got, _ := IncludedBy(site, tree, load); got != "" {
		t.Errorf("a main file that does not include the file: %q", got)
	}
	if loads == 0 {
		t.Error("no tree was read")
	}
}
