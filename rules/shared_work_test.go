package rules

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// The servers grouped by address are worked out once per run for the
// rules that ask (server-name-conflict, default-server-missing, the taint
// of $host), and server-name-conflict, which adds the servers without
// listen to *:80, does so in a copy: after it ran, the run's groups are
// as they were, and its findings are those it makes alone.
func TestListenGroupsOncePerRun(t *testing.T) {
	src := "events {}\nhttp {\n" +
		"    server { listen 80; server_name a.example; }\n" +
		"    server { server_name a.example; }\n" +
		"    server { listen 8080; server_name b.example; }\n" +
		"    server { listen 8080; server_name b.example; }\n" +
		"}\n"
	tree, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(src)}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shape := func(groups []*listenGroup) string {
		out := ""
		for _, g := range groups {
			out += fmt.Sprintf("%s:%d ", g.addr, len(g.servers))
		}
		return out
	}
	var before, after string
	var first, second *listenGroup
	all := []*engine.Rule{
		{Doc: engine.Doc{ID: "probe", Severity: finding.Warning, Category: engine.CategoryCorrectness}, Check: check(func(p *Pass) {
			groups, _ := p.listenGroups()
			before, first = shape(groups), groups[0]
			checkServerNameConflict(p)
			checkServerNameConflict(p)
			groups, _ = p.listenGroups()
			after, second = shape(groups), groups[0]
		})},
	}
	got, _ := engine.Run(tree, all, engine.Config{})
	if before != "*:80:1 *:8080:2 " || after != before {
		t.Errorf("the run's groups: %q before server-name-conflict, %q after", before, after)
	}
	if first != second {
		t.Error("the groups were made twice in one run")
	}
	if len(got) != 2 {
		t.Errorf("server-name-conflict made %d findings, want 2 (a.example on *:80, b.example on *:8080): %v", len(got), got)
	}
}

// directive-args collects the table's rows of a directive's context to
// check its values in one array for the whole run: checking 1,000 valued
// directives allocates nothing for the rows (it allocated a list of rows,
// about 200 bytes, for each of the tree's directives, 8 MB on a tree of
// 20,000 sites).
func TestArgsRowsReused(t *testing.T) {
	allocs := argsAllocs(t, "events {}\nhttp {\n    gzip_comp_level 5;\n}\n", "gzip_comp_level", func(in *nameInfo) {
		if !in.valued {
			t.Fatal("gzip_comp_level: no values in the table to check")
		}
	})
	if allocs != 0 {
		t.Errorf("checking a valued directive allocated %.1f times", allocs)
	}
}

// mayBeTemplated, which spares directive-args a copy of each directive's
// arguments, never says no where templated says yes.
func TestMayBeTemplatedBeforeTemplated(t *testing.T) {
	for _, s := range []string{"", "a", "%a%", "{{ x }}", "<http or https>", "a@b@c", "%", "{", "<", "@", "@@", "x > y", "$host", "%%", "a{{b", "<>"} {
		src := []byte("pre " + s + " post")
		if templated(s) && !mayBeTemplated(src, 4, 4+len(s)) {
			t.Errorf("%q is templated, but mayBeTemplated says no", s)
		}
	}
	if mayBeTemplated([]byte("a%b"), 2, 1) || mayBeTemplated([]byte("%"), 0, 5) != true {
		t.Error("out-of-order or out-of-range bounds")
	}
}

// directive-args works out the words a name takes in a context once per
// run, not for each directive: checking a directive whose rows list words
// (gzip_proxied's bitmask) allocates nothing (the words were gathered
// into a new list for each, 2 MB on a tree of 20,000 sites).
func TestArgsWordsOncePerContext(t *testing.T) {
	allocs := argsAllocs(t, "events {}\nhttp {\n    gzip_proxied expired no-cache;\n}\n", "gzip_proxied", nil)
	if allocs != 0 {
		t.Errorf("checking a directive whose rows list words allocated %.1f times", allocs)
	}
	got := lintText(t, "events {}\nhttp {\n    gzip_proxied expired no-cache;\n    gzip_proxied bogus;\n}\n", engine.Config{})
	found := false
	for _, d := range got {
		found = found || d.Rule == "directive-args" && d.Line == 4 && strings.Contains(d.Message, `invalid value "bogus"`)
	}
	if !found {
		t.Errorf("no directive-args finding at the bogus word: %v", got)
	}
}

