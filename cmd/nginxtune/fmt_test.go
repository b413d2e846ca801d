package main

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

const unformatted = "events { worker_connections 64; }\nhttp {\n    include sites-enabled/*;\n}\n"
const site = "server {   listen 80;\n\n\n\n    location / { return 200; }   # ok\n}\n"

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
	// two blank lines at most; the statements before a comment stay on its line
	if want := "server {\n    listen 80;\n\n\n    location / { return 200; } # ok\n}\n"; string(b) != want {
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

// A broken file is refused, named with its line, and left as it is; each
// file is judged alone, so the tree's other files are formatted (one
// broken include held back every file of the tree).
func TestFmtRefusesBroken(t *testing.T) {
	dir, _ := fmtTree(t)
	broken := filepath.Join(dir, "sites-enabled", "broken")
	os.WriteFile(broken, []byte("server {\n  listen 80\n"), 0o644)
	_, errOut, code := runCLI(t, "", "fmt", dir)
	if code != ExitError || !strings.Contains(errOut, "sites-enabled/broken:2:") || strings.Count(errOut, "broken") != 1 {
		t.Fatalf("exit %d: %q", code, errOut)
	}
	if b, _ := os.ReadFile(broken); string(b) != "server {\n  listen 80\n" {
		t.Errorf("the broken file was written: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "nginx.conf")); string(b) == unformatted {
		t.Error("the other files were not formatted")
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

// A file a tree includes through a link out of the tree is never
// formatted, and fmt says so (it passed over it without a word): nginx
// reads it there, the check of the tree does not cover it.
func TestFmtSaysWhatLiesOutside(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sites"), 0o755)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include sites/*.conf;\n}\n"), 0o644)
	os.WriteFile(filepath.Join(out, "x.conf"), []byte(unformatted), 0o644)
	if err := os.Symlink(filepath.Join(out, "x.conf"), filepath.Join(dir, "sites", "x.conf")); err != nil {
		t.Skip(err)
	}
	_, errOut, code := runCLI(t, "", "fmt", "--check", filepath.Join(dir, "nginx.conf"))
	if code != ExitOK || !strings.Contains(errOut, "nginx.conf:3: not formatted: include \"sites/*.conf\": sites/x.conf is a link to files outside") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "x.conf")); string(b) != unformatted {
		t.Error("the file outside the tree was written")
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

// The attack: a suppression at the end of a one-line block's line. fmt
// moved it to the block's "{" line and the directive to the next, so lint
// then reported the finding it silenced and an unused suppression.
func TestFmtKeepsSuppressionOnItsLine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "nginx.conf")
	os.WriteFile(p, []byte("events {}\nhttp {\n    server {\n        listen 80;\n"+
		"        location /files/ {   autoindex on; }  # nginxtune:disable autoindex-on -- a public mirror\n"+
		"        location /b/ { autoindex on;  # nginxtune:disable autoindex-on -- another\n        }\n    }\n}\n"), 0o644)
	lint := func() string {
		out, _, _ := runCLI(t, "", "lint", "--no-config", "--no-host", p)
		return out
	}
	if out := lint(); strings.Contains(out, "autoindex-on") || strings.Contains(out, "unused-suppression") {
		t.Fatalf("before fmt:\n%s", out)
	}
	if _, errOut, code := runCLI(t, "", "fmt", "--no-config", p); code != ExitOK {
		t.Fatalf("fmt: exit %d: %s", code, errOut)
	}
	if out := lint(); strings.Contains(out, "autoindex-on") || strings.Contains(out, "unused-suppression") {
		b, _ := os.ReadFile(p)
		t.Errorf("after fmt:\n%s\n%s", out, b)
	}
}

