package lint

import (
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/loader"
)

// TestTuneGCRestored: lint turns the collector off while it loads; after,
// its first collection waits for the heap to reach three times what
// loading left (a memory limit, bounded), and from that collection on
// GOGC 200 decides; the process's settings are what they were once the
// run gives them back. After loading a 4,000-server tree, allocating a
// quarter of it more makes no collection: GOGC 200 set as loading ended
// started one at once, marking the tree it could not free.
func TestTuneGCRestored(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	conf, size := gentree.Write(t, t.TempDir(), 4000, 10)
	if size < gcLargeTree {
		t.Fatalf("a tree of %d bytes is small", size)
	}
	s, err := Resolve(Options{NoHost: true, NoConfig: true, NginxVersion: "1.22.1"}, conf)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC() // the last heap marked: this test's, a few MB
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	gcs := m.NumGC
	restore := s.TuneGC()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("while loading: percent %d, want -1 (off)", got)
	}
	if _, err := s.load(conf, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	// what a lint allocates next, a good deal less than the tree
	garbage := make([][]byte, 0, 1024)
	for range cap(garbage) {
		garbage = append(garbage, make([]byte, 4096))
	}
	runtime.KeepAlive(garbage)
	runtime.ReadMemStats(&m)
	if m.NumGC != gcs {
		t.Errorf("%d collections after loading, want none", m.NumGC-gcs)
	}
	limit := debug.SetMemoryLimit(-1)
	if got := debug.SetGCPercent(-1); got != -1 || limit > 3*int64(m.HeapAlloc)+64<<20 || limit < int64(m.HeapAlloc) {
		t.Errorf("after loading: percent %d, limit %d MB for a heap of %d MB; want off, under the limit", got, limit>>20, m.HeapAlloc>>20)
	}
	// the first collection hands over to GCPercent (the finalizer of a
	// sentinel runs in its own goroutine: wait for it)
	runtime.GC()
	deadline := time.Now().Add(60 * time.Second)
	for debug.SetGCPercent(-1) != GCPercent || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		debug.SetGCPercent(-1) // as gcAfterTree left it until its finalizer runs
		if time.Now().After(deadline) {
			t.Fatal("the first collection did not hand over to GCPercent")
		}
		time.Sleep(time.Millisecond)
	}
	debug.SetGCPercent(GCPercent)
	restore()
	if got := debug.SetGCPercent(100); got != 100 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Errorf("restored: percent %d, want 100", got)
	}
}

// TestTuneGCRestoredBeforeCollection: a run that gives the settings back
// before the first collection leaves them as they were, whenever that
// collection comes.
func TestTuneGCRestoredBeforeCollection(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	conf, _ := gentree.Write(t, t.TempDir(), 4000, 10)
	s, err := Resolve(Options{NoHost: true, NoConfig: true, NginxVersion: "1.22.1"}, conf)
	if err != nil {
		t.Fatal(err)
	}
	restore := s.TuneGC()
	if _, err := s.load(conf, loader.Options{}); err != nil {
		t.Fatal(err)
	}
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		t.Fatal("no limit set for the first collection")
	}
	restore()
	runtime.GC()
	runtime.GC()
	time.Sleep(10 * time.Millisecond) // a finalizer that would change them has run
	if got := debug.SetGCPercent(100); got != 100 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Errorf("restored: percent %d, want 100, and no memory limit", got)
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
