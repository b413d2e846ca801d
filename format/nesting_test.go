package format

import (
	"runtime"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/parser"
)

// nested is n locations, each inside the one before, on one line each.
func nested(n int) []byte {
	return []byte("server {\n" + strings.Repeat("location /a {\n", n) + strings.Repeat("}\n", n) + "}\n")
}

// formatBytes formats src and returns the output, the bytes that took and
// the error.
func formatBytes(t *testing.T, src []byte) ([]byte, uint64, error) {
	t.Helper()
	f, d := parser.Parse("deep.conf", src)
	if d != nil {
		t.Fatal(d.Message)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := Source(f, Options{})
	runtime.ReadMemStats(&after)
	return out, after.TotalAlloc - before.TotalAlloc, err
}

// fmt indents every level, so nesting n deep wrote n²/2 indentations:
// 19,990 nested locations (240 KB) took it to 4.8 GB. Past maxNesting it
// refuses with the line, so twice the nesting costs at most about twice
// the memory; up to it, the output stays a constant times the input.
func TestNestingBounded(t *testing.T) {
	n := 1000
	_, small, err := formatBytes(t, nested(n))
	if err == nil || !strings.Contains(err.Error(), "deep.conf:65: blocks nested more than 64 deep") {
		t.Errorf("%d nested locations: %v", n, err)
	}
	_, big, _ := formatBytes(t, nested(2*n))
	if big > 3*small+1<<20 {
		t.Errorf("%d nested locations allocated %d bytes, %d took %d: want it linear", 2*n, big, n, small)
	}
	// the server and maxNesting-1 locations are formatted
	if out, _, err := formatBytes(t, nested(maxNesting-1)); err != nil || !strings.Contains(string(out), strings.Repeat(" ", 4*(maxNesting-1))+"location /a {}") {
		t.Errorf("%d nested locations: %v", maxNesting-1, err)
	}
	t.Logf("%d and %d bytes allocated", small, big)
}
