package knowledge

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The index trusts three things of the table: its rows are sorted by name,
// its "# contexts:" header lists the context keys in the order the rows
// first name them, and its "# sources:" header names every nginx version a
// row comes from. A table edited by hand, or a generator that stops doing
// one of them, fails here.
func TestTableHeaderMatchesRows(t *testing.T) {
	load()
	var lines []string
	eachRow(rows, func(l string) { lines = append(lines, l) })
	if !sort.SliceIsSorted(lines, func(i, j int) bool { return rowName(lines[i]) < rowName(lines[j]) }) {
		t.Fatal("directives.tsv is not sorted by name")
	}
	var contexts, versions []string
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 9 {
			t.Fatalf("row %q has %d fields", l, len(f))
		}
		for _, c := range strings.Split(f[1], ",") {
			if c != "any" && !slices.Contains(contexts, c) {
				contexts = append(contexts, c)
			}
		}
		for _, from := range strings.Split(f[6], ",") {
			if v, ok := strings.CutPrefix(from, "nginx-"); ok && !slices.Contains(versions, v) {
				versions = append(versions, v)
			}
		}
	}
	for i, c := range contexts {
		if ContextBit(c) != 1<<i {
			t.Errorf("context %q: bit %#x, want %#x (the header's order differs from the rows')", c, ContextBit(c), 1<<i)
		}
	}
	if len(contextBits) != len(contexts) {
		t.Errorf("header names %d context keys, rows %d", len(contextBits), len(contexts))
	}
	sort.Slice(versions, func(i, j int) bool { return versionLess(versions[i], versions[j]) })
	if got := CoreVersions(); !slices.Equal(got, versions) {
		t.Errorf("core versions from the header %v, from the rows %v", got, versions)
	}
}

func TestLookupFindsEveryRow(t *testing.T) {
	n := 0
	for _, name := range Names() {
		ds := Lookup(name)
		if len(ds) == 0 {
			t.Errorf("%s: no rows", name)
		}
		for _, d := range ds {
			if d.Name != name {
				t.Errorf("Lookup(%q) returned %q", name, d.Name)
			}
		}
		n += len(ds)
	}
	total := 0
	eachRow(rows, func(string) { total++ })
	if n != total {
		t.Errorf("lookups found %d rows of %d", n, total)
	}
	for _, name := range []string{"", "aaa", "zzz", "proxy_pas", "proxy_pass_", "absolute_redirect_", "~"} {
		if ds := Lookup(name); ds != nil {
			t.Errorf("Lookup(%q) = %v", name, ds)
		}
	}
	if ds := Lookup("proxy_pass"); len(ds) == 0 || !ds[0].Allows("location") {
		t.Errorf("proxy_pass: %+v", ds)
	}
}

// Defaults as nginx's documentation states them (nginx.org, each
// directive's "Default:" line), read from the source by knowledge/gen.
func TestDefaults(t *testing.T) {
	for _, c := range []struct{ name, context, version, want string }{
		{"sendfile", "http", "1.22.1", "off"},
		{"client_max_body_size", "http", "1.22.1", "1m"},
		{"gzip_comp_level", "http", "1.22.1", "1"},
		{"proxy_read_timeout", "location", "1.22.1", "60s"},
		{"ssl_session_timeout", "server", "1.22.1", "5m"},
		{"large_client_header_buffers", "server", "1.22.1", "4 8k"},
		{"default_type", "http", "1.22.1", "text/plain"},
		{"proxy_http_version", "location", "1.22.1", "1.0"},
		{"proxy_http_version", "location", "1.30.4", "1.1"},
		{"keepalive_timeout", "upstream", "1.22.1", "60s"},
		// computed in code (a handler of its own): from defaults.tsv
		{"keepalive_timeout", "http", "1.22.1", "75s"},
		{"root", "location", "1.22.1", "html"},
		{"worker_connections", "events", "1.30.4", "512"},
		{"keepalive", "upstream", "1.30.4", "32 local"},
		{"keepalive", "upstream", "1.28.3", ""},
		// computed in code and in neither table: no default, not a guess
		{"proxy_pass", "location", "1.22.1", ""},
	} {
		got, found := "", false
		for _, d := range Lookup(c.name) {
			if d.Allows(c.context) && d.InCore(c.version) {
				got, found = d.Default, true
			}
		}
		if !found || got != c.want {
			t.Errorf("%s in %s, nginx %s: default %q, want %q", c.name, c.context, c.version, got, c.want)
		}
	}
}

// TestCoreHelpers holds Branch, SortCore and the oldest/newest versions to
// what parsing the table's version strings each time gives.
func TestCoreHelpers(t *testing.T) {
	vs := CoreVersions()
	for _, name := range Names() {
		for _, d := range Lookup(name) {
			for _, c := range d.Core {
				if !slices.Contains(vs, c) {
					t.Errorf("%s: core version %s is not among the table's %v", name, c, vs)
				}
			}
			got := append([]string(nil), d.Core...)
			rand.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
			SortCore(got)
			want := append([]string(nil), d.Core...)
			sort.Slice(want, func(i, j int) bool { return MustVersion(want[i]).Less(MustVersion(want[j])) })
			if !slices.Equal(got, want) {
				t.Errorf("%s: SortCore gives %v, want %v", name, got, want)
			}
		}
	}
	naive := func(v Version) string {
		for _, tv := range vs {
			tt := MustVersion(tv)
			if tt.Major == v.Major && tt.Minor == v.Minor && !v.Less(tt) {
				return tv
			}
		}
		return ""
	}
	for major := 0; major <= 2; major++ {
		for minor := 0; minor <= 32; minor++ {
			for patch := 0; patch <= 12; patch++ {
				v := Version{major, minor, patch}
				if got, want := Branch(v), naive(v); got != want {
					t.Errorf("Branch(%s) = %q, want %q", v, got, want)
				}
			}
		}
	}
	if s, v := OldestCore(); s != vs[0] || v != MustVersion(vs[0]) {
		t.Errorf("OldestCore() = %s %v, want %s", s, v, vs[0])
	}
	if s, v := NewestCore(); s != vs[len(vs)-1] || v != MustVersion(vs[len(vs)-1]) {
		t.Errorf("NewestCore() = %s %v, want %s", s, v, vs[len(vs)-1])
	}
}

// TestRowsOfMatchesScan holds the binary search to a scan of every row:
// each name of the table, the names around each (a byte shorter, longer,
// one above and below), and names before and after them all.
func TestRowsOfMatchesScan(t *testing.T) {
	scan := func(name string) string {
		var b strings.Builder
		eachRow(rows, func(l string) {
			if rowName(l) == name {
				b.WriteString(l)
				b.WriteByte('\n')
			}
		})
		return b.String()
	}
	names := []string{"", "\x00", "a", "~", "\xff", "zzzz"}
	for _, n := range Names() {
		names = append(names, n, n[:len(n)-1], n+"_", n+"\x00", n[:len(n)-1]+string(n[len(n)-1]+1), n[:len(n)-1]+string(n[len(n)-1]-1))
	}
	for _, n := range names {
		if got, want := rowsOf(n), scan(n); got != want {
			t.Fatalf("rowsOf(%q) = %q, a scan finds %q", n, got, want)
		}
	}
}
