package route

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// allocated routes r through cfg and returns the result with the bytes
// and the allocations it took.
func allocated(cfg *Config, r Request) (res *Result, bytes, mallocs uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res = cfg.Route(r, Options{})
	runtime.ReadMemStats(&after)
	return res, after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
}

// Each "set $e $e$e;" doubles a value: route's memory grew with 2^n for n
// of them (24 took 1.2 GB, 40 in a 581-byte file ran out of memory). What
// one request expands is bounded: twice the doublings cost no more than
// the bound, the answer still comes, and it says it depends on the bound.
func TestExpansionBounded(t *testing.T) {
	doubling := func(n int) *Config {
		var b strings.Builder
		b.WriteString("events {}\nhttp {\n server {\n  listen 80;\n  set $e x;\n")
		for range n {
			b.WriteString("  set $e $e$e;\n")
		}
		b.WriteString("  return 200 $e;\n }\n}\n")
		return build(t, b.String())
	}
	r, _ := ParseRequest("http://a.test/")
	small, smallBytes, _ := allocated(doubling(12), r)
	if !small.Certain() || small.Status != 200 || !strings.Contains(small.Answer, `"xxxxxxxx`) {
		t.Fatalf("12 doublings (4 KB): %s %v", small.Answer, small.Unknown)
	}
	big, bigBytes, _ := allocated(doubling(24), r)
	if bigBytes > smallBytes+4*maxExpandBytes {
		t.Errorf("24 doublings allocated %d bytes, 12 took %d: want at most %d more", bigBytes, smallBytes, 4*maxExpandBytes)
	}
	if big.Certain() || big.Status != 200 || !strings.Contains(strings.Join(big.Unknown, "\n"), "route's bound") {
		t.Errorf("24 doublings: %d %s, depends on %q: want 200 that depends on route's bound", big.Status, big.Answer, big.Unknown)
	}

	// ten maps each naming the one below four times ask for 4^10 look-ups
	// of variables whose values are empty
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n map $uri $m0 { default \"\"; }\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, " map $uri $m%d { default \"%s\"; }\n", i, strings.Repeat(fmt.Sprintf("$m%d", i-1), 4))
	}
	b.WriteString(" server { listen 80; return 200 \"[$m10]\"; }\n}\n")
	res, _, mallocs := allocated(build(t, b.String()), r)
	if mallocs > 20*maxExpandLookups {
		t.Errorf("4^10 look-ups took %d allocations: want at most %d", mallocs, 20*maxExpandLookups)
	}
	if res.Certain() || res.Status != 200 {
		t.Errorf("4^10 look-ups: %d %s, depends on %q: want 200 that depends on route's bound", res.Status, res.Answer, res.Unknown)
	}
	t.Logf("bytes %d and %d, mallocs %d: %q", smallBytes, bigBytes, mallocs, res.Unknown)
}
