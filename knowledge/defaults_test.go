package knowledge

import (
	"strings"
	"testing"
)

// TestComputedDefaults: every row of defaults.tsv is well formed and
// names a directive and module of the generated table whose rows have no
// default of their own (each default is written in one place), and the
// table's rows carry it.
func TestComputedDefaults(t *testing.T) {
	n := 0
	for i, l := range strings.Split(strings.TrimSuffix(defaultsTSV, "\n"), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 5 || f[0] == "" || f[1] == "" || f[3] == "" || f[4] == "" {
			t.Errorf("defaults.tsv:%d: want name, module, versions, default and source, got %q", i+1, l)
			continue
		}
		versions := f[2]
		n++
		generated, rows := 0, 0
		eachRow(directivesTSV, func(line string) {
			if strings.HasPrefix(line, "#") {
				return
			}
			c := strings.Split(line, "\t")
			if c[0] == f[0] && c[5] == f[1] && (versions == "" || allIn(strings.Split(c[6], ","), strings.Split(versions, ","))) {
				rows++
				if c[8] != "" {
					generated++
				}
			}
		})
		if rows == 0 {
			t.Errorf("defaults.tsv:%d: %s of %s is not in directives.tsv", i+1, f[0], f[1])
		}
		if generated > 0 {
			t.Errorf("defaults.tsv:%d: directives.tsv already has a default for %s of %s", i+1, f[0], f[1])
		}
		for _, d := range Lookup(f[0]) {
			in := versions == "" || allIn(d.Core, strings.Split(strings.ReplaceAll(versions, "nginx-", ""), ","))
			if d.Module == f[1] && in && d.Default != f[3] {
				t.Errorf("Lookup(%s): %s's default %q, want %q", f[0], d.Module, d.Default, f[3])
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d computed defaults read", n)
	}
}
