package generate

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// debianTree writes a Debian-like /etc/nginx into a temporary directory:
// nginx.conf includes sites-enabled, where the stock site is a link into
// sites-available.
func debianTree(t *testing.T) string {
	t.Helper()
	etc := filepath.Join(t.TempDir(), "etc/nginx")
	for _, d := range []string{"conf.d", "sites-available", "sites-enabled"} {
		if err := os.MkdirAll(filepath.Join(etc, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		"nginx.conf":              "user www-data;\nworker_processes auto;\nevents {\n    worker_connections 768;\n}\nhttp {\n    include /etc/nginx/mime.types;\n    include /etc/nginx/conf.d/*.conf;\n    include /etc/nginx/sites-enabled/*;\n}\n",
		"mime.types":              "types {\n    text/html html;\n}\n",
		"sites-available/default": "server {\n    listen 80 default_server;\n    root /var/www/html;\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(etc, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../sites-available/default", filepath.Join(etc, "sites-enabled/default")); err != nil {
		t.Fatal(err)
	}
	return etc
}

// siteInto asks gen for a static site added to the tree in etc, sized
// without reading the host and not verified with nginx -t.
func siteInto(etc string) Options {
	return Options{Profile: "static", ServerNames: []string{"new.example"}, Into: etc, CPUs: 2, CPUsSet: true, Memory: "4GiB",
		NoFile: "1024:524288", NginxVersion: "1.22.1"}
}

// The final write goes through descriptors: a directory of the tree swapped
// for a link out of it between gen's checks and its write gets nothing
// written through it; the run says so.
func TestGenWriteSwapForLink(t *testing.T) {
	etc := debianTree(t)
	outside := t.TempDir()
	swapped := false
	o := siteInto(etc)
	o.BeforeWrite = func() {
		swapped = true
		os.Rename(filepath.Join(etc, "sites-available"), filepath.Join(etc, "sites-available.old"))
		os.Symlink(outside, filepath.Join(etc, "sites-available"))
	}
	_, err := Run(o)
	if !swapped {
		t.Fatalf("nothing was about to be written: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written through the link swapped in: %v", entries)
	}
	if err == nil || !strings.Contains(err.Error(), "sites-available is a symbolic link now") || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("%v, want the link named and nothing written", err)
	}
	if _, err := os.Lstat(filepath.Join(etc, "sites-enabled/new.example")); err == nil {
		t.Errorf("the site's link was written although its file was not")
	}
}

// A directory swapped for a link out after gen staged a file in it: the
// rename through the link is refused, and the staged copy is removed from
// the directory where it was made (it stayed behind, 12 runs in 200).
func TestGenSwapAfterStagingLeavesNothing(t *testing.T) {
	etc := debianTree(t)
	outside := t.TempDir()
	swapped := false
	o := siteInto(etc)
	o.AfterStage = func() {
		if !swapped {
			swapped = true
			os.Rename(filepath.Join(etc, "sites-available"), filepath.Join(etc, "sites-available.old"))
			os.Symlink(outside, filepath.Join(etc, "sites-available"))
		}
	}
	if _, err := Run(o); !swapped || err == nil {
		t.Fatalf("swapped %v, error %v", swapped, err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written through the link swapped in: %v", entries)
	}
	filepath.WalkDir(etc, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".nginxtune-") {
			t.Errorf("a staged copy left behind: %s", p)
		}
		return nil
	})
}
