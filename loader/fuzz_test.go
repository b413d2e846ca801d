package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzTree loads a tree whose files include each other through globs and
// symbolic links (one to a file in the tree, one to a directory outside
// it): no panic, no hang, and no file outside the tree is ever read.
func FuzzTree(f *testing.F) {
	f.Add([]byte("events {}\nhttp {\n    include conf.d/*.conf;\n    include link.conf;\n    include out/*;\n}\n"), []byte("include ../nginx.conf;\nsendfile on;\n"), uint8(3))
	f.Add([]byte("http { include /etc/passwd; include /proc/self/environ; include d*/d*/*.conf; }"), []byte("server { include ../conf.d/*.conf; }"), uint8(1))
	f.Fuzz(func(t *testing.T, main, snippet []byte, links uint8) {
		if len(main)+len(snippet) > 1<<15 {
			return
		}
		outside := t.TempDir()
		os.WriteFile(filepath.Join(outside, "secret.conf"), []byte("server_name SECRET;\n"), 0o644)
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755)
		os.WriteFile(filepath.Join(dir, "nginx.conf"), main, 0o644)
		os.WriteFile(filepath.Join(dir, "conf.d", "a.conf"), snippet, 0o644)
		if links&1 != 0 {
			os.Symlink("conf.d/a.conf", filepath.Join(dir, "link.conf"))
		}
		if links&2 != 0 {
			os.Symlink(outside, filepath.Join(dir, "out"))
		}
		if links&4 != 0 {
			os.Symlink(".", filepath.Join(dir, "conf.d", "d1"))
			os.Symlink(".", filepath.Join(dir, "conf.d", "d2"))
		}
		tr, err := Load(filepath.Join(dir, "nginx.conf"), Options{})
		if err != nil {
			return
		}
		real, _ := filepath.EvalSymlinks(dir)
		for _, file := range tr.Files {
			if !strings.HasPrefix(file.Path, real+"/") {
				t.Fatalf("read %s, outside %s", file.Path, real)
			}
			if strings.Contains(string(file.Src), "SECRET") && !strings.Contains(string(main)+string(snippet), "SECRET") {
				t.Fatalf("content from outside the tree in %s", file.Path)
			}
		}
	})
}
