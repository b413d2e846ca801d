package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// The Debian package, as an operator installs it: make deb builds it
// reproducibly, lintian finds nothing, dpkg -i installs a binary that lints
// /etc/nginx, manual pages that show every flag and completions that load,
// and dpkg -r leaves none of its files behind. dpkg installs into a root of
// the test's own (dpkg --root): the machine's package database, and its
// lock, which another make test or apt may hold, are not touched.
func TestDebianPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs a Debian package (the full tier, make test)")
	}
	if os.Geteuid() != 0 {
		t.Skip("installing a package needs root")
	}
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("no dpkg-deb: not a Debian system")
	}
	build := func(dir string) string {
		cmd := exec.Command("bash", "scripts/deb.sh", dir)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1764547200", "VERSION=0.6.0~test")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("scripts/deb.sh: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	deb := build(t.TempDir())
	again := build(t.TempDir())
	a, _ := os.ReadFile(deb)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("two builds of one commit differ (%d and %d bytes)", len(a), len(b))
	}
	if filepath.Base(deb) != "nginxtune_0.6.0~test_"+strings.TrimSpace(runOK(t, "dpkg", "--print-architecture"))+".deb" {
		t.Errorf("package name %s", filepath.Base(deb))
	}
	if _, err := exec.LookPath("lintian"); err == nil {
		lintian := exec.Command("lintian", "-I", "--tag-display-limit", "0", deb)
		// its temporary files (mldbm-elf-*) are left behind: in the test's own
		lintian.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
		out, _ := lintian.CombinedOutput()
		var tags []string
		for _, l := range strings.Split(string(out), "\n") {
			if l != "" && !strings.Contains(l, "root privileges") {
				tags = append(tags, l)
			}
		}
		if len(tags) > 0 {
			t.Errorf("lintian:\n%s", strings.Join(tags, "\n"))
		}
	} else if os.Getenv("CI") != "" {
		t.Error("lintian is not installed; scripts/deps.sh installs it")
	}

	r := t.TempDir()
	for _, d := range []string{"updates", "info", "triggers"} {
		if err := os.MkdirAll(filepath.Join(r, "var/lib/dpkg", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(r, "var/lib/dpkg/status"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, "dpkg", "--root="+r, "-i", deb)
	files := strings.Fields(runOK(t, "dpkg", "--root="+r, "-L", "nginxtune"))
	bin := filepath.Join(r, "usr/bin/nginxtune")
	if v := runOK(t, bin, "version"); !strings.Contains(v, "nginxtune 0.6.0~test") || !strings.Contains(v, "1.22.1") {
		t.Errorf("nginxtune version:\n%s", v)
	}
	if _, err := os.Stat("/etc/nginx/nginx.conf"); err == nil {
		cmd := exec.Command(bin, "lint", "/etc/nginx")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
			t.Errorf("nginxtune lint /etc/nginx: exit %d\n%s", code, out)
		}
	}
	man := filepath.Join(r, "usr/share/man")
	if p := strings.TrimSpace(runOK(t, "man", "-M", man, "-w", "nginxtune-lint")); p != filepath.Join(man, "man1/nginxtune-lint.1.gz") {
		t.Errorf("man -w nginxtune-lint: %q", p)
	}
	page := runOK(t, "sh", "-c", "MANWIDTH=200 man -M \""+man+"\" -P cat nginxtune-lint 2>/dev/null")
	newLintCmd().Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && !strings.Contains(page, "--"+f.Name) {
			t.Errorf("man nginxtune-lint does not show --%s", f.Name)
		}
	})
	if c := runOK(t, "bash", "-c", "source \""+filepath.Join(r, "usr/share/bash-completion/completions/nginxtune")+"\" && complete -p nginxtune"); !strings.Contains(c, "nginxtune") {
		t.Errorf("bash completion: %q", c)
	}
	for _, p := range []string{"usr/share/zsh/vendor-completions/_nginxtune", "usr/share/fish/vendor_completions.d/nginxtune.fish", "usr/share/doc/nginxtune/copyright", "usr/share/doc/nginxtune/changelog.gz"} {
		if _, err := os.Stat(filepath.Join(r, p)); err != nil {
			t.Error(err)
		}
	}
	runOK(t, "dpkg", "--root="+r, "-r", "nginxtune")
	for _, f := range files {
		if fi, err := os.Lstat(filepath.Join(r, f)); err == nil && !fi.IsDir() {
			t.Errorf("dpkg -r left %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(r, "usr/share/doc/nginxtune")); err == nil {
		t.Error("dpkg -r left /usr/share/doc/nginxtune")
	}
}

func runOK(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
