package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const unformatted = "events { worker_connections 64; }\nhttp {\n  include sites-enabled/*;\n}\n"
const site = "server {   listen 80;\n\n\n   location / { return 200; }   # ok\n}\n"

// fmtTree writes a Debian-like tree: sites-enabled/app links to
// ../sites-available/app, and a file outside the tree is included by an
// absolute path.
func fmtTree(t *testing.T) (dir, outside string) {
	root := t.TempDir()
	dir = filepath.Join(root, "nginx")
	os.MkdirAll(filepath.Join(dir, "sites-available"), 0o755)
	os.MkdirAll(filepath.Join(dir, "sites-enabled"), 0o755)
	outside = filepath.Join(root, "outside.conf")
	os.WriteFile(outside, []byte("server {  listen 81; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(unformatted), 0o640)
	os.WriteFile(filepath.Join(dir, "sites-available", "app"), []byte(site), 0o600)
	os.Symlink("../sites-available/app", filepath.Join(dir, "sites-enabled", "app"))
	os.WriteFile(filepath.Join(dir, "sites-enabled", "other"), []byte("include "+outside+";\n"), 0o644)
	return dir, outside
}

func TestFmtTree(t *testing.T) {
	dir, outside := fmtTree(t)
	// --check and --diff write nothing and exit 1
	out, _, code := runCLI(t, "", "fmt", "--check", dir)
	if code != ExitFindings || !strings.Contains(out, "nginx.conf: would reformat") || !strings.Contains(out, "sites-enabled/app: would reformat") {
		t.Fatalf("--check: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "", "fmt", "--diff", dir)
	if code != ExitFindings || !strings.Contains(out, "+    worker_connections 64;") {
		t.Fatalf("--diff: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "nginx.conf")); string(b) != unformatted {
		t.Fatal("--check wrote")
	}
	_, errOut, code := runCLI(t, "", "fmt", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "sites-available", "app"))
	if want := "server {\n    listen 80;\n\n    location / { # ok\n        return 200;\n    }\n}\n"; string(b) != want {
		t.Errorf("site:\n%s\nwant:\n%s", b, want)
	}
	if l, err := os.Readlink(filepath.Join(dir, "sites-enabled", "app")); err != nil || l != "../sites-available/app" {
		t.Errorf("the link was replaced: %q %v", l, err)
	}
	for name, mode := range map[string]os.FileMode{"nginx.conf": 0o640, "sites-available/app": 0o600} {
		if fi, _ := os.Stat(filepath.Join(dir, name)); fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), mode)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "server {  listen 81; }\n" {
		t.Error("a file outside the tree was written")
	}
	out, _, code = runCLI(t, "", "fmt", "--check", dir)
	if code != ExitOK || out != "" {
		t.Errorf("not idempotent: exit %d\n%s", code, out)
	}
}

func TestFmtRefusesBroken(t *testing.T) {
	dir, _ := fmtTree(t)
	os.WriteFile(filepath.Join(dir, "sites-enabled", "broken"), []byte("server {\n  listen 80\n"), 0o644)
	_, errOut, code := runCLI(t, "", "fmt", dir)
	if code != ExitError || !strings.Contains(errOut, "broken:") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("exit %d: %q", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "nginx.conf")); string(b) != unformatted {
		t.Error("a file was formatted although another is broken")
	}
}

func TestFmtStdinAndSettings(t *testing.T) {
	out, _, code := runCLI(t, site, "fmt", "-")
	if code != ExitOK || !strings.HasPrefix(out, "server {\n    listen 80;") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, site, "fmt", "--check", "-")
	if code != ExitFindings || out != "<stdin>: would reformat\n" {
		t.Fatalf("--check -: exit %d %q", code, out)
	}
	_, errOut, code := runCLI(t, "http {\n", "fmt", "-")
	if code != ExitError || !strings.Contains(errOut, "<stdin>:") {
		t.Fatalf("broken stdin: exit %d %q", code, errOut)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".nginxtune.yaml"), []byte("fmt:\n  indent: 2\n"), 0o644)
	p := filepath.Join(dir, "nginx.conf")
	os.WriteFile(p, []byte(unformatted), 0o644)
	if _, errOut, code := runCLI(t, "", "fmt", p); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "\n  worker_connections 64;") {
		t.Errorf("indent 2 from the settings file:\n%s", b)
	}
	if _, _, code := runCLI(t, "", "fmt", "--tabs", p); code != ExitOK {
		t.Fatal("--tabs")
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "\n\tworker_connections 64;") {
		t.Errorf("--tabs:\n%s", b)
	}
	os.WriteFile(filepath.Join(dir, ".nginxtune.yaml"), []byte("fmt:\n  indent: 99\n"), 0o644)
	if _, errOut, code := runCLI(t, "", "fmt", p); code != ExitError || !strings.Contains(errOut, ".nginxtune.yaml:2") {
		t.Errorf("bad indent: exit %d %q", code, errOut)
	}
}

