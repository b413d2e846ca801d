package knowledge

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

// defaults.tsv holds the defaults nginx computes in code (root's "html",
// worker_connections' DEFAULT_CONNECTIONS, the TLS protocols of the
// build), which the generator leaves out of directives.tsv: each row fills
// the empty default of the table's rows for its directive and module.
//
//go:embed defaults.tsv
var defaultsTSV string

type computedDefault struct {
	versions []string // the "from" entries of the rows it is for; nil for all
	value    string
}

// computedDefaults maps "name<TAB>module" to its defaults.
var computedDefaults = sync.OnceValue(func() map[string][]computedDefault {
	m := map[string][]computedDefault{}
	for _, l := range strings.Split(defaultsTSV, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if f := strings.Split(l, "\t"); len(f) == 5 {
			var vs []string
			if f[2] != "" {
				vs = strings.Split(f[2], ",")
			}
			m[f[0]+"\t"+f[1]] = append(m[f[0]+"\t"+f[1]], computedDefault{vs, f[3]})
		}
	}
	return m
})

// defaultComputed is the default defaults.tsv gives a row of the table
// (its name, module and "from" column), "" for none.
func defaultComputed(name, module, from string) string {
	for _, c := range computedDefaults()[name+"\t"+module] {
		if c.versions == nil || allIn(strings.Split(from, ","), c.versions) {
			return c.value
		}
	}
	return ""
}

func allIn(xs, set []string) bool {
	for _, x := range xs {
		if !slices.Contains(set, x) {
			return false
		}
	}
	return true
}
