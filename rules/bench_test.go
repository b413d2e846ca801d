package rules

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// BenchmarkLint measures the rules alone over a loaded tree, and load plus
// rules as a pre-commit hook runs them, on generated trees of 1,000, 10,000
// and 50,000 server blocks in 100 files. peak-MB is the heap in use with the
// tree loaded and linted.
func BenchmarkLint(b *testing.B) {
	for _, servers := range []int{1000, 10000, 50000} {
		main, size := gentree.Write(b, b.TempDir(), servers, 100)
		tr, err := loader.Load(main, loader.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rules/servers=%d", servers), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				Run(tr, engine.Config{})
			}
		})
		b.Run(fmt.Sprintf("load+rules/servers=%d", servers), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				tr, err := loader.Load(main, loader.Options{})
				if err != nil {
					b.Fatal(err)
				}
				Run(tr, engine.Config{})
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
				runtime.KeepAlive(tr)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		})
	}
}

// BenchmarkLintSites measures the rules alone over the finding-heavy tree
// of make bench-lint's "sites" line (20,000 sites in 200 files, 15,003
// findings); with -cpu 1 a CPU profile shows each rule's own cost.
func BenchmarkLintSites(b *testing.B) {
	dir := b.TempDir()
	main, size, err := gentree.WriteShape(dir, gentree.Shape{Servers: 20000, Files: 200, Sites: true, LogDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	tr, err := loader.Load(main, loader.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		Run(tr, engine.Config{})
	}
}
