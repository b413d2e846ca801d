// Package nginxtest runs the real nginx binary's configuration test (nginx -t)
// on files in a temporary prefix, for tests that check nginxtune against
// nginx itself. It never tests against the system's /etc/nginx; it only
// copies nginx's stock data files (mime.types, fastcgi_params) from there.
package nginxtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
)

// Binary returns the path of nginx, or "" when it is not installed.
func Binary() string { return nginxcheck.Binary() }

// Result is what nginx -t said.
type Result = nginxcheck.Result

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
	r := nginxcheck.Run(bin, prefix, conf)
	if r.TimedOut {
		t.Fatalf("nginx -t timed out on %s", conf)
	}
	return r
}

// WriteSelfSigned writes cert.pem and key.pem into dir.
func WriteSelfSigned(t testing.TB, dir string) {
	t.Helper()
	if err := nginxcheck.WriteSelfSigned(dir); err != nil {
		t.Fatal(err)
	}
}

// CheckTree copies a configuration (a file, which becomes nginx.conf, or a
// directory with nginx.conf) into a temporary prefix next to a self-signed
// cert.pem and key.pem, and runs nginx -t on it.
func CheckTree(t testing.TB, path string) Result {
	t.Helper()
	bin := Require(t)
	dir := t.TempDir()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.IsDir() {
		if err := os.CopyFS(dir, os.DirFS(path)); err != nil {
			t.Fatal(err)
		}
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	WriteSelfSigned(t, dir)
	nginxcheck.StockFiles(dir)
	return Run(t, bin, dir, filepath.Join(dir, "nginx.conf"))
}
