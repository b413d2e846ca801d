package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// fixHosts are the machines every fixture is fixed for: the fixture's own
// facts (none for most), a systemd host with its default soft limit, a
// container that cannot raise its limit, and a large host.
var fixHosts = []struct{ name, spec string }{
	{"own", ""},
	{"systemd", "cpus=2 mem=2GiB nofile=1024:524288 nr-open=1048576 file-max=9223372036854775807 systemd=yes"},
	{"container", "cpus=2 mem=1GiB nofile=1024:1024 systemd=no"},
	{"large", "cpus=16 mem=64GiB nofile=1048576:1048576 nr-open=1048576 file-max=9223372036854775807 somaxconn=4096 port-range=32768-60999 tw-reuse=2 systemd=yes"},
}

// One lint --fix run leaves nothing it could fix: for every fixture, with
// every rule on (as lint --fix runs them) and every host of fixHosts, a
// lint of the fixed tree finds no finding that carries a fix. A fix that
// brings up a fixable finding of another rule (open_file_cache
// max=10000 under a soft limit of 1024, then host-fd-limit's
// worker_rlimit_nofile) needed a second run, and the first run's tree
// served 500s meanwhile.
func TestOneFixRunLeavesNothingFixable(t *testing.T) {
	for _, fixture := range fixturePaths(t) {
		for _, h := range fixHosts {
			name := strings.TrimPrefix(filepath.ToSlash(fixture), "../fixtures/") + "@" + h.name
			t.Run(name, func(t *testing.T) {
				left := fixOnce(t, fixture, h.spec)
				for _, d := range left {
					t.Errorf("%s:%d: still fixable after one run: %s: %s", filepath.Base(d.File), d.Line, d.Rule, d.Message)
				}
			})
		}
	}
}

// fixOnce copies a fixture (a file, or a directory with nginx.conf) and
// fixes the copy as lint --fix does, with every rule the fixture's header
// leaves on and the host facts of spec (the fixture's own when empty); it
// returns the findings a second lint can still fix in the tree's files.
func fixOnce(t *testing.T, fixture, spec string) []finding.Diagnostic {
	t.Helper()
	tmp := t.TempDir()
	target := filepath.Join(tmp, "nginx.conf")
	if st, err := os.Stat(fixture); err == nil && st.IsDir() {
		if err := os.CopyFS(tmp, os.DirFS(fixture)); err != nil {
			t.Fatal(err)
		}
	} else {
		b, err := os.ReadFile(fixture)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(target, b, 0o644)
	}
	src, _ := os.ReadFile(target)
	cfg := fixtureConfig(t, src)
	if spec != "" {
		f, err := host.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Host = host.Given(f)
	}
	if _, err := loader.Load(target, loader.Options{}); err != nil {
		t.Skipf("not a tree: %v", err)
	}
	fixRun(t, target, cfg)
	diags, _, trees, err := linterOf(target, cfg)()
	if err != nil {
		t.Fatal(err)
	}
	in := inTrees(trees)
	var left []finding.Diagnostic
	for _, d := range diags {
		if d.Fix == nil {
			continue
		}
		inside := true
		for _, e := range d.Fix.Edits {
			inside = inside && in(e.File)
		}
		if inside {
			left = append(left, d)
		}
	}
	return left
}

// linterOf is FixSession's Lint for the tree of main: read again, linted
// with cfg.
func linterOf(main string, cfg engine.Config) func() ([]finding.Diagnostic, bool, []*loader.Tree, error) {
	return func() ([]finding.Diagnostic, bool, []*loader.Tree, error) {
		tr, err := loader.Load(main, loader.Options{})
		if err != nil {
			return nil, false, nil, err
		}
		broken := false
		for _, f := range tr.Files {
			broken = broken || f.Broken
		}
		return Run(tr, cfg), broken, []*loader.Tree{tr}, nil
	}
}

// fixRun fixes the tree of main as lint --fix does, writing plainly.
func fixRun(t *testing.T, main string, cfg engine.Config) FixResult {
	t.Helper()
	lint := linterOf(main, cfg)
	diags, broken, trees, err := lint()
	if err != nil {
		t.Fatal(err)
	}
	res, err := FixSession{Lint: lint, Apply: applyPlainly}.Run(diags, trees, broken)
	if err != nil {
		t.Fatalf("fixing: %v", err)
	}
	return res
}
