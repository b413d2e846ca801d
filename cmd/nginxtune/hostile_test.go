package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A configuration from a pull request is untrusted. Whatever it includes,
// no output format carries a byte of a file outside the linted tree, of
// the environment or of /proc, and every bound is a finding with exit 2,
// not a hang, a crash or an exhausted machine.
func TestHostileInput(t *testing.T) {
	const marker = "NGINXTUNE_SECRET_7f3a9c"
	t.Setenv("NGINXTUNE_TEST_TOKEN", marker)
	outside := t.TempDir()
	secret := filepath.Join(outside, "credentials")
	os.WriteFile(secret, []byte(marker+" token\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.conf"), []byte("server_name "+marker+";\n"), 0o644)

	tree := t.TempDir()
	os.Symlink(secret, filepath.Join(tree, "linked.conf"))
	os.Symlink(outside, filepath.Join(tree, "linkdir"))
	conf := fmt.Sprintf(`events {}
http {
    include /proc/self/environ;
    include %[1]s;
    include %[2]s/*.conf;
    include linked.conf;
    include linkdir/*.conf;
    include ../%[3]s/credentials;
    %[4]s
}
`, secret, outside, filepath.Base(outside), marker+strings.Repeat("x", 5000)+" on;")
	main := filepath.Join(tree, "nginx.conf")
	os.WriteFile(main, []byte(conf), 0o644)
	// the relative ../ include must resolve next to tree for the test to mean anything
	os.Symlink(outside, filepath.Join(filepath.Dir(tree), filepath.Base(outside)))
	for _, format := range []string{"text", "json", "sarif", "github"} {
		out, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--format", format, main)
		if strings.Contains(out+errOut, marker+" token") || strings.Contains(out+errOut, "server_name "+marker) {
			t.Errorf("%s: content of a file outside the tree in the output:\n%s%s", format, out, errOut)
		}
		if strings.Count(out+errOut, marker) > 0 && strings.Contains(out+errOut, strings.Repeat("x", 100)) {
			t.Errorf("%s: a long argument is quoted whole", format)
		}
		if code == 3 {
			t.Errorf("%s: internal error", format)
		}
	}
	out, _, _ := runCLI(t, "", "lint", "--no-config", "--no-host", main)
	for _, want := range []string{"/proc/self/environ", "include-outside-tree"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q finding:\n%s", want, out)
		}
	}
}

// Files that are not regular are never read: a FIFO would block forever,
// /dev/zero would fill memory.
func TestHostileSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.conf")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include fifo.conf;\n    include /dev/zero;\n}\n"), 0o644)
	done := make(chan struct{})
	var out, errOut string
	var code int
	go func() {
		out, errOut, code = runCLI(t, "", "lint", "--no-config", "--no-host", filepath.Join(dir, "nginx.conf"))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("lint blocked on a FIFO")
	}
	if code != ExitError || !strings.Contains(out, "not a regular file") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
	// standard input without end: bounded
	_, errOut, code = runCLI(t, strings.Repeat("# x\n", (64<<20)/4+10), "lint", "--no-config", "-")
	if code != ExitError || !strings.Contains(errOut, "more than 64 MiB") {
		t.Errorf("endless stdin: exit %d: %s", code, errOut)
	}
}

// Include amplification: each file includes the next twice, 30 levels
// deep (2^30 places). nginxtune stops at its budget, says where, exits 2.
func TestHostileAmplification(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 30; i++ {
		body := fmt.Sprintf("include f%d.conf;\ninclude f%d.conf;\nsendfile on;\n", i+1, i+1)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.conf", i)), []byte(body), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "f30.conf"), []byte("gzip on;\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include f0.conf;\n}\n"), 0o644)
	start := time.Now()
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", filepath.Join(dir, "nginx.conf"))
	if time.Since(start) > 30*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	if code != ExitError || !strings.Contains(out, "expands to more than") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
}