// Debian's conffiles as the installed package has them: `nginxtune fmt
// /etc/nginx` rewrote them (tabs to spaces, the first blank line of
// mime.types, two blank lines, aligned fastcgi_param columns), and dpkg
// then counted them as modified. A copy of every stock file under
// /etc/nginx (its md5 still dpkg's) comes out byte for byte, formatted as
// the tree nginx reads (with --map) and each file on its own.
func TestFmtDebianStockUnchanged(t *testing.T) {
	dpkg, err := exec.LookPath("dpkg-query")
	if err != nil {
		t.Skip("no dpkg-query")
	}
	list, err := exec.Command(dpkg, "-W", "-f=${Conffiles}\n", "nginx-common").Output()
	if err != nil {
		t.Skip("nginx-common is not installed")
	}
	dir := t.TempDir()
	var files []string
	for _, line := range strings.Split(string(list), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[0], "/etc/nginx/") {
			continue
		}
		b, err := os.ReadFile(f[0])
		if err != nil || fmt.Sprintf("%x", md5.Sum(b)) != f[1] {
			continue // changed here: not the package's
		}
		p := filepath.Join(dir, strings.TrimPrefix(f[0], "/etc/nginx/"))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, b, 0o644)
		files = append(files, p)
	}
	if !slices.Contains(files, filepath.Join(dir, "nginx.conf")) || len(files) < 8 {
		t.Skipf("only %d stock files unchanged in /etc/nginx", len(files))
	}
	os.MkdirAll(filepath.Join(dir, "sites-enabled"), 0o755)
	os.Symlink("../sites-available/default", filepath.Join(dir, "sites-enabled", "default"))
	runs := [][]string{{"fmt", "--no-config", "--check", "--map", "/etc/nginx=" + dir, dir}}
	for _, f := range files {
		runs = append(runs, []string{"fmt", "--no-config", "--changed", "--check", f})
	}
	for _, args := range runs {
		if out, errOut, code := runCLI(t, "", args...); code != ExitOK {
			t.Errorf("%s: exit %d\n%s%s", args[len(args)-1], code, out, errOut)
		}
	}
	if _, errOut, code := runCLI(t, "", "fmt", "--no-config", "--map", "/etc/nginx="+dir, dir); code != ExitOK || errOut != "" {
		t.Errorf("fmt: exit %d: %s", code, errOut)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		old, _ := os.ReadFile("/etc/nginx/" + strings.TrimPrefix(f, dir+"/"))
		if string(b) != string(old) {
			t.Errorf("%s was rewritten", f)
		}
	}
	t.Logf("%d stock files", len(files))
}

