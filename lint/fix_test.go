package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/atomicfile"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
)

// fixSettings are the settings of lint --fix for conf: no settings file,
// no host facts, nginx 1.22.1.
func fixSettings(t *testing.T, conf string) *Settings {
	t.Helper()
	s, err := Resolve(Options{NoConfig: true, NoHost: true, NginxVersion: "1.22.1", Fix: true}, conf)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fixRun lints conf and applies the fixes, under --fix's lock.
func fixRun(t *testing.T, s *Settings, conf string) (Fixed, error) {
	t.Helper()
	unlock, err := LockDirs([]string{conf})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	res, err := s.Lint([]string{conf})
	if err != nil {
		t.Fatal(err)
	}
	return s.Fix([]string{conf}, res)
}

// The pieces of --fix's last check: nginx -t on a copy of the tree tells a
// good tree from a broken one, and restore puts the originals back.
func TestFixNginxCheckAndRestore(t *testing.T) {
	if nginxcheck.Binary() == "" || os.Geteuid() != 0 {
		t.Skip("needs nginx and root")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "nginx.conf")
	good := "events {}\nhttp {\n    include conf.d/*.conf;\n}\n"
	os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755)
	os.WriteFile(p, []byte(good), 0o644)
	os.WriteFile(filepath.Join(dir, "conf.d/a.conf"), []byte("server { listen 127.0.0.1:8080; }\n"), 0o644)
	load := func() []*loader.Tree {
		tr, err := loader.Load(p, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return []*loader.Tree{tr}
	}
	trees := load()
	if res, checked := nginxTest(trees, knowledge.Version{}); !checked || !res.OK {
		t.Fatalf("good tree: checked %v, %s", checked, res.Output)
	}
	originals := map[string][]byte{trees[0].Files[1].Path: trees[0].Files[1].Src}
	os.WriteFile(filepath.Join(dir, "conf.d/a.conf"), []byte("server { listen 127.0.0.1:8080; proxy_pass http://x; }\n"), 0o644)
	if res, checked := nginxTest(load(), knowledge.Version{}); !checked || res.OK {
		t.Fatalf("broken tree passed nginx -t")
	}
	f1 := trees[0].Files[1]
	restore(map[string]atomicfile.Key{f1.Path: {Dev: f1.Dev, Ino: f1.Ino}}, originals)
	if b, _ := os.ReadFile(filepath.Join(dir, "conf.d/a.conf")); !strings.Contains(string(b), "listen 127.0.0.1:8080; }") || strings.Contains(string(b), "proxy_pass") {
		t.Errorf("not restored: %s", b)
	}
}

// --fix writes through the file it read: a file, or the directory holding
// it, swapped for a link to a file outside between the read and the write
// (as a second process with write access to a checkout could) leaves the
// outside file as it was, and the run ends with exit 2.
func TestFixSwapForLink(t *testing.T) {
	site := "server {\n    listen 80;\n    location / { proxy_pass http://127.0.0.1:9000; }\n}\n"
	for _, swap := range []string{"file", "directory"} {
		t.Run(swap, func(t *testing.T) {
			outside := t.TempDir()
			victim := filepath.Join(outside, "site.conf")
			os.WriteFile(victim, []byte(site), 0o644)
			tree := t.TempDir()
			os.MkdirAll(filepath.Join(tree, "conf.d"), 0o755)
			os.WriteFile(filepath.Join(tree, "nginx.conf"), []byte("events {}\nhttp {\n    include conf.d/*.conf;\n}\n"), 0o644)
			mine := filepath.Join(tree, "conf.d/site.conf")
			os.WriteFile(mine, []byte(site), 0o644)
			conf := filepath.Join(tree, "nginx.conf")
			s := fixSettings(t, conf)
			swapped := false
			s.beforeWrite = func() {
				if swapped {
					return
				}
				swapped = true
				if swap == "file" {
					os.Remove(mine)
					os.Symlink(victim, mine)
					return
				}
				os.Rename(filepath.Join(tree, "conf.d"), filepath.Join(tree, "conf.d.old"))
				os.Symlink(outside, filepath.Join(tree, "conf.d"))
			}
			_, err := fixRun(t, s, conf)
			if !swapped {
				t.Fatalf("no fix was about to be written: %v", err)
			}
			if b, _ := os.ReadFile(victim); string(b) != site {
				t.Errorf("the outside file was rewritten:\n%s", b)
			}
			if err == nil || !strings.Contains(err.Error(), "changed while nginxtune was reading it") {
				t.Errorf("want an error with the reason: %v", err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 {
				t.Errorf("files left outside: %v", entries)
			}
		})
	}
}
