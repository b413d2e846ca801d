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

// defaultRows is defaults.tsv's rows, sorted by name (TestTablesSorted).
var defaultRows = sync.OnceValue(func() string { return tableBody(defaultsTSV) })

// defaultComputed is the default defaults.tsv gives a row of the table
// (its name, module and "from" column), "" for none.
func defaultComputed(name, module, from string) string {
	return defaultIn(defaultsOf(name), module, from)
}

// defaultsOf returns the rows of defaults.tsv for a directive name, found
// by a binary search of the sorted text (sortedRows), not read into a map
// first: the pre-commit hook parses a few dozen rows of the directive
// table, and indexing all of defaults.tsv for them was a twentieth of its
// run.
func defaultsOf(name string) string { return sortedRows(defaultRows(), name) }

// defaultIn is the default that rows of defaults.tsv (one name's) give a
// row of the directive table of that name: the first row of the module
// whose versions are empty or list every entry of from; "" for none.
func defaultIn(rows, module, from string) string {
	for rest := rows; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		if strings.Count(l, "\t") != 4 {
			continue
		}
		var f [4]string
		for i := range f {
			f[i], l, _ = strings.Cut(l, "\t")
		}
		if f[1] == module && (f[2] == "" || listedIn(from, f[2])) {
			return f[3]
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
