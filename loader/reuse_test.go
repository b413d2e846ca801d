package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/nginxtune/nginxtune/parser"
)

// render writes out what a tree holds, for comparing two loads: each file
// with its names, each directive with its arguments, place and the files
// its include read, and every diagnostic.
func render(tr *Tree) string {
	var b strings.Builder
	for _, f := range tr.Files {
		fmt.Fprintf(&b, "file %s via=%q ctx=%v/%s broken=%v\n", f.Path, f.Via, f.Context, f.ContextSource, f.Broken)
		parser.WalkFile(f.Directives, func(d *parser.Directive) {
			fmt.Fprintf(&b, "  %d:%d %s %v", d.Line, d.Col, d.Name, d.ArgValues())
			for _, inc := range d.Includes() {
				fmt.Fprintf(&b, " -> %s", inc.Path)
			}
			b.WriteString("\n")
		})
	}
	for _, r := range tr.Roots {
		fmt.Fprintf(&b, "root %s\n", r.Path)
	}
	for _, d := range tr.Diagnostics {
		fmt.Fprintf(&b, "%s:%d:%d %s %s\n", d.File, d.Line, d.Col, d.Rule, d.Message)
	}
	fmt.Fprintf(&b, "outside %v unreadable %v\n", tr.Outside, tr.Unreadable)
	return b.String()
}

// reuseTree writes a tree: nginx.conf includes a snippet (itself with an
// include) and the sites, one of which has a syntax error.
func reuseTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sites"), 0o755)
	os.MkdirAll(filepath.Join(dir, "snippets"), 0o755)
	files := map[string]string{
		"nginx.conf":            "events {}\nhttp {\n    include snippets/common.conf;\n    include sites/*.conf;\n}\n",
		"snippets/common.conf":  "include snippets/headers.conf;\n",
		"snippets/headers.conf": "add_header X-Frame-Options DENY;\n",
		"sites/a.conf":          "server {\n    listen 80;\n    server_name a.example;\n}\n",
		"sites/b.conf":          "server {\n    listen 80;\n    server_name b.example;\n",
		"sites/c.conf":          "server {\n    listen 80;\n    server_name c.example\n    root /srv;\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReuseParsesOnlyWhatChanged: loads that share a Reuse give the tree a
// load without it gives, load after load, while the files change, an
// overlay comes and goes, and a file is replaced by another with the same
// text; a site file that did not change is the same parse, one that did, a
// new one, and a root or a file with includes (which loads write to) is
// never shared.
func TestReuseParsesOnlyWhatChanged(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		dir := reuseTree(t)
		main := filepath.Join(dir, "nginx.conf")
		a, b := filepath.Join(dir, "sites/a.conf"), filepath.Join(dir, "sites/b.conf")
		r := &Reuse{}
		var last *Tree
		step := func(what string, overlay map[string][]byte) *Tree {
			t.Helper()
			got, err := Load(main, Options{Reuse: r, Overlay: overlay})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			want, err := Load(main, Options{Overlay: overlay})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if g, w := render(got), render(want); g != w {
				t.Fatalf("%s: the tree loaded with Reuse differs:\n%s\nwant:\n%s", what, g, w)
			}
			return got
		}
		same := func(what string, tr *Tree, p string, want bool) {
			t.Helper()
			if got := tr.File(p) == last.File(p); got != want {
				t.Errorf("%s: %s shared with the last load: %v, want %v", what, filepath.Base(p), got, want)
			}
		}
		last = step("first load", nil)
		tr := step("nothing changed", nil)
		same("nothing changed", tr, a, true)
		same("nothing changed", tr, b, true) // its syntax error comes back with it
		same("nothing changed", tr, main, false)
		same("nothing changed", tr, filepath.Join(dir, "snippets/common.conf"), false)
		same("nothing changed", tr, filepath.Join(dir, "snippets/headers.conf"), true)
		last = tr
		tr = step("an overlay", map[string][]byte{a: []byte("server {\n    listen 81;\n}\n")})
		same("an overlay", tr, a, false)
		same("an overlay", tr, b, true)
		last = tr
		tr = step("the overlay gone", nil)
		same("the overlay gone", tr, a, false)
		last = tr
		os.WriteFile(b, []byte("server {\n    listen 80;\n    server_name b.example;\n}\n"), 0o644)
		tr = step("b fixed on disk", nil)
		same("b fixed on disk", tr, b, false)
		same("b fixed on disk", tr, a, true)
		last = tr
		// the same text in another file under the same name (the old
		// one kept aside, so that its inode is not given again)
		text, _ := os.ReadFile(a)
		os.Rename(a, a+".old")
		os.WriteFile(a, text, 0o644)
		tr = step("a replaced", nil)
		same("a replaced", tr, a, false)
		last = tr
		tr = step("a replaced, again", nil)
		same("a replaced, again", tr, a, true)
		// the site loaded on its own is a root: parsed again, and its
		// context settled on that parse, not on the shared one
		alone, err := Load(a, Options{Reuse: r})
		if err != nil || alone.File(a) == tr.File(a) || tr.File(a).Context != nil {
			t.Errorf("a site loaded alone shares the parse of the tree's (err %v)", err)
		}
	})
}

