package knowledge

import (
	"strings"
	"testing"
)

// computedDefaults reads defaults.tsv in place: every row of the directive
// table gets the default that splitting each line (as it was read before)
// gives it, for its own "from" and for every other row's, and reading the
// table allocates once per directive and module, not once per field.
func TestComputedDefaultsReadInPlace(t *testing.T) {
	split := map[string][][2]string{} // name TAB module -> (versions, value)
	for _, l := range strings.Split(defaultsTSV, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if f := strings.Split(l, "\t"); len(f) == 5 {
			split[f[0]+"\t"+f[1]] = append(split[f[0]+"\t"+f[1]], [2]string{f[2], f[3]})
		}
	}
	want := func(name, module, from string) string {
		for _, c := range split[name+"\t"+module] {
			if c[0] == "" || allIn(strings.Split(from, ","), strings.Split(c[0], ",")) {
				return c[1]
			}
		}
		return ""
	}
	froms := map[string]bool{"": true, ",": true, "nginx-1.22.1": true}
	var rows [][]string
	eachRow(directivesTSV, func(line string) {
		if c := strings.Split(line, "\t"); !strings.HasPrefix(line, "#") && len(c) > 6 {
			rows = append(rows, c)
			froms[c[6]] = true
		}
	})
	n := 0
	for _, c := range rows {
		for from := range froms {
			if got, w := defaultComputed(c[0], c[5], from), want(c[0], c[5], from); got != w {
				t.Fatalf("%s (%s) from %q: %q, want %q", c[0], c[5], from, got, w)
			}
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("only %d cases", n)
	}
	allocs := testing.AllocsPerRun(5, func() { computedDefaultsOf(defaultsTSV) })
	if keys := len(computedDefaults()); allocs > float64(keys)+20 {
		t.Errorf("reading defaults.tsv allocated %.0f times for %d directive-module pairs", allocs, keys)
	}
}

// variables.tsv read in place gives the names and prefixes that splitting
// each line (as it was read before) gives, for http and stream, and reading
// it allocates a few times (the map and the prefix lists), not once or
// twice per line (a split and a key each: 0.4 million of a pre-commit hook
// run's 4.5 million instructions).
func TestVariablesReadInPlace(t *testing.T) {
	names := map[string]bool{}
	prefixes := map[string][]string{}
	for _, l := range strings.Split(variablesTSV, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) < 3 {
			continue
		}
		if f[2] == "1" {
			prefixes[f[1]] = append(prefixes[f[1]], f[0])
		} else {
			names[f[1]+"\x00"+f[0]] = true
		}
	}
	vs := variableSet()
	if len(vs.names) != len(names) || len(names) < 100 {
		t.Fatalf("%d names, want %d", len(vs.names), len(names))
	}
	for k := range vs.names {
		if !names[k.proto+"\x00"+k.name] {
			t.Errorf("%s %s read, not in the table", k.proto, k.name)
		}
	}
	for _, proto := range []string{"http", "stream"} {
		if strings.Join(vs.prefixes[proto], " ") != strings.Join(prefixes[proto], " ") {
			t.Errorf("%s prefixes %v, want %v", proto, vs.prefixes[proto], prefixes[proto])
		}
	}
	if allocs := testing.AllocsPerRun(5, func() { variablesOf(variablesTSV) }); allocs > 40 {
		t.Errorf("reading variables.tsv allocated %.0f times", allocs)
	}
	if !VariableKnown("host", false) || !VariableKnown("http_x_api_key", false) || VariableKnown("no_such_variable_here", false) {
		t.Error("VariableKnown")
	}
}
