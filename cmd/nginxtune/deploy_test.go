package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// The open-file-cache fix must not change what a site serves: after --fix,
// real nginx serves a file that a deploy replaced (written to a temporary
// name, renamed into place) within 2 s. The same configuration with the
// default validity (60 s) still serves the old file then, which shows the
// test can fail.
func TestOpenFileCacheDeploy(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a tmpfs and serves with nginx (the full tier, make test)")
	}
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
	for _, fixed := range []bool{true, false} {
		dir := t.TempDir()
		www := filepath.Join(dir, "www")
		os.MkdirAll(www, 0o755)
		port := nginxtest.FreePort(t)
		conf := filepath.Join(dir, "nginx.conf")
		os.WriteFile(conf, []byte(fmt.Sprintf("worker_rlimit_nofile 12000;\nevents {}\nhttp {\n    access_log off;\n    sendfile on;\n    server {\n        listen 127.0.0.1:%d;\n        root %s;\n    }\n}\n", port, www)), 0o644)
		_, errOut, _ := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", "--enable", "open-file-cache", conf)
		b, _ := os.ReadFile(conf)
		if !strings.Contains(string(b), "open_file_cache max=") {
			t.Fatalf("no open_file_cache written: %s\n%s", errOut, b)
		}
		if !fixed {
			// the fix as it was: the default validity
			b = []byte(strings.ReplaceAll(string(b), "open_file_cache_valid 1s;", ""))
			os.WriteFile(conf, b, 0o644)
		}
		page := filepath.Join(www, "index.html")
		os.WriteFile(page, []byte("old\n"), 0o644)
		nginxtest.Serve(t, dir, conf, fmt.Sprintf("127.0.0.1:%d", port))
		url := fmt.Sprintf("http://127.0.0.1:%d/index.html", port)
		get := func() string {
			resp, err := http.Get(url)
			if err != nil {
				return err.Error()
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return string(body)
		}
		for i := 0; i < 3; i++ {
			get() // cached now
		}
		tmp := filepath.Join(www, ".index.html.tmp")
		os.WriteFile(tmp, []byte("new\n"), 0o644)
		os.Rename(tmp, page)
		start := time.Now()
		got := get()
		// 5 s: five times the fixed validity (1 s), a twelfth of the
		// default (60 s), so a loaded machine cannot turn either verdict
		for got != "new\n" && time.Since(start) < 5*time.Second {
			time.Sleep(100 * time.Millisecond)
			got = get()
		}
		switch {
		case fixed && got != "new\n":
			t.Errorf("after --fix, the replaced file was still served in its old version %v after the deploy (%q)", time.Since(start).Round(time.Millisecond), got)
		case !fixed && got == "new\n":
			t.Errorf("with the default validity the new file came after %v: the control does not show the staleness the test guards against", time.Since(start))
		case fixed:
			t.Logf("new version served %v after the rename", time.Since(start).Round(time.Millisecond))
		}
	}
}