// One file fmt cannot format (a syntax error, a main file without events,
// which nginx -t refuses but whose text reads whole) stopped a
// multi-file --check at the first (exit 2, nothing said of the others).
// Each is said, the others are checked, and the exit is the worst.
func TestFmtCheckGoesOn(t *testing.T) {
	dir := t.TempDir()
	noEvents := filepath.Join(dir, "a", "nginx.conf")
	broken := filepath.Join(dir, "b", "site.conf")
	loose := filepath.Join(dir, "c", "site.conf")
	for p, body := range map[string]string{
		noEvents: "http {\n  server { listen 80; }\n}\n",
		broken:   "server {\n    listen 80\n",
		loose:    "server { listen 81; }\n",
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	out, errOut, code := runCLI(t, "", "fmt", "--no-config", "--check", noEvents, broken, loose, filepath.Join(dir, "missing.conf"))
	if code != ExitError || !strings.Contains(out, "a/nginx.conf: would reformat") || !strings.Contains(out, "c/site.conf: would reformat") ||
		!strings.Contains(errOut, "b/site.conf:") || !strings.Contains(errOut, "missing.conf") || strings.Count(errOut, "\n") != 2 {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	// writing: each file judged alone; the refusal said with its line, the
	// others formatted, the main file without events among them, exit 2
	_, errOut, code = runCLI(t, "", "fmt", "--no-config", noEvents, broken, loose)
	if b, _ := os.ReadFile(loose); code != ExitError || string(b) != "server {\n    listen 81;\n}\n" || !strings.Contains(errOut, "b/site.conf:2:") {
		t.Errorf("exit %d, %q\n%s", code, b, errOut)
	}
	if b, _ := os.ReadFile(noEvents); string(b) != "http {\n  server {\n    listen 80;\n  }\n}\n" {
		t.Errorf("the main file without events: %q", b)
	}
	if b, _ := os.ReadFile(broken); string(b) != "server {\n    listen 80\n" {
		t.Errorf("the broken file was written: %q", b)
	}
}

// The pre-commit hook's run (--changed) and standard input give the same
// bytes: --changed skipped, as not nginx configuration, a file that reads
// whole but whose directives are a module's the table does not know
// (centminmod's vts_server.conf kept no final newline, pothi's
// pagespeed.conf its trailing blank line, where fmt - fixed both); a main
// file without events is formatted; one refused file stops nothing else.
func TestFmtChangedSameBytesAsStdin(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"vts_server.conf": "vhost_traffic_status on;",
		"pagespeed.conf":  "pagespeed on;\npagespeed Disallow \"*/wp-admin/*\";\n\n",
		"nginx.conf":      "http {\n  server { listen 80; }\n}\n",
		"site.conf":       "server {listen 81;}\n",
		"broken.conf":     "server {\n    listen 80\n",
	}
	var args []string
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		args = append(args, p)
	}
	slices.Sort(args)
	_, errOut, code := runCLI(t, "", append([]string{"fmt", "--no-config", "--changed"}, args...)...)
	if code != ExitError || !strings.Contains(errOut, "broken.conf:2:") || strings.Contains(errOut, "skipped") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	for name, body := range files {
		out, _, code := runCLI(t, body, "fmt", "--no-config", "-")
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if code == ExitOK && string(b) != out || code != ExitOK && string(b) != body {
			t.Errorf("%s: --changed wrote %q, standard input %q (exit %d)", name, b, out, code)
		}
	}
}

// fmt rewrote a read-only file without being asked; lint --fix leaves one
// as it is unless --force. So does fmt now, and formats the others.
func TestFmtReadOnly(t *testing.T) {
	dir := t.TempDir()
	ro, rw := filepath.Join(dir, "ro.conf"), filepath.Join(dir, "rw.conf")
	os.WriteFile(ro, []byte("server { listen 80; }\n"), 0o444)
	os.WriteFile(rw, []byte("server { listen 81; }\n"), 0o644)
	_, errOut, code := runCLI(t, "", "fmt", "--no-config", ro, rw)
	if b, _ := os.ReadFile(ro); code != ExitError || string(b) != "server { listen 80; }\n" || !strings.Contains(errOut, "ro.conf is read-only (--force") {
		t.Errorf("exit %d, %q\n%s", code, b, errOut)
	}
	if b, _ := os.ReadFile(rw); string(b) != "server {\n    listen 81;\n}\n" {
		t.Errorf("the writable file: %q", b)
	}
	if _, errOut, code := runCLI(t, "", "fmt", "--no-config", "--force", ro); code != ExitOK {
		t.Errorf("--force: exit %d: %s", code, errOut)
	}
	if fi, _ := os.Stat(ro); fi.Mode().Perm() != 0o444 {
		t.Errorf("--force: mode %v", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(ro); string(b) != "server {\n    listen 80;\n}\n" {
		t.Errorf("--force: %q", b)
	}
}

// `fmt -` laid out "listen 80 location / {...}" (a ";" missing, which
// nginx refuses) as if it were sound. It refuses it with the line.
func TestFmtStdinRefusesWhatNginxRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"server {\n    listen 80 location / { return 200; }\n}\n":             `nginxtune: <stdin>:2:5: "listen" takes no block`,
		"location / {\n    proxy_pass http://a\n    proxy_redirect off;\n}\n": `nginxtune: <stdin>:2:24: missing ";"`,
	} {
		out, errOut, code := runCLI(t, in, "fmt", "--no-config", "-")
		if code != ExitError || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d %q %q", in, code, out, errOut)
		}
	}
}

