package main

import (
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// TestVersionAskedInTurnWhenCached: the installed nginx's version comes
// from a goroutine while the tree is read only when nginx -V must run; with
// its answer in the cache it is settled in turn (no goroutine: a hook's
// short run pays more for a second thread than the reading costs), and
// nginx runs once for the version and the host facts together.
func TestVersionAskedInTurnWhenCached(t *testing.T) {
	_, runs := nginxtest.FakeNginx(t, "1.24.0")
	conf := filepath.Join(root, "fixtures/mission/static-tuned.conf")
	settle := func() *lintSettings {
		t.Helper()
		s, err := settings(&cobra.Command{}, &lintFlags{host: true, noConfig: true}, conf)
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
	if got := s.cfg.Version.String(); got != "1.24.0" {
		t.Fatalf("version %q, want the fake nginx's 1.24.0", got)
	}
	if v := s.cfg.Host.NginxVersion(); !v.Known() || v.Value != "1.24.0" {
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
	if got := s.cfg.Version.String(); got != "1.24.0" {
		t.Fatalf("version from the cache %q", got)
	}
	if runs() != 1 {
		t.Fatalf("nginx ran %d times, want 1 (the cache answered)", runs())
	}
}
