package format

import (
	"fmt"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"
	"github.com/nginxtune/nginxtune/loader"
)

// BenchmarkFormat formats every file of generated trees, the check by
// re-parsing included: "load+format" is what `nginxtune fmt --check` does,
// to compare with rules' "load+rules" on the same trees.
func BenchmarkFormat(b *testing.B) {
	for _, servers := range []int{1000, 20000} {
		main, size := gentree.Write(b, b.TempDir(), servers, 100)
		tr, err := loader.Load(main, loader.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("format/servers=%d", servers), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, f := range tr.Files {
					if _, err := Source(f, Options{}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run(fmt.Sprintf("load+format/servers=%d", servers), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				tr, err := loader.Load(main, loader.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for _, f := range tr.Files {
					if _, err := Source(f, Options{}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
