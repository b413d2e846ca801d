package main

import (
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
)

// TestLintGCRestored: lint turns the collector off while it loads and to
// GOGC 200 after; the process's setting is what it was once lint returns.
func TestLintGCRestored(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	runCLI(t, "", "lint", "--no-host", "--no-config", "--nginx-version", "1.22.1", filepath.Join(root, "fixtures/mission/static-tuned.conf"))
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after lint the collector's percent is %d, want 100 as before", got)
	}
	s := &lintSettings{}
	restore := lintGC(s)
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("while loading: percent %d, want -1 (off)", got)
	}
	if _, err := s.load(filepath.Join(root, "fixtures/mission/static-tuned.conf"), loader.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(lintGCPercent); got != lintGCPercent {
		t.Errorf("after loading: percent %d, want %d", got, lintGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("restored: percent %d, want 100", got)
	}
}