// bothWays runs a test of loads with the files read in turn and, with
// every include's files read ahead in parallel (prefetch), again.
func bothWays(t *testing.T, test func(t *testing.T)) {
	for _, parallel := range []bool{false, true} {
		t.Run(fmt.Sprintf("prefetch=%v", parallel), func(t *testing.T) {
			if parallel {
				old := prefetchMin
				prefetchMin = 0
				t.Cleanup(func() { prefetchMin = old })
			}
			test(t)
		})
	}
}

// TestReuseKeepsBoundary is the attack on the parse cache: a site file
// read and kept by one load is replaced by a link to a file outside the
// tree with the same text. The next load must read the tree as a load
// without the cache does: the include finds the link outside and nothing
// of the outside file (its marker) is in the tree. A cache looked up by the
// path as named, before the boundary, would hand the kept parse back.
func TestReuseKeepsBoundary(t *testing.T) {
	outside := t.TempDir()
	dir := reuseTree(t)
	main := filepath.Join(dir, "nginx.conf")
	site := filepath.Join(dir, "sites/a.conf")
	text := []byte("server {\n    listen 80;\n    server_name OUTSIDE_MARKER;\n}\n")
	os.WriteFile(site, text, 0o644)
	os.WriteFile(filepath.Join(outside, "a.conf"), text, 0o644)
	r := &Reuse{}
	for range 2 {
		if _, err := Load(main, Options{Reuse: r}); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(site)
	if err := os.Symlink(filepath.Join(outside, "a.conf"), site); err != nil {
		t.Fatal(err)
	}
	got, err := Load(main, Options{Reuse: r})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Load(main, Options{})
	if g, w := render(got), render(want); g != w {
		t.Fatalf("the tree loaded with Reuse differs:\n%s\nwant:\n%s", g, w)
	}
	if strings.Contains(render(got), "OUTSIDE_MARKER") || got.File(site) != nil {
		t.Errorf("the file outside the tree was read through the cache:\n%s", render(got))
	}
	if !strings.Contains(messages(got), IncludeOutsideTree) {
		t.Errorf("the link outside is not reported:\n%s", messages(got))
	}
}

// Visits is what loading counted to bound the walk (no second walk of the
// tree to count it again), and what Walk meets: a file included from two
// places counted twice, a map's entries not at all.
func TestVisitsAsCounted(t *testing.T) {
	fsys := fstest.MapFS{
		"nginx.conf":  {Data: []byte("events {}\nhttp {\n    map $a $b { default 1; x 2; }\n    server { include common.conf; }\n    server { include common.conf; listen 81; }\n}\n")},
		"common.conf": {Data: []byte("root /srv;\nlocation / { index i; }\n")},
	}
	tree, err := LoadFS(fsys, "nginx.conf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	walked := 0
	tree.Walk(func(*parser.Directive, *parser.Context) bool { walked++; return true })
	counted := tree.visits
	tree.counted = false
	recount := tree.Visits()
	if counted != walked || recount != walked || walked != 14 {
		t.Errorf("loading counted %d visits, a count of the tree %d, the walk met %d; want 14", counted, recount, walked)
	}
}

// TestReuseReadsAFileThatChanged: a file Options.Reuse kept is taken
// without reading it only while a stat says it is unchanged since the
// load that read it; one rewritten with text of the same size, its
// modification time put back, and one rewritten within racyWindow of
// that load, are read again, and the tree is what a load without Reuse
// gives. The attack on a reader that trusts the size and modification
// time alone: the tree shows the text from before.
func TestReuseReadsAFileThatChanged(t *testing.T) {
	old := racyWindow
	t.Cleanup(func() { racyWindow = old })
	bothWays(t, func(t *testing.T) {
		dir := reuseTree(t)
		main := filepath.Join(dir, "nginx.conf")
		a := filepath.Join(dir, "sites/a.conf")
		r := &Reuse{}
		load := func(what string) *Tree {
			t.Helper()
			got, err := Load(main, Options{Reuse: r})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			want, err := Load(main, Options{})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if g, w := render(got), render(want); g != w {
				t.Fatalf("%s: the tree loaded with Reuse differs:\n%s\nwant:\n%s", what, g, w)
			}
			return got
		}
		// the files were written just now: with the window, every load
		// reads them
		racyWindow = time.Hour
		first := load("first load")
		if tr := load("in the window"); r.files[a].st != nil || tr.File(a) != first.File(a) {
			t.Errorf("a file changed within the window is taken unread (or not shared)")
		}
		racyWindow = 0
		time.Sleep(10 * time.Millisecond)
		first = load("read after the window")
		if r.files[a].st == nil {
			t.Fatal("a file unchanged for longer than the window is read on every load")
		}
		if tr := load("unchanged"); tr.File(a) != first.File(a) {
			t.Error("an unchanged file is parsed again")
		}
		st, err := os.Stat(a)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := os.ReadFile(a)
		changed := strings.Replace(string(text), "a.example", "x.example", 1)
		if err := os.WriteFile(a, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(a, st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
		if tr := load("same size and times"); !strings.Contains(string(tr.File(a).Src), "x.example") {
			t.Error("a file rewritten with the same size and modification time is taken from before")
		}
	})
}

// TestReuseUnchangedIgnoresOverlayBytes: a file whose bytes came from an
// Overlay (an editor's unsaved buffer) is kept with the stat of the file on
// disk; once the overlay is gone (the buffer closed without saving), a load
// must read the disk's bytes, not take the overlay's text as "unchanged".
func TestReuseUnchangedIgnoresOverlayBytes(t *testing.T) {
	old := racyWindow
	t.Cleanup(func() { racyWindow = old })
	racyWindow = 0
	dir := reuseTree(t)
	main := filepath.Join(dir, "nginx.conf")
	a := filepath.Join(dir, "sites/a.conf")
	time.Sleep(10 * time.Millisecond)
	disk, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	unsaved := strings.Replace(string(disk), "a.example", "UNSAVED.example", 1)
	r := &Reuse{}
	if _, err := Load(main, Options{Reuse: r, Overlay: map[string][]byte{a: []byte(unsaved)}}); err != nil {
		t.Fatal(err)
	}
	// the buffer closed without saving: no overlay any more
	tr, err := Load(main, Options{Reuse: r})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tr.File(a).Src); got != string(disk) {
		t.Fatalf("the load without overlay shows the discarded buffer's text:\n%s", got)
	}
}
