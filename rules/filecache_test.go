package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// One lint --fix run on a systemd host (soft limit 1024) leaves a tree
// real nginx serves every file of, started with that limit. The fix sized
// open_file_cache at 10,000 entries: the cached descriptors took the
// limit, and with 3,000 files 18 answers were 500 ("Too many open files"),
// while the same run reported a new host-fd-limit warning that only a
// second run fixed. It now adds what the limit leaves beside a socket and
// a file per connection, as gen does: here nothing.
func TestFileCacheFixWithinHostLimitAgainstNginx(t *testing.T) {
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	os.Mkdir(www, 0o755)
	const files = 1500
	for i := range files {
		os.WriteFile(filepath.Join(www, fmt.Sprintf("f%d.txt", i)), []byte("x"), 0o644)
	}
	port := nginxtest.FreePort(t)
	main := filepath.Join(dir, "nginx.conf")
	os.WriteFile(main, []byte(fmt.Sprintf("worker_processes 1;\nevents {\n    worker_connections 768;\n}\nhttp {\n    sendfile on;\n    access_log off;\n    server {\n        listen 127.0.0.1:%d;\n        root %s;\n    }\n}\n", port, www)), 0o644)
	facts, err := host.ParseSpec("cpus=1 nofile=1024:524288 systemd=yes")
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Host: host.Given(facts), Disabled: onlyRules("open-file-cache", "host-fd-limit", "worker-fd-limit")}
	res := fixRun(t, main, cfg)
	for _, d := range res.Diags {
		if d.Fix != nil || d.Rule == "host-fd-limit" {
			t.Errorf("after one fix run: %s: %s", d.Rule, d.Message)
		}
	}
	fixed, _ := os.ReadFile(main)
	// nginx starts with the host's limit: the workers inherit it
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 1024, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	nginxtest.Serve(t, dir, main, fmt.Sprintf("127.0.0.1:%d", port))
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for i := range files {
		if code, _ := nginxtest.Get(t, fmt.Sprintf("http://127.0.0.1:%d/f%d.txt", port, i)); code != 200 {
			failed++
		}
	}
	if failed > 0 {
		log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		t.Errorf("%d of %d files were not served (%d \"Too many open files\" in the log) from the fixed tree:\n%s",
			failed, files, strings.Count(string(log), "Too many open files"), fixed)
	}
}
