package parser

import (
	"fmt"
	"strings"
	"testing"
)

// A walk takes its contexts and their slices from slabs: walking 2,000
// servers of three locations each (8,001 blocks) makes a few dozen
// allocations, where a context and two slices a block made 24,000.
func TestWalkAllocatesBySlab(t *testing.T) {
	var b strings.Builder
	b.WriteString("http {\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "server { listen %d; location / { root /a; } location /b { if ($x) { return 404; } } }\n", 8000+i)
	}
	b.WriteString("}\n")
	f, diag := Parse("big.conf", []byte(b.String()))
	if diag != nil {
		t.Fatal(diag)
	}
	f.Context = []string{CtxMain}
	n := 0
	allocs := testing.AllocsPerRun(3, func() {
		n = 0
		Walk([]*File{f}, func(*Directive, *Context) bool { n++; return true })
	})
	if n != 14001 {
		t.Fatalf("walk met %d directives, want 14,001", n)
	}
	if allocs > 200 {
		t.Errorf("a walk of 8,001 blocks made %.0f allocations, want at most 200", allocs)
	}
}
