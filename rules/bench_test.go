package rules

import (
	"fmt"
	"testing"

	"github.com/nginxtune/nginxtune/internal/gentree"
	"github.com/nginxtune/nginxtune/parser"
)

// BenchmarkLint measures the rules alone over a loaded tree, and load plus
// rules as a pre-commit hook runs them.
func BenchmarkLint(b *testing.B) {
	for _, servers := range []int{1000, 10000} {
		main, size := gentree.Write(b, b.TempDir(), servers, 100)
		tr, err := parser.Load(main, parser.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rules/servers=%d", servers), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				Run(tr, Config{})
			}
		})
		b.Run(fmt.Sprintf("load+rules/servers=%d", servers), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				tr, err := parser.Load(main, parser.Options{})
				if err != nil {
					b.Fatal(err)
				}
				Run(tr, Config{})
			}
		})
	}
}
