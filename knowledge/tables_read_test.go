package knowledge

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// defaultComputed searches defaults.tsv in place: every row of the
// directive table gets the default that splitting each line (as it was
// read before) gives it, for its own "from" and for every other row's, and
// a look-up allocates nothing (reading the table into a map first cost a
// pre-commit hook 355 allocations and a twentieth of its instructions).
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
	n, found := 0, 0
	for _, c := range rows {
		for from := range froms {
			got, w := defaultComputed(c[0], c[5], from), want(c[0], c[5], from)
			if got != w {
				t.Fatalf("%s (%s) from %q: %q, want %q", c[0], c[5], from, got, w)
			}
			if got != "" {
				found++
			}
			n++
		}
	}
	if n < 1000 || found < 100 {
		t.Fatalf("only %d cases, %d with a default", n, found)
	}
	if allocs := testing.AllocsPerRun(20, func() {
		defaultComputed("root", "ngx_http_core_module", "nginx-1.22.1")
		defaultComputed("no_such_directive", "ngx_http_core_module", "")
	}); allocs > 0 {
		t.Errorf("a look-up in defaults.tsv allocated %.0f times", allocs)
	}
}

// variables.tsv searched in place gives the names and prefixes that
// splitting each line (as it was read before) gives, for http and stream,
// and a look-up allocates nothing (reading it into a map first was 268
// allocations of a pre-commit hook run, and 0.4 million of its 4.5 million
// instructions when each line was also split).
func TestVariablesReadInPlace(t *testing.T) {
	names := map[string]bool{}
	prefixes := map[string][]string{}
	var all []string
	for _, l := range strings.Split(variablesTSV, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) < 3 {
			continue
		}
		all = append(all, f[0])
		if f[2] == "1" {
			prefixes[f[1]] = append(prefixes[f[1]], f[0])
		} else {
			names[f[1]+"\x00"+f[0]] = true
		}
	}
	if len(names) < 100 {
		t.Fatalf("%d names", len(names))
	}
	known := func(name, proto string) bool {
		if names[proto+"\x00"+name] {
			return true
		}
		for _, p := range prefixes[proto] {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	for _, proto := range []string{"http", "stream"} {
		stream := proto == "stream"
		var want []string
		for k := range names {
			if p, n, _ := strings.Cut(k, "\x00"); p == proto {
				want = append(want, n)
			}
		}
		sort.Strings(want)
		wantPrefixes := append([]string(nil), prefixes[proto]...)
		sort.Strings(wantPrefixes)
		gotNames, gotPrefixes := Variables(stream)
		if strings.Join(gotNames, " ") != strings.Join(want, " ") {
			t.Errorf("%s names %v, want %v", proto, gotNames, want)
		}
		if strings.Join(gotPrefixes, " ") != strings.Join(wantPrefixes, " ") {
			t.Errorf("%s prefixes %v, want %v", proto, gotPrefixes, wantPrefixes)
		}
		for _, n := range all {
			for _, v := range []string{n, n + "x", n[:len(n)-1], "x" + n, "", "no_such_variable_here"} {
				if got, w := VariableKnown(v, stream), known(v, proto); got != w {
					t.Fatalf("VariableKnown(%q, %s) = %v, want %v", v, proto, got, w)
				}
			}
		}
	}
	if allocs := testing.AllocsPerRun(20, func() {
		VariableKnown("host", false)
		VariableKnown("http_x_api_key", false)
		VariableKnown("no_such_variable_here", true)
	}); allocs > 0 {
		t.Errorf("a look-up in variables.tsv allocated %.0f times", allocs)
	}
	if !VariableKnown("host", false) || !VariableKnown("http_x_api_key", false) || VariableKnown("no_such_variable_here", false) {
		t.Error("VariableKnown")
	}
}

// The binary search (sortedRows) trusts that the rows of defaults.tsv
// (written by hand) and variables.tsv (generated) are sorted by name, byte
// by byte, below a header of comment lines; and it finds what a scan of
// every row finds, for each name of each table and the names around it.
func TestTablesSorted(t *testing.T) {
	for _, tb := range []struct{ name, tsv string }{{"defaults.tsv", defaultsTSV}, {"variables.tsv", variablesTSV}, {"directives.tsv", directivesTSV}} {
		body := tableBody(tb.tsv)
		var lines []string
		eachRow(body, func(l string) { lines = append(lines, l) })
		if len(lines) < 100 {
			t.Fatalf("%s: %d rows", tb.name, len(lines))
		}
		for i, l := range lines {
			if strings.HasPrefix(l, "#") {
				t.Errorf("%s: a comment among the rows: %q", tb.name, l)
			}
			if i > 0 && rowName(l) < rowName(lines[i-1]) {
				t.Errorf("%s: %q is not sorted after %q", tb.name, rowName(l), rowName(lines[i-1]))
			}
		}
		scan := func(name string) string {
			var b strings.Builder
			for _, l := range lines {
				if rowName(l) == name {
					b.WriteString(l)
					b.WriteByte('\n')
				}
			}
			return b.String()
		}
		names := []string{"", "\x00", "a", "~", "\xff", "zzzz"}
		for _, l := range lines {
			n := rowName(l)
			names = append(names, n, n[:len(n)-1], n+"_", n+"\x00", n+"\n", n+"\t", n[:len(n)-1]+string(n[len(n)-1]+1), n[:len(n)-1]+string(n[len(n)-1]-1))
		}
		for _, n := range names {
			if got, want := sortedRows(body, n), scan(n); got != want {
				t.Fatalf("%s: sortedRows(%q) = %q, a scan finds %q", tb.name, n, got, want)
			}
		}
	}
	// rows without a tab are named by the whole line, newline and all, as
	// rowName names them (the last row has no newline)
	odd := "a\nab\tx\nab\nabc\tx\nb"
	for _, n := range []string{"a", "a\n", "ab", "ab\n", "abc", "b", "b\n", "", "c"} {
		want := ""
		for at := 0; at < len(odd); at = nextRow(odd, at) {
			if row := odd[at:nextRow(odd, at)]; rowName(row) == n {
				want += row
			}
		}
		if got := sortedRows(odd, n); got != want {
			t.Errorf("sortedRows(%q) in rows without tabs = %q, want %q", n, got, want)
		}
	}
}

// The tables read on first use are safe to read for the first time from
// several goroutines at once (run with -race).
func TestTablesFirstUseConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			VariableKnown("http_host", false)
			defaultComputed("root", "ngx_http_core_module", "nginx-1.22.1")
			Lookup("root")
		}()
	}
	wg.Wait()
}