// --align, and fmt: {align: true} in .nginxtune.yaml (the flag wins),
// line up first arguments; off by default.
func TestFmtAlign(t *testing.T) {
	in := "server {\n    listen 80;\n    server_name a;\n}\n"
	aligned := "server {\n    listen      80;\n    server_name a;\n}\n"
	if out, errOut, code := runCLI(t, in, "fmt", "--no-config", "-"); code != ExitOK || out != in {
		t.Errorf("default: exit %d %q %s", code, out, errOut)
	}
	if out, errOut, code := runCLI(t, in, "fmt", "--no-config", "--align", "-"); code != ExitOK || out != aligned {
		t.Errorf("--align: exit %d %q %s", code, out, errOut)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".nginxtune.yaml"), []byte("fmt:\n  align: true\n"), 0o644)
	p := filepath.Join(dir, "site.conf")
	os.WriteFile(p, []byte(in), 0o644)
	if out, errOut, code := runCLI(t, "", "fmt", "--check", "--align=false", p); code != ExitOK {
		t.Errorf("--align=false over the settings: exit %d %s%s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "", "fmt", p); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(p); string(b) != aligned {
		t.Errorf("align from the settings file: %q", b)
	}
	os.WriteFile(filepath.Join(dir, ".nginxtune.yaml"), []byte("fmt:\n  align: yes please\n"), 0o644)
	if _, errOut, code := runCLI(t, "", "fmt", p); code != ExitError || !strings.Contains(errOut, ".nginxtune.yaml:2") {
		t.Errorf("bad align: exit %d %q", code, errOut)
	}
}

// TestFmtFileAndStdinSameBytes formats every corpus file from a path (in a
// copy, one run for them all, as the pre-commit hook's --changed and as
// main files) and from standard input: the same bytes either way, and a
// file standard input refuses is left as it was and named, while the run
// formats every other file (exit 2).
func TestFmtFileAndStdinSameBytes(t *testing.T) {
	corpus := filepath.Join(repoRoot(t), "../shared/corpus")
	nginxtest.RequireCorpus(t, corpus)
	type entry struct{ rel, src, out string }
	var all []entry
	refused := 0
	filepath.WalkDir(corpus, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".tsv") || strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(corpus, p)
		out, _, code := runCLI(t, string(b), "fmt", "--no-config", "-")
		if code != ExitOK {
			out = string(b) // refused: left as it was
			refused++
		}
		all = append(all, entry{rel, string(b), out})
		return nil
	})
	if len(all) < 2000 || refused == 0 {
		t.Fatalf("%d corpus files, %d refused on standard input", len(all), refused)
	}
	for _, mode := range [][]string{{"--changed"}, {}} {
		dir := t.TempDir()
		args := append([]string{"fmt", "--no-config"}, mode...)
		for _, e := range all {
			p := filepath.Join(dir, e.rel)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(e.src), 0o644)
			args = append(args, p)
		}
		_, errOut, code := runCLI(t, "", args...)
		if code != ExitError {
			t.Errorf("%v: exit %d, want 2 (a refused file)", mode, code)
		}
		differ := 0
		for _, e := range all {
			p := filepath.Join(dir, e.rel)
			b, _ := os.ReadFile(p)
			if string(b) != e.out {
				if differ++; differ <= 10 {
					t.Errorf("%v %s: from the path %q..., from standard input %q...", mode, e.rel, clip(string(b)), clip(e.out))
				}
			}
			if e.out == e.src && e.src != "" && !strings.Contains(errOut, p) {
				if _, _, code := runCLI(t, e.src, "fmt", "--no-config", "--check", "-"); code != ExitOK {
					t.Errorf("%v %s: refused from standard input, not named from the path", mode, e.rel)
				}
			}
		}
		t.Logf("%v: %d files, %d differ; %d refused from standard input", mode, len(all), differ, refused)
	}
}

func clip(s string) string { return s[:min(len(s), 60)] }
