package nginxcheck_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// TestInstalledAsksOnce: one Installed runs nginx -V once whoever asks and
// however often, a later one finds the answer in the cache (Answered, no
// run), and a replaced binary is asked again.
func TestInstalledAsksOnce(t *testing.T) {
	dir, runs := nginxtest.FakeNginx(t, "1.2.3")
	first := &nginxcheck.Installed{}
	if got := first.Binary(); got != filepath.Join(dir, "nginx") {
		t.Fatalf("Binary: %q", got)
	}
	if first.Answered() {
		t.Fatal("Answered with an empty cache")
	}
	if runs() != 0 {
		t.Fatal("Answered ran nginx")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v := first.Version(); v != "1.2.3" {
				t.Errorf("Version: %q", v)
			}
		}()
	}
	wg.Wait()
	if runs() != 1 {
		t.Fatalf("nginx ran %d times for one Installed", runs())
	}
	if !first.Answered() {
		t.Fatal("not Answered once asked")
	}

	second := &nginxcheck.Installed{}
	if !second.Answered() {
		t.Fatal("not Answered with the answer in the cache")
	}
	out, err := second.V()
	if err != nil || !strings.Contains(out, "nginx/1.2.3") || !strings.Contains(out, "--with-http_ssl_module") {
		t.Fatalf("V from the cache: %q, %v", out, err)
	}
	if runs() != 1 {
		t.Fatalf("nginx ran again (%d runs) with its answer in the cache", runs())
	}

	// an upgrade replaces the binary: another size and time
	bin := filepath.Join(dir, "nginx")
	b, _ := os.ReadFile(bin)
	os.WriteFile(bin, []byte(strings.ReplaceAll(string(b), "1.2.3", "1.26.10")), 0o755)
	os.Chtimes(bin, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	third := &nginxcheck.Installed{}
	if third.Answered() {
		t.Fatal("Answered from the cache of another binary")
	}
	if v := third.Version(); v != "1.26.10" {
		t.Fatalf("after the upgrade: %q", v)
	}
	if runs() != 2 {
		t.Fatalf("%d runs, want 2", runs())
	}
}

// TestInstalledNoCache: with the cache turned off nothing is at hand
// before nginx is asked.
func TestInstalledNoCache(t *testing.T) {
	_, runs := nginxtest.FakeNginx(t, "1.22.1")
	(&nginxcheck.Installed{}).V()
	t.Setenv("NGINXTUNE_NO_CACHE", "1")
	i := &nginxcheck.Installed{}
	if i.Answered() {
		t.Fatal("Answered with the cache off")
	}
	if v := i.Version(); v != "1.22.1" || runs() != 2 {
		t.Fatalf("Version %q after %d runs", v, runs())
	}
}