// A file the tree reaches through a hard link keeps its link: it is
// rewritten in place, not replaced.
func TestFmtHardLink(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "nginx.conf")
	os.WriteFile(p, []byte(unformatted), 0o644)
	other := filepath.Join(t.TempDir(), "copy.conf")
	if err := os.Link(p, other); err != nil {
		t.Skip("no hard links here:", err)
	}
	if _, errOut, code := runCLI(t, "", "fmt", p); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	a, _ := os.Stat(p)
	b, _ := os.Stat(other)
	if a.Sys().(*syscall.Stat_t).Ino != b.Sys().(*syscall.Stat_t).Ino {
		t.Error("the hard link was split")
	}
}

func TestFmtChanged(t *testing.T) {
	dir, _ := fmtTree(t)
	other := filepath.Join(dir, "supervisord.conf")
	os.WriteFile(other, []byte("[program:x]\ncommand=/bin/true\n"), 0o644)
	out, errOut, code := runCLI(t, "", "fmt", "--changed", "--check", filepath.Join(dir, "sites-available", "app"), other)
	if code != ExitFindings || !strings.Contains(out, "app: would reformat") || strings.Contains(out, "nginx.conf") || !strings.Contains(errOut, "skipped") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// The attack: `ln nginx.conf b; (ulimit -f 2; nginxtune fmt nginx.conf)`
// cut both names to 2,048 bytes. Run so, for real (a subprocess under
// bash's ulimit -f 2), fmt and lint --fix fail, say which file was not
// written, and both names keep every old byte: a file below the limit that
// would grow past it, and (for lint --fix, which writes the old content
// back after a failure) one already past the limit, which the old writing
// back could not restore either.
func TestFileSizeLimitCLI(t *testing.T) {
	if args := os.Getenv("NGINXTUNE_TEST_ARGS"); args != "" {
		os.Exit(run(strings.Split(args, "\n"), strings.NewReader(""), os.Stdout, os.Stderr))
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	fixable, err := os.ReadFile(filepath.Join(repoRoot(t), "fixtures/mission/proxy-variant-1.22.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		old  string
		args []string
	}{
		{"events {}\nhttp {\n" + strings.Repeat("server { listen 80; }\n", 80) + "}\n", []string{"fmt", "--no-config"}},
		{string(fixable) + strings.Repeat("# a comment that makes the file longer\n", 60), []string{"lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix"}},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			dir := t.TempDir()
			p, link := filepath.Join(dir, "nginx.conf"), filepath.Join(dir, "b")
			os.WriteFile(p, []byte(c.old), 0o644)
			if err := os.Link(p, link); err != nil {
				t.Skip("no hard links here:", err)
			}
			if (len(c.old) < 2048) != (c.args[0] == "fmt") {
				t.Fatalf("%d bytes: fmt's file must be below the limit, lint's past it", len(c.old))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", `ulimit -f 2 && exec "$@"`, "bash", os.Args[0], "-test.run=^TestFileSizeLimitCLI$")
			cmd.Env = append(os.Environ(), "NGINXTUNE_TEST_ARGS="+strings.Join(append(c.args, p), "\n"))
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitError {
				t.Errorf("exit: %v, want %d\n%s", err, ExitError, out)
			}
			if !strings.Contains(string(out), "file too large") || !strings.Contains(string(out), "not written: ") || !strings.Contains(string(out), "nginx.conf") {
				t.Errorf("the message does not say which file was not written:\n%s", out)
			}
			for _, name := range []string{p, link} {
				if b, _ := os.ReadFile(name); string(b) != c.old {
					t.Errorf("%s: %d bytes, want the old %d", name, len(b), len(c.old))
				}
			}
		})
	}
}
