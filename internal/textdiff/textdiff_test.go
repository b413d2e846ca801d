package textdiff

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\n"
	want := `--- old
+++ new
@@ -1,6 +1,6 @@
 a
 b
-c
+C
 d
 e
 f
@@ -8,3 +8,4 @@
 h
 i
 j
+k
`
	if got := Unified("old", "new", old, new); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Unified("a", "b", "x\n", "x\n") != "" {
		t.Error("equal texts gave a diff")
	}
	if got := Unified("a", "b", "", "x\n"); got != "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n" {
		t.Errorf("new file: %q", got)
	}
	// a last line without a line ending differs from one with it, and
	// says so as diff does (git apply and patch need it)
	if got := Unified("a", "b", "x\ny", "x\ny\n"); got != "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n" {
		t.Errorf("no line ending: %q", got)
	}
}

// lcsOps is the edit script by a table of the longest common subsequence
// (n×m ints), as ops once was: the reference for small texts.
func lcsOps(a, b []string) []op {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, op{' ', a[i]})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, op{'-', a[i]})
			i++
		default:
			out = append(out, op{'+', b[j]})
			j++
		}
	}
	return out
}

// apply checks that a script turns a into b and returns its length in
// changed lines.
func apply(t *testing.T, script []op, a, b []string) int {
	t.Helper()
	var gotA, gotB []string
	n := 0
	for _, o := range script {
		if o.kind != '+' {
			gotA = append(gotA, o.text)
		}
		if o.kind != '-' {
			gotB = append(gotB, o.text)
		}
		if o.kind != ' ' {
			n++
		}
	}
	if !slices.Equal(gotA, a) || !slices.Equal(gotB, b) {
		t.Fatalf("the script does not turn %q into %q", a, b)
	}
	return n
}

// Random texts over a few lines: the script is correct and as short as
// the table's.
func TestOpsShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := func() []string {
		out := make([]string, r.IntN(40))
		for i := range out {
			out[i] = string(rune('a' + r.IntN(5)))
		}
		return out
	}
	for range 3000 {
		a, b := text(), text()
		if got, want := apply(t, ops(a, b), a, b), apply(t, lcsOps(a, b), a, b); got != want {
			t.Fatalf("%q → %q: %d changed lines, the shortest is %d", a, b, got, want)
		}
	}
}

// What fmt changes (lines indented anew, a one-line block opened, a
// closing brace on its own line) gives the hunks the table gave; with
// runs of equal lines (blank lines dropped) a script as short, though
// not always the same one (over the corpus formatted, 97% of the diffs
// are the same).
func TestUnifiedAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	same := 0
	for n := range 600 {
		blanks := n%2 == 1
		var old, new strings.Builder
		for i := range 60 + r.IntN(200) {
			line := fmt.Sprintf("directive_%d value;", i)
			switch r.IntN(10) {
			case 0:
				old.WriteString("  " + line + "\n")
				new.WriteString("    " + line + "\n")
			case 1:
				old.WriteString("location /x" + fmt.Sprint(i) + " { " + line + " }\n")
				new.WriteString("location /x" + fmt.Sprint(i) + " {\n    " + line + "\n}\n")
			case 2:
				if blanks {
					old.WriteString("\n\n\n")
					new.WriteString("\n")
				}
			case 3:
				old.WriteString("}\n")
				new.WriteString("}\n")
			default:
				old.WriteString("    " + line + "\n")
				new.WriteString("    " + line + "\n")
			}
		}
		a, b := old.String(), new.String()
		if Unified("a", "b", a, b) == unifiedWith(lcsOps, "a", "b", a, b) {
			same++
		} else if !blanks {
			t.Fatalf("hunks differ from the table's:\n%s\nwant\n%s", Unified("a", "b", a, b), unifiedWith(lcsOps, "a", "b", a, b))
		}
		la, lb := lines(a), lines(b)
		if got, want := apply(t, ops(la, lb), la, lb), apply(t, lcsOps(la, lb), la, lb); got != want {
			t.Fatalf("%d changed lines, the table's %d", got, want)
		}
	}
	t.Logf("%d of 600 diffs the same as the table's", same)
}

// The attack: fmt --diff (and the fmt hook) on a 20,000-line file built
// a 20,001×20,001 table, 3.2 GB. Twice the lines take about twice the
// memory now, not four times, and a line costs a bounded number of bytes.
func TestUnifiedLinearSpace(t *testing.T) {
	text := func(n int, every int) string {
		var b strings.Builder
		for i := range n {
			if every > 0 && i%every == 0 {
				fmt.Fprintf(&b, "    changed %d;\n", i)
			} else {
				fmt.Fprintf(&b, "  line %d;\n", i%50)
			}
		}
		return b.String()
	}
	measure := func(n int) uint64 {
		a, b := text(n, 0), text(n, 7)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if Unified("a", "b", a, b) == "" {
			t.Fatal("no diff")
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	n := 3000
	small, big := measure(n), measure(2*n)
	if big > 3*small+1<<20 || big > uint64(2*n)*2048 {
		t.Errorf("%d lines took %d bytes, %d lines %d: want linear, at most 2 KB a line", n, small, 2*n, big)
	}
	t.Logf("%d lines: %d bytes, %d lines: %d bytes", n, small, 2*n, big)
	// and a large file with nothing in common ends (the search is bounded)
	a, b := text(20000, 1), text(20000, 0)
	if got := Unified("a", "b", a, b); strings.Count(got, "\n-") != 20000 {
		t.Errorf("every line differs: %d lines removed", strings.Count(got, "\n-"))
	}
}

func TestChanged(t *testing.T) {
	removed, added := Changed("a\nb\nc\nd\n", "a\nx\nc\nd\ne\n")
	if fmt.Sprint(removed, added) != "[2] [2 5]" {
		t.Errorf("removed %v, added %v", removed, added)
	}
	if r, a := Changed("a\n", "a\n"); r != nil || a != nil {
		t.Errorf("equal texts: %v %v", r, a)
	}
}