// Every row's versions and third-party module are its "from" column cut
// at its commas, whether the row is of every core version (read without
// cutting) or not.
func TestCoreOfEveryRow(t *testing.T) {
	load()
	all := 0
	eachRow(rows, func(l string) {
		d, from, ok := parseRow(l)
		if !ok {
			t.Fatalf("row %q not read", l)
		}
		var core []string
		extra := ""
		for rest := from; rest != ""; {
			var x string
			x, rest, _ = strings.Cut(rest, ",")
			if v, ok := strings.CutPrefix(x, "nginx-"); ok {
				core = append(core, v)
			} else {
				extra = x
			}
		}
		if !slices.Equal(d.Core, core) || (d.Core == nil) != (core == nil) || d.Extra != extra {
			t.Fatalf("%s: Core %q Extra %q, want %q %q", d.Name, d.Core, d.Extra, core, extra)
		}
		if from == allCore {
			all++
		}
	})
	if all < 500 {
		t.Errorf("only %d rows of every version", all)
	}
}

// The first look-ups of a run read the rows they ask for, not a whole
// table into a map: in a process that has read none of the tables yet, two
// directives (their defaults too) and two variables cost a few dozen
// allocations, where indexing defaults.tsv and variables.tsv first made it
// 236 (a pre-commit hook asks of a few dozen names).
func TestFirstLookupsReadNoWholeTable(t *testing.T) {
	if os.Getenv("KNOWLEDGE_FIRST_LOOKUPS") != "" {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		Lookup("root")
		Lookup("worker_connections")
		VariableKnown("host", false)
		VariableKnown("http_x_api_key", false)
		runtime.ReadMemStats(&after)
		fmt.Println("allocations:", after.Mallocs-before.Mallocs)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFirstLookupsReadNoWholeTable$", "-test.count=1")
	cmd.Env = append(os.Environ(), "KNOWLEDGE_FIRST_LOOKUPS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var n int
	if _, err := fmt.Sscanf(strings.TrimSpace(strings.SplitN(string(out), "allocations: ", 2)[1]), "%d", &n); err != nil {
		t.Fatalf("no count in %q", out)
	}
	if n > 100 {
		t.Errorf("the first look-ups allocated %d times: a table was read whole", n)
	}
	t.Logf("%d allocations", n)
}
