package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestDirNamesMatchesReadDir: dirNames lists what os.ReadDir lists, in its
// order, for directories of the machine and one too large for a single
// read of entries (names of every length and odd bytes).
func TestDirNamesMatchesReadDir(t *testing.T) {
	big := t.TempDir()
	for i := range 600 {
		name := fmt.Sprintf("%0*d-site\x01 é.conf", 1+i%200, i)
		if err := os.WriteFile(filepath.Join(big, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(big, "sub"), 0o755)
	os.Symlink("nowhere", filepath.Join(big, "dangling"))
	for _, dir := range []string{big, t.TempDir(), "/etc", "/usr/bin", "/proc/self"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Logf("%s: %v", dir, err)
			continue
		}
		var want []string
		for _, e := range entries {
			want = append(want, e.Name())
		}
		got, err := dirNames(dir)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d names, os.ReadDir %d; first difference near %q", dir, len(got), len(want), firstDifferent(got, want))
		}
	}
	if len(mustNames(t, big)) != 602 {
		t.Fatalf("the large directory: %d names, want 602", len(mustNames(t, big)))
	}
}

func mustNames(t *testing.T, dir string) []string {
	names, err := dirNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func firstDifferent(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i]
		}
	}
	return ""
}

// TestDirNamesRefuses: a file, a FIFO (not waited on) and a missing path
// are errors, as os.ReadDir's.
func TestDirNamesRefuses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, fifo, filepath.Join(dir, "missing")} {
		if _, err := dirNames(p); err == nil {
			t.Errorf("%s: no error", p)
		}
	}
}

// TestGlobOSMatchesFilepath: globOS answers as filepath.Glob for patterns
// of every shape over a tree with links, a file where a directory is
// expected, bad patterns and escapes.
func TestGlobOSMatchesFilepath(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/x.conf", "a/y.conf", "a/.hidden.conf", "a/z.txt", "b/c/x.conf", "f", "esc/*.conf", "esc/q.conf"} {
		p = filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "link"))
	os.Symlink("nowhere", filepath.Join(dir, "a", "dangling.conf"))
	os.Mkdir(filepath.Join(dir, "closed"), 0o000)
	defer os.Chmod(filepath.Join(dir, "closed"), 0o755)
	pats := []string{"a/*.conf", "a/*", "a/?.conf", "a/[xy].conf", "a/[", "a/x.conf", "a/missing", "link/*.conf", "f/*",
		"missing/*", "*/x.conf", "*/*/x.conf", "b/*/x.conf", "esc/\\*.conf", "esc/*", "closed/*", "", "*", "a/*.[", "a/"}
	for _, p := range pats {
		for _, full := range []string{filepath.Join(dir, p), dir + "/" + p} {
			want, werr := filepath.Glob(full)
			got, gerr := globOS(full)
			if !slices.Equal(got, want) || (werr == nil) != (gerr == nil) {
				t.Errorf("%q: %q, %v; filepath.Glob %q, %v", full, got, gerr, want, werr)
			}
		}
	}
	t.Chdir(dir)
	for _, p := range pats {
		want, werr := filepath.Glob(p)
		got, gerr := globOS(p)
		if !slices.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Errorf("%q (relative): %q, %v; filepath.Glob %q, %v", p, got, gerr, want, werr)
		}
	}
	if got, _ := globOS("/*"); !slices.Contains(got, "/etc") {
		t.Errorf(`"/*": %q, without /etc`, got)
	}
}
