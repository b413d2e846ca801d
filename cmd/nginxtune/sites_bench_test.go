package main

import (
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"
)

// BenchmarkLintSites lints the finding-heavy tree of make bench-lint's
// "sites" line (20,000 sites in 200 files, 15,003 findings) as the command
// does, in each output format: allocs/op and B/op are the counted figures
// of docs/lint-speed.md, which the machine's load does not move.
func BenchmarkLintSites(b *testing.B) {
	dir := b.TempDir()
	conf, size, err := gentree.WriteShape(dir, gentree.Shape{Servers: 20000, Files: 200, Sites: true, LogDir: filepath.Join(dir, "logs")})
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []string{"json", "text", "sarif"} {
		b.Run(f, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				var errb strings.Builder
				if code := run([]string{"lint", "--no-config", "--nginx-version", "1.22.1", "--format", f, conf}, strings.NewReader(""), io.Discard, &errb); code == ExitError {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
				runtime.GC() // each run starts from the heap the last one left, as a new process would
			}
		})
	}
}
