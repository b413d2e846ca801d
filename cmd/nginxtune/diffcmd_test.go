package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffExitCodes: no change 0, a change 1, a tree nginx would not load
// 2 with one line naming its file:line and nothing on standard output.
func TestDiffExitCodes(t *testing.T) {
	fx := filepath.Join(root, "fixtures", "diff")
	broken := filepath.Join(t.TempDir(), "nginx.conf")
	os.WriteFile(broken, []byte("events {}\nhttp {\n    server {\n"), 0o644)
	// an include that leads back to the file being read: nginx does not
	// load it either
	cycle := t.TempDir()
	os.WriteFile(filepath.Join(cycle, "nginx.conf"), []byte("events {}\nhttp {\n    include site.conf;\n}\n"), 0o644)
	os.WriteFile(filepath.Join(cycle, "site.conf"), []byte("server { listen 80; }\ninclude site.conf;\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{filepath.Join(fx, "reformat", "old"), filepath.Join(fx, "reformat", "new")}, 0, "no change in behaviour"},
		{[]string{filepath.Join(fx, "proxy-slash", "old"), filepath.Join(fx, "proxy-slash", "new"), "--format", "markdown"}, 1, "the URI sent upstream is /x"},
		{[]string{broken, filepath.Join(fx, "reformat", "new")}, 2, ""},
		{[]string{cycle, filepath.Join(fx, "reformat", "new")}, 2, ""},
		{[]string{filepath.Join(fx, "reformat", "old")}, 2, ""},
		{[]string{filepath.Join(fx, "reformat", "old"), filepath.Join(fx, "reformat", "new"), "--format", "yaml"}, 2, ""},
	} {
		var out, errb strings.Builder
		code := run(append([]string{"diff"}, c.args...), strings.NewReader(""), &out, &errb)
		if code != c.code || !strings.Contains(out.String(), c.out) {
			t.Errorf("%v: exit %d, want %d; stdout %q; stderr %q", c.args, code, c.code, out.String(), errb.String())
		}
		if c.code == 2 && (out.Len() != 0 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0) {
			t.Errorf("%v: want one line on stderr and nothing on stdout: %q %q", c.args, out.String(), errb.String())
		}
	}
	var out, errb strings.Builder
	run([]string{"diff", broken, broken}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(errb.String(), "nginx.conf:3:") {
		t.Errorf("no file:line: %q", errb.String())
	}
}
