package lint

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// TestTuneGCRestored: lint turns the collector off while it loads and
// keeps it off after, under a memory limit; the process's settings are
// what they were once the run gives them back.
func TestTuneGCRestored(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	beforeLimit := debug.SetMemoryLimit(-1)
	conf := filepath.Join("..", "fixtures/mission/static-tuned.conf")
	s, err := Resolve(Options{NoHost: true, NoConfig: true, NginxVersion: "1.22.1"}, conf)
	if err != nil {
		t.Fatal(err)
	}
	restore := s.TuneGC()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("while loading: percent %d, want -1 (off)", got)
	}
	if _, err := s.Lint([]string{conf}); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("after loading: percent %d, want -1 (off)", got)
	}
	if got := debug.SetMemoryLimit(-1); got < gcHeadroom || got >= beforeLimit {
		t.Errorf("after loading: memory limit %d, want one above %d and below %d", got, gcHeadroom, beforeLimit)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("restored: percent %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != beforeLimit {
		t.Errorf("restored: memory limit %d, want %d", got, beforeLimit)
	}
}

// Once a tree is loaded, a lint does not collect: a collection then marks
// the tree, which stays, and frees next to nothing (on the 20,000-site
// tree of make bench-lint, 100 MB marked beside the rules for 2 MB freed).
// Linting 4,000 sites after loading them starts no collection; turning
// GOGC 200 on after loading started one at once.
func TestNoCollectionAfterLoading(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	dir := t.TempDir()
	conf, _, err := gentree.WriteShape(dir, gentree.Shape{Servers: 4000, Files: 40, Sites: true, LogDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(Options{NoHost: true, NoConfig: true, NginxVersion: "1.22.1"}, conf)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC() // what the tests before left behind
	restore := s.TuneGC()
	defer restore()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gcs := ms.NumGC
	res, err := s.Lint([]string{conf})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	if ms.NumGC != gcs {
		t.Errorf("%d collections during a lint of 4,000 sites", ms.NumGC-gcs)
	}
	runtime.KeepAlive(res)
}

// A lint of several trees is bounded by the largest: each tree loaded
// raises the memory limit to what its heap calls for, so a large tree
// linted after a small one is not collected over and over under the small
// one's limit.
func TestMemoryLimitFollowsTheLargestTree(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	small := filepath.Join("..", "fixtures/mission/static-tuned.conf")
	dir := t.TempDir()
	big, _, err := gentree.WriteShape(dir, gentree.Shape{Servers: 4000, Files: 40, Sites: true, LogDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	limitAfter := func(paths ...string) int64 {
		t.Helper()
		runtime.GC()
		s, err := Resolve(Options{NoHost: true, NoConfig: true, NginxVersion: "1.22.1"}, paths[0])
		if err != nil {
			t.Fatal(err)
		}
		restore := s.TuneGC()
		defer restore()
		if _, err := s.Lint(paths); err != nil {
			t.Fatal(err)
		}
		return debug.SetMemoryLimit(-1)
	}
	alone := limitAfter(small)
	both := limitAfter(small, big)
	if both < alone+8<<20 {
		t.Errorf("memory limit %d after a small tree and 4,000 sites, %d after the small tree alone", both, alone)
	}
}

// TestVersionAskedInTurnWhenCached: the installed nginx's version comes
// from a goroutine while the tree is read only when nginx -V must run; with
// its answer in the cache it is settled in turn (no goroutine: a hook's
// short run pays more for a second thread than the reading costs), and
// nginx runs once for the version and the host facts together.
func TestVersionAskedInTurnWhenCached(t *testing.T) {
	_, runs := nginxtest.FakeNginx(t, "1.24.0")
	conf := filepath.Join("..", "fixtures/mission/static-tuned.conf")
	settle := func() *Settings {
		t.Helper()
		s, err := Resolve(Options{Host: true, NoConfig: true}, conf)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// a cold cache: nginx -V runs beside the reading
	s := settle()
	if s.versionDone == nil {
		t.Fatal("with nginx -V to run, the version was settled in turn")
	}
	s.needVersion()
	if got := s.Config.Version.String(); got != "1.24.0" {
		t.Fatalf("version %q, want the fake nginx's 1.24.0", got)
	}
	if v := s.Config.Host.NginxVersion(); !v.Known() || v.Value != "1.24.0" {
		t.Fatalf("host facts' version: %+v", v)
	}
	if runs() != 1 {
		t.Fatalf("nginx ran %d times for one lint", runs())
	}
	// a warm one: in turn, and nginx not run again
	s = settle()
	if s.versionDone != nil {
		t.Fatal("with nginx -V's answer in the cache, the version was asked in a goroutine")
	}
	if got := s.Config.Version.String(); got != "1.24.0" {
		t.Fatalf("version from the cache %q", got)
	}
	if runs() != 1 {
		t.Fatalf("nginx ran %d times, want 1 (the cache answered)", runs())
	}
}
