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
	names    map[string]bool // proto + "\x00" + name
	prefixes map[string][]string
}

var variableSet = sync.OnceValue(func() varSet {
	vs := varSet{names: map[string]bool{}, prefixes: map[string][]string{}}
	for _, l := range strings.Split(variablesTSV, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) < 3 {
			continue
		}
		if f[2] == "1" {
			vs.prefixes[f[1]] = append(vs.prefixes[f[1]], f[0])
		} else {
			vs.names[f[1]+"\x00"+f[0]] = true
		}
	}
	return vs
})

// VariableKnown reports whether nginx or a module of the table defines the
// variable (without "$") for http or stream, by name or by a family prefix
// ($http_*, $arg_*, $cookie_*, ...).
func VariableKnown(name string, stream bool) bool {
	proto := "http"
	if stream {
		proto = "stream"
	}
	vs := variableSet()
	if vs.names[proto+"\x00"+name] {
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
		if p, n, _ := strings.Cut(k, "\x00"); p == proto {
			names = append(names, n)
		}
	}
	prefixes = append(prefixes, vs.prefixes[proto]...)
	sort.Strings(names)
	sort.Strings(prefixes)
	return names, prefixes
}
