package knowledge

import (
	_ "embed"
	"slices"
	"sort"
	"strings"
	"sync"
)

// variables.tsv lists the variables nginx and the table's modules define
// (their ngx_http_variable_t/ngx_stream_variable_t arrays and the names
// they add in code), generated with "go run ./knowledge/gen -variables".
//
//go:embed variables.tsv
var variablesTSV string

// variableRows is variables.tsv's rows, sorted by name (the generator
// sorts them; TestTablesSorted).
var variableRows = sync.OnceValue(func() string { return tableBody(variablesTSV) })

// variableRow cuts a row of variables.tsv: name, proto and whether the
// name is a family's prefix; ok is false for a row of fewer than three
// fields.
func variableRow(l string) (name, proto string, prefix, ok bool) {
	name, l, _ = strings.Cut(l, "\t")
	proto, l, ok = strings.Cut(l, "\t")
	p, _, _ := strings.Cut(l, "\t")
	return name, proto, p == "1", ok
}

// eachVariable calls fn with every row of variables.tsv, in order.
func eachVariable(fn func(name, proto string, prefix bool)) {
	eachRow(variableRows(), func(l string) {
		if name, proto, prefix, ok := variableRow(l); ok {
			fn(name, proto, prefix)
		}
	})
}

// variablePrefixes are the family prefixes of http and stream, in the
// table's order: read once, the first time a name is not found as it is.
var variablePrefixes = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	eachVariable(func(name, proto string, prefix bool) {
		if prefix {
			m[proto] = append(m[proto], name)
		}
	})
	return m
})

func protoOf(stream bool) string {
	if stream {
		return "stream"
	}
	return "http"
}

// VariableKnown reports whether nginx or a module of the table defines the
// variable (without "$") for http or stream, by name or by a family prefix
// ($http_*, $arg_*, $cookie_*, ...). A name is a binary search of the
// sorted text (sortedRows): a pre-commit hook asks of a few variables, and
// reading the table's 260 rows into a map for them was a twentieth of its
// run.
func VariableKnown(name string, stream bool) bool {
	proto := protoOf(stream)
	found := false
	eachRow(sortedRows(variableRows(), name), func(l string) {
		if _, p, prefix, ok := variableRow(l); ok && p == proto && !prefix {
			found = true
		}
	})
	if found {
		return true
	}
	for _, p := range variablePrefixes()[proto] {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Variables lists the variable names (without "$") and the family
// prefixes ($http_*, $arg_*, ...) nginx and the table's modules define for
// http or stream, sorted.
func Variables(stream bool) (names, prefixes []string) {
	proto := protoOf(stream)
	eachVariable(func(name, p string, prefix bool) {
		if p == proto && !prefix {
			names = append(names, name)
		}
	})
	prefixes = append(prefixes, variablePrefixes()[proto]...)
	sort.Strings(names)
	names = slices.Compact(names) // a name listed twice was one key
	sort.Strings(prefixes)
	return names, prefixes
}
