package knowledge

import (
	_ "embed"
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

type varSet struct {
	names    map[varKey]bool
	prefixes map[string][]string
}

// varKey is a variable of http or stream.
type varKey struct{ proto, name string }

// variableSet is variables.tsv read once, its lines cut in place (the
// pre-commit hook reads it too, when a file uses a variable).
var variableSet = sync.OnceValue(func() varSet { return variablesOf(variablesTSV) })

func variablesOf(tsv string) varSet {
	vs := varSet{names: make(map[varKey]bool, strings.Count(tsv, "\n")), prefixes: map[string][]string{}}
	for rest := tsv; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, l, _ := strings.Cut(l, "\t")
		proto, l, ok := strings.Cut(l, "\t")
		if !ok {
			continue // fewer than three fields
		}
		if prefix, _, _ := strings.Cut(l, "\t"); prefix == "1" {
			vs.prefixes[proto] = append(vs.prefixes[proto], name)
		} else {
			vs.names[varKey{proto, name}] = true
		}
	}
	return vs
}

// VariableKnown reports whether nginx or a module of the table defines the
// variable (without "$") for http or stream, by name or by a family prefix
// ($http_*, $arg_*, $cookie_*, ...).
func VariableKnown(name string, stream bool) bool {
	proto := "http"
	if stream {
		proto = "stream"
	}
	vs := variableSet()
	if vs.names[varKey{proto, name}] {
		return true
	}
	for _, p := range vs.prefixes[proto] {
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
	proto := "http"
	if stream {
		proto = "stream"
	}
	vs := variableSet()
	for k := range vs.names {
		if k.proto == proto {
			names = append(names, k.name)
		}
	}
	prefixes = append(prefixes, vs.prefixes[proto]...)
	sort.Strings(names)
	sort.Strings(prefixes)
	return names, prefixes
}
