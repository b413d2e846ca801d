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
// and dpkg -r leaves none of its files behind.
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
	if out, err := exec.Command("dpkg", "-s", "nginxtune").CombinedOutput(); err == nil && strings.Contains(string(out), "Status: install ok installed") {
		t.Skip("nginxtune is installed as a package here already; not touched")
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
		out, _ := exec.Command("lintian", "-I", "--tag-display-limit", "0", deb).CombinedOutput()
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

	t.Cleanup(func() { exec.Command("dpkg", "-r", "nginxtune").Run() })
	runOK(t, "dpkg", "-i", deb)
	files := strings.Fields(runOK(t, "dpkg", "-L", "nginxtune"))
	if v := runOK(t, "/usr/bin/nginxtune", "version"); !strings.Contains(v, "nginxtune 0.6.0~test") || !strings.Contains(v, "1.22.1") {
		t.Errorf("nginxtune version:\n%s", v)
	}
	if _, err := os.Stat("/etc/nginx/nginx.conf"); err == nil {
		cmd := exec.Command("/usr/bin/nginxtune", "lint", "/etc/nginx")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
			t.Errorf("nginxtune lint /etc/nginx: exit %d\n%s", code, out)
		}
	}
	if p := strings.TrimSpace(runOK(t, "man", "-w", "nginxtune-lint")); p != "/usr/share/man/man1/nginxtune-lint.1.gz" {
		t.Errorf("man -w nginxtune-lint: %q", p)
	}
	page := runOK(t, "sh", "-c", "MANWIDTH=200 man -P cat nginxtune-lint 2>/dev/null")
	newLintCmd().Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && !strings.Contains(page, "--"+f.Name) {
			t.Errorf("man nginxtune-lint does not show --%s", f.Name)
		}
	})
	if c := runOK(t, "bash", "-c", "source /usr/share/bash-completion/completions/nginxtune && complete -p nginxtune"); !strings.Contains(c, "nginxtune") {
		t.Errorf("bash completion: %q", c)
	}
	for _, p := range []string{"/usr/share/zsh/vendor-completions/_nginxtune", "/usr/share/fish/vendor_completions.d/nginxtune.fish", "/usr/share/doc/nginxtune/copyright", "/usr/share/doc/nginxtune/changelog.gz"} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	runOK(t, "dpkg", "-r", "nginxtune")
	for _, f := range files {
		if fi, err := os.Lstat(f); err == nil && !fi.IsDir() {
			t.Errorf("dpkg -r left %s", f)
		}
	}
	if _, err := os.Stat("/usr/share/doc/nginxtune"); err == nil {
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
