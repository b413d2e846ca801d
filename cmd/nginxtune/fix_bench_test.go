package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkFix20k applies the fixes of a 20,000-server file (40,000 edits:
// an upstream per backend, the Host header and the proxy headers per
// location). Applying edits is linear: a quadratic step here took minutes.
func BenchmarkFix20k(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("worker_processes auto;\nevents { worker_connections 1024; }\nhttp {\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&sb, "    server {\n        listen %d;\n        location / {\n            proxy_pass http://127.0.0.1:%d;\n        }\n    }\n", 10000+i%50000, 8000+i%100)
	}
	sb.WriteString("}\n")
	dir := b.TempDir()
	conf := filepath.Join(dir, "nginx.conf")
	b.SetBytes(int64(sb.Len()))
	for i := 0; i < b.N; i++ {
		if err := os.WriteFile(conf, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		var out, errb strings.Builder
		if code := run([]string{"lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", conf}, strings.NewReader(""), &out, &errb); code == ExitError {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}