// directive-duplicate keeps, for the blocks the walk is in, the first
// directive of each name nginx takes once: a block's directives after a
// nested block still meet those before it, a sibling block starts anew, an
// included file's directives stand in the block that includes them. One map
// per run held an entry for every such directive of the tree (1.6 MB for
// 5,000 servers); the blocks open at once are a handful.
func TestDuplicateFirstsOfOpenBlocks(t *testing.T) {
	files := fstest.MapFS{
		"nginx.conf": {Data: []byte("events {}\nhttp {\n" +
			"    server {\n        root /a;\n        location / {\n            root /b;\n            location /x {\n                root /c;\n            }\n            root /d;\n        }\n        root /e;\n        include more.conf;\n    }\n" +
			"    server {\n        root /g;\n    }\n}\n")},
		"more.conf": {Data: []byte("root /f;\n")},
	}
	tree, err := loader.LoadFS(files, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range Run(tree, engine.Config{}) {
		if d.Rule == "directive-duplicate" {
			got = append(got, fmt.Sprintf("%s:%d %s", strings.TrimPrefix(d.File, "/"), d.Line, d.Message[strings.LastIndex(d.Message, " ")+1:]))
		}
	}
	want := []string{"more.conf:1 nginx.conf:4", "nginx.conf:10 nginx.conf:6", "nginx.conf:12 nginx.conf:4"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("duplicates: %q, want %q", got, want)
	}

	var src strings.Builder
	src.WriteString("events {}\nhttp {\n")
	for i := range 5000 {
		fmt.Fprintf(&src, "    server {\n        listen 80;\n        server_name s%d;\n        root /s;\n        index i;\n        location / {\n            root /l;\n        }\n    }\n", i)
	}
	src.WriteString("}\n")
	big, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(src.String())}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var allocated uint64
	all := []*engine.Rule{
		{Doc: engine.Doc{ID: "probe", Severity: finding.Warning, Category: engine.CategoryCorrectness}, Check: check(func(p *Pass) {
			p.Visits() // the run's walk, made before the count
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			runLanguage(p)
			runtime.ReadMemStats(&after)
			allocated = after.TotalAlloc - before.TotalAlloc
		})},
		ByID("directive-duplicate"),
	}
	engine.Run(big, all, engine.Config{ParallelFrom: 1 << 30})
	if allocated > 256<<10 {
		t.Errorf("directive-duplicate over 5,000 servers allocated %d bytes", allocated)
	}
}

// textHolds, which spares unknown-variable checks the arguments of
// directives without "$", never says no where an argument's value holds the
// byte: over every directive of every fixture, and statements with quotes,
// escapes, blocks, line breaks and one cut short by the end of the file.
func TestTextHoldsWhatArgumentsHold(t *testing.T) {
	held := 0
	check := func(name string, tr *loader.Tree) {
		tr.Walk(func(d *parser.Directive, _ *parser.Context) bool {
			for _, a := range d.Args {
				if strings.IndexByte(a.Value, '$') >= 0 {
					held++
				}
				for _, b := range []byte{'$', '('} {
					if strings.IndexByte(a.Value, b) >= 0 && !textHolds(d, b) {
						t.Errorf("%s:%d: %q holds %q, textHolds says no", name, d.Line, a.Value, b)
					}
				}
			}
			return true
		})
	}
	for _, p := range fixturePaths(t) {
		if tr, err := loader.Load(p, loader.Options{}); err == nil {
			check(p, tr)
		}
	}
	src := "events {}\nhttp {\n    map \"$a\" $b { default 1; }\n    server {\n        set $x 'a\\$b';\n        return 200 \"x\n$y (z)\";\n        if ($uri ~ \"^/(a)\") { return 404; }\n        location ~ ^/(?<n>x) { add_header X \\$v; }\n        add_header Y $z"
	tr, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(src)}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("snippet", tr)
	if held < 300 {
		t.Errorf("only %d arguments with a variable met", held)
	}
}

