// Package nginxtest runs the real nginx binary's configuration test (nginx -t)
// on files in a temporary prefix, for tests that check nginxtune against
// nginx itself. It never reads or writes the system's /etc/nginx.
package nginxtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Binary returns the path of nginx, or "" when it is not installed.
func Binary() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Require skips the test when nginx is missing, unless the environment
// variable CI is set: there the missing binary is a failed install.
func Require(t testing.TB) string {
	t.Helper()
	b := Binary()
	if b == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("nginx is not installed; .ci/run installs nginx-full")
		}
		t.Skip("nginx is not installed")
	}
	return b
}

// Result is what nginx -t said.
type Result struct {
	OK      bool
	Message string // first [emerg] message, without " in FILE:LINE"
	File    string
	Line    int
	Output  string
}

var emergRe = regexp.MustCompile(`\[emerg\] \d+#\d+: (.*?)(?: in (\S+):(\d+))?$`)

// Test copies files (relative path -> content) into a new temporary prefix
// and runs nginx -t on main, the relative path of the main file.
func Test(t testing.TB, files map[string][]byte, main string) Result {
	t.Helper()
	bin := Require(t)
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Run(t, bin, dir, filepath.Join(dir, main))
}

// Run runs nginx -t with the given prefix and main file, bounded in time.
func Run(t testing.TB, bin, prefix, conf string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-t", "-p", prefix+"/", "-c", conf, "-e", "stderr")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r := Result{OK: err == nil, Output: out.String()}
	if ctx.Err() != nil {
		t.Fatalf("nginx -t timed out on %s", conf)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if m := emergRe.FindStringSubmatch(line); m != nil {
			r.Message, r.File = m[1], m[2]
			r.Line, _ = strconv.Atoi(m[3])
			break
		}
	}
	return r
}
