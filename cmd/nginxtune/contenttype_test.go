package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// add_header Content-Type on a proxied location sends a second
// Content-Type beside the backend's. default_type does not change a
// proxied response's type, so the fix there is proxy_hide_header
// Content-Type beside the add_header: on real nginx the fixed location
// answers with the one type it adds, where before it sent two and the old
// fix (default_type in place of add_header) left the backend's alone.
func TestFixContentTypeProxied(t *testing.T) {
	nginxtest.Require(t)
	dir := t.TempDir()
	front, backend := nginxtest.FreePort(t), nginxtest.FreePort(t)
	conf := fmt.Sprintf(`events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:%[2]d;
        location / { default_type text/html; return 200 "<p>x</p>"; }
    }
    server {
        listen 127.0.0.1:%[1]d;
        location /api/ {
            add_header Content-Type application/json always;
            proxy_pass http://127.0.0.1:%[2]d;
        }
    }
}
`, front, backend)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	types := func() []string {
		t.Helper()
		c := &http.Client{Timeout: 30 * time.Second} // a hang guard
		resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/api/", front))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Values("Content-Type")
	}
	t.Run("before", func(t *testing.T) {
		nginxtest.Serve(t, dir, path, fmt.Sprintf("127.0.0.1:%d", front))
		if got := types(); len(got) != 2 {
			t.Fatalf("the premise: add_header on a proxied response gives two Content-Types, got %q", got)
		}
	})
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.22.1", "--fix", "--enable", "add-header-content-type", path)
	fixed, _ := os.ReadFile(path)
	if code != 0 || !strings.Contains(errOut, "applied 1 fix") {
		t.Fatalf("lint --fix: exit %d, %s%s\n%s", code, out, errOut, fixed)
	}
	t.Run("after", func(t *testing.T) {
		nginxtest.Serve(t, dir, path, fmt.Sprintf("127.0.0.1:%d", front))
		if got := types(); len(got) != 1 || got[0] != "application/json" {
			t.Errorf("after the fix the proxied response's Content-Type is %q, want the one added (application/json)\n%s", got, fixed)
		}
	})
}
