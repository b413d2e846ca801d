package rules

import (
	resyntax "regexp/syntax"
	"strings"
	"testing"
)

// The witness search reads a regex from the configuration: what it builds
// and the texts it tries are bounded per node of the regex's syntax tree,
// whatever the regex spells (nested repeats that double a text each level,
// a wide alternation, a long literal run).
func TestAliasWitnessBounded(t *testing.T) {
	nested := "(.*)" + strings.Repeat("(?:", 40) + "ab" + strings.Repeat(")+", 40)
	wide := "^/x(.*)(?:" + strings.Repeat("a|b|c|", 2000) + "d)+$"
	long := "^/" + strings.Repeat("abc", 20000) + "(.*)$"
	for _, re := range []string{nested, wide, long} {
		tree, err := resyntax.Parse(re, resyntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		nodes := 0
		var count func(*resyntax.Regexp)
		count = func(r *resyntax.Regexp) {
			nodes++
			for _, s := range r.Sub {
				count(s)
			}
		}
		count(tree)
		g := witnessGen{n: 1, caps: []string{"../secret.txt"}}
		out := g.gen(tree)
		if len(out) > witnessMax {
			t.Errorf("%.40s: %d texts, want at most %d", re, len(out), witnessMax)
		}
		for _, s := range out {
			if len(s) > witnessLen {
				t.Errorf("%.40s: a text of %d bytes, want at most %d", re, len(s), witnessLen)
			}
		}
		// a repeat crosses at most 17 times, each at most witnessMax² pairs
		if limit := nodes * 17 * witnessMax * witnessMax; g.steps > limit {
			t.Errorf("%.40s: %d steps for %d nodes, want at most %d", re, g.steps, nodes, limit)
		}
		captureWitness(re, false, 1, []string{"../secret.txt"}, func(string, int, int) bool { return false })
	}
}