// checkOriginRegex reads the names and values of the files whose text
// holds "http_referrer" only: over every fixture and a snippet of quoted and
// escaped values, a name or value holding it is in such a file, and the
// snippet's three uses are all reported.
func TestReferrerOnlyWhereTextHoldsIt(t *testing.T) {
	held := 0
	check := func(name string, tr *loader.Tree) {
		tr.Walk(func(d *parser.Directive, _ *parser.Context) bool {
			values := []string{d.Name}
			for _, a := range d.Args {
				values = append(values, a.Value)
			}
			for _, v := range values {
				if strings.Contains(v, "http_referrer") {
					held++
					if !fileHolds(d.File, "http_referrer") {
						t.Errorf("%s:%d: %q holds http_referrer, fileHolds says no", name, d.Line, v)
					}
				}
			}
			return true
		})
	}
	for _, p := range fixturePaths(t) {
		if tr, err := loader.Load(p, loader.Options{}); err == nil {
			check(p, tr)
		}
	}
	src := "events {}\nhttp {\n    server {\n        set $a \"x\\\"$http_referrer\";\n        add_header X '${http_referrer}';\n" +
		"        if ($http_referrer ~ \\.) { return 404; }\n        add_header Y \"$http_refe\\rrer\";\n    }\n}\n"
	tr, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(src)}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("snippet", tr)
	if held < 3 {
		t.Errorf("only %d values with http_referrer met", held)
	}
	n := 0
	for _, d := range lintText(t, src, engine.Config{}) {
		if d.Rule == "origin-regex" && strings.Contains(d.Message, "always empty") {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d findings of $http_referrer, want 3", n)
	}
}

// The unknown-variable check remembers the values whose variables are all
// known, by family: a value fine in stream is judged again in http, where
// the variable may be unknown.
func TestFineValuesByFamily(t *testing.T) {
	src := "events {}\nstream {\n    server {\n        listen 12345;\n        return $ssl_preread_server_name;\n    }\n}\n" +
		"http {\n    server {\n        return 200 $ssl_preread_server_name;\n    }\n}\n"
	var lines []int
	for _, d := range lintText(t, src, engine.Config{}) {
		if d.Rule == "undefined-reference" {
			lines = append(lines, d.Line)
		}
	}
	if fmt.Sprint(lines) != "[10]" {
		t.Errorf("undefined-reference at lines %v, want [10] (http's return only)", lines)
	}
}

// header-inheritance compares header names in place (sameLower) where it
// lowered each: the same answer as comparing them lowered, for ASCII names
// of any case and for the names whose letters lower other than they fold
// (the Kelvin sign, final sigma, dotted I).
func TestSameLowerIsLoweredEquality(t *testing.T) {
	names := []string{"X-Frame-Options", "x-frame-options", "X-FRAME-OPTIONS", "X-Frame-Option", "", "a", "A", "k", "K",
		"\u212a", "\u03c3", "\u03c2", "\u03a3", "\u0130", "i", "I", "\u0131", "x-\u212aey", "x-key", "X-KEY", "\xff", "\xfe"}
	for _, a := range names {
		for _, b := range names {
			la, lb := strings.ToLower(a), strings.ToLower(b)
			if got, want := sameLower(a, b), la == lb; got != want {
				t.Errorf("sameLower(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// argsAllocs is how many times directive-args' check of the first
// directive name of conf allocates, after a first check made its arrays;
// see, when set, is shown what the check knows of the name.
func argsAllocs(t *testing.T, conf, name string, see func(*nameInfo)) float64 {
	t.Helper()
	tree, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(conf)}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	allocs := -1.0
	all := []*engine.Rule{
		{Doc: engine.Doc{ID: "probe", Severity: finding.Warning, Category: engine.CategoryCorrectness}, Check: check(func(p *Pass) {
			done := false
			p.Each(func(d *parser.Directive, c *parser.Context) {
				if done {
					return
				}
				done = true
				key := engine.ContextKey(c)
				lc := langCtx{key: key, bit: knowledge.ContextBit(key), certain: certainContext(c)}
				in := p.info(d.Name)
				if see != nil {
					see(in)
				}
				rows := argsAt(p, d, c, lc, in, nil)
				allocs = testing.AllocsPerRun(1000, func() { rows = argsAt(p, d, c, lc, in, rows[:0]) })
			}, name)
		})},
	}
	engine.Run(tree, all, engine.Config{})
	return allocs
}
