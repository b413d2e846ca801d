package loader

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"

	gonginx "github.com/tufanbarisyildirim/gonginx/parser"
)

func BenchmarkLoad(b *testing.B) {
	for _, servers := range []int{1000, 10000, 50000} {
		b.Run(fmt.Sprintf("servers=%d", servers), func(b *testing.B) {
			main, size := gentree.Write(b, b.TempDir(), servers, 100)
			b.SetBytes(size)
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				tr, err := Load(main, Options{})
				if err != nil || len(tr.Diagnostics) > 0 {
					b.Fatal(err, tr.Diagnostics)
				}
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
				runtime.KeepAlive(tr)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		})
	}
}

// BenchmarkGonginx parses the same trees with gonginx alone, to show what
// nginxtune's own layer costs.
func BenchmarkGonginx(b *testing.B) {
	for _, servers := range []int{1000, 10000, 50000} {
		b.Run(fmt.Sprintf("servers=%d", servers), func(b *testing.B) {
			main, size := gentree.Write(b, b.TempDir(), servers, 100)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				p, err := gonginx.NewParser(main, gonginx.WithIncludeParsing(), gonginx.WithSkipValidDirectivesErr())
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Parse(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadShapes loads the shapes of make bench-lint's trees that
// reading costs most on: 20,000 finding-heavy sites in 200 files
// (gentree -sites), and 20,000 servers in one 10 MB file, parsed on one
// core.
func BenchmarkLoadShapes(b *testing.B) {
	for _, sh := range []struct {
		name  string
		shape gentree.Shape
	}{
		{"sites=20000", gentree.Shape{Servers: 20000, Files: 200, Sites: true}},
		{"onefile=20000", gentree.Shape{Servers: 20000, Files: 1}},
	} {
		b.Run(sh.name, func(b *testing.B) {
			dir := b.TempDir()
			sh.shape.LogDir = dir
			main, size, err := gentree.WriteShape(dir, sh.shape)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				tr, err := Load(main, Options{})
				if err != nil || len(tr.Diagnostics) > 0 {
					b.Fatal(err, tr.Diagnostics)
				}
			}
		})
	}
}
