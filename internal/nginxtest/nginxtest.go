// Package nginxtest runs the real nginx binary's configuration test (nginx -t)
// on files in a temporary prefix, for tests that check nginxtune against
// nginx itself. It never reads or writes the system's /etc/nginx.
package nginxtest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
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

// WriteSelfSigned writes cert.pem and key.pem (a self-signed ECDSA
// certificate for localhost) into dir, for configurations that name them.
func WriteSelfSigned(t testing.TB, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("cert.pem", "CERTIFICATE", der)
	write("key.pem", "EC PRIVATE KEY", kder)
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
	return Run(t, bin, dir, filepath.Join(dir, "nginx.conf"))
}
