package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Shell completion offers the values of the flags that take one of a
// list (it offered none: files, for --format, --fail-on, --profile, ...),
// each a value the flag's help names; --disable completes the last entry
// of its comma-separated list.
func TestFlagCompletion(t *testing.T) {
	complete := func(args ...string) []string {
		out, errOut, code := runCLI(t, "", append([]string{"__complete"}, args...)...)
		if code != ExitOK {
			t.Fatalf("__complete %v: exit %d: %s", args, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[:len(lines)-1] // the last line is cobra's directive
	}
	tree := newRoot(nil, nil, nil, nil)
	for _, c := range []struct{ cmd, flag string }{
		{"lint", "format"}, {"lint", "fail-on"}, {"lint", "color"}, {"route", "format"}, {"facts", "format"},
		{"parse", "format"}, {"rules", "format"}, {"gen", "profile"}, {"gen", "layout"}, {"gen", "tls-profile"},
	} {
		sub, _, err := tree.Find([]string{c.cmd})
		if err != nil {
			t.Fatal(err)
		}
		usage := sub.Flags().Lookup(c.flag).Usage
		got := complete(c.cmd, "--"+c.flag, "")
		if len(got) < 2 {
			t.Errorf("%s --%s: completion offers %v", c.cmd, c.flag, got)
		}
		for _, v := range got {
			if !strings.Contains(usage, v) {
				t.Errorf("%s --%s: completion offers %q, which its help (%q) does not name", c.cmd, c.flag, v, usage)
			}
		}
	}
	got := complete("lint", "--disable", "alias-traversal,category:sec")
	if strings.Join(got, " ") != "alias-traversal,category:security" {
		t.Errorf("--disable alias-traversal,category:sec completes to %v", got)
	}
	if got := complete("lint", "--enable", "server-n"); strings.Join(got, " ") != "server-name-conflict" {
		t.Errorf("--enable server-n completes to %v", got)
	}
}

// Every example in the commands' help names files the repository ships
// (run from its top, as README's examples are): route's first example
// named fixtures/route/app.conf, which does not exist. Absolute paths
// (/etc/nginx) and what a shell redirects are the reader's own.
func TestExamplesNameShippedFiles(t *testing.T) {
	tree := newRoot(nil, nil, nil, nil)
	for _, c := range tree.Commands() {
		for _, line := range strings.Split(c.Example, "\n") {
			words := strings.Fields(line)
			for i, w := range words {
				if i > 0 && (words[i-1] == "<" || words[i-1] == ">" || words[i-1] == "|") || strings.ContainsAny(w, "<>|") {
					continue
				}
				if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "/") || strings.Contains(w, "://") || !strings.Contains(w, "/") && !strings.HasSuffix(w, ".conf") {
					continue
				}
				if _, err := os.Stat(filepath.Join(root, w)); err != nil {
					t.Errorf("%s --help: the example %q names %s, which the repository does not ship", c.Name(), strings.TrimSpace(line), w)
				}
			}
		}
	}
}

// The Debian package recommends bash-completion, which loads the
// completions it ships (apt installs recommended packages by default).
func TestDebianPackageRecommendsCompletion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Debian package")
	}
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("no dpkg-deb: not a Debian system")
	}
	cmd := exec.Command("bash", "scripts/deb.sh", t.TempDir())
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1764547200", "VERSION=0.6.0~test")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/deb.sh: %v\n%s", err, out)
	}
	if got := runOK(t, "dpkg-deb", "-f", strings.TrimSpace(string(out)), "Recommends"); strings.TrimSpace(got) != "bash-completion" {
		t.Errorf("Recommends: %q, want bash-completion", got)
	}
}
