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
	from  string // the "from" entries of the rows it is for, comma-separated; "" for all
	value string
}

// defaultKey is a directive and its module.
type defaultKey struct{ name, module string }

// computedDefaults maps a directive and its module to its defaults. Read
// once, on the first row of the table parsed (every lint, the pre-commit
// hook's too): with the lines cut in place and no key built, this takes a
// tenth of what splitting each line and joining its key did.
var computedDefaults = sync.OnceValue(func() map[defaultKey][]computedDefault { return computedDefaultsOf(defaultsTSV) })

func computedDefaultsOf(tsv string) map[defaultKey][]computedDefault {
	m := make(map[defaultKey][]computedDefault, strings.Count(tsv, "\n"))
	for rest := tsv; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		if l == "" || strings.HasPrefix(l, "#") || strings.Count(l, "\t") != 4 {
			continue
		}
		var f [4]string
		for i := range f {
			f[i], l, _ = strings.Cut(l, "\t")
		}
		k := defaultKey{f[0], f[1]}
		m[k] = append(m[k], computedDefault{f[2], f[3]})
	}
	return m
}

// defaultComputed is the default defaults.tsv gives a row of the table
// (its name, module and "from" column), "" for none.
func defaultComputed(name, module, from string) string {
	for _, c := range computedDefaults()[defaultKey{name, module}] {
		if c.from == "" || listedIn(from, c.from) {
			return c.value
		}
	}
	return ""
}

// listedIn reports whether every entry of the comma-separated list xs is
// an entry of the comma-separated list set (as allIn of the two split at
// their commas, without splitting them).
func listedIn(xs, set string) bool {
	for {
		x, more, cut := strings.Cut(xs, ",")
		if !entryOf(x, set) {
			return false
		}
		if !cut {
			return true
		}
		xs = more
	}
}

func entryOf(x, set string) bool {
	for {
		y, more, cut := strings.Cut(set, ",")
		if x == y {
			return true
		}
		if !cut {
			return false
		}
		set = more
	}
}

func allIn(xs, set []string) bool {
	for _, x := range xs {
		if !slices.Contains(set, x) {
			return false
		}
	}
	return true
}
