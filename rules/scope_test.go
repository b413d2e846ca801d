package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// TestIncrementalSameAsFull is the safety net of the rules' scopes
// (engine.Rule.Scope): every configuration of fixtures/ and of the corpus
// that parses is made a tree whose http server blocks stand in site files
// the main file includes (splitServers; every third tree has each server
// twice, in twin files), and a seeded series of
// single-line edits inside a server block of a site file (a line deleted,
// a line of another configuration or of another server of the tree
// inserted, a line replaced by one) is replayed; after each, the findings
// of engine.RunIncremental, given what the run before kept, are those of
// engine.Run over the same tree, byte for byte. A rule declared
// engine.ScopeServer whose findings depend on another server block (its
// names, its listen addresses, its variables) keeps a finding the edit
// moved, and fails it (TestIncrementalCatchesMisdeclaredScope).
func TestIncrementalSameAsFull(t *testing.T) {
	inputs := scopeInputs(t, "../fixtures")
	if !testing.Short() {
		dir := "../../shared/corpus"
		nginxtest.RequireCorpus(t, dir)
		inputs = append(inputs, scopeInputs(t, dir)...)
	}
	st := replayEdits(t, All, inputs, 4, false)
	t.Logf("%d trees, %d edits, %d runs incremental (of %d)", st.trees, st.edits, st.incremental, st.runs)
	if st.incremental < st.edits/2 {
		t.Errorf("only %d of %d runs after an edit were incremental: the test does not exercise RunIncremental", st.incremental, st.edits)
	}
}

// TestIncrementalCatchesMisdeclaredScope: the edits of
// TestIncrementalSameAsFull find a rule that reads other server blocks
// declared engine.ScopeServer (server-name-conflict: a second server with
// the same name on the same address) — the net holds.
func TestIncrementalCatchesMisdeclaredScope(t *testing.T) {
	all := slices.Clone(All)
	for i, r := range all {
		if r.ID == "server-name-conflict" {
			c := *r
			c.Scope = engine.ScopeServer
			all[i] = &c
		}
	}
	st := replayEdits(t, all, scopeInputs(t, "../fixtures"), 4, true)
	if st.differ == 0 {
		t.Errorf("server-name-conflict declared server-local: no edit of %d made the incremental findings differ", st.edits)
	}
}

// TestIncrementalCatchesStaleSummary: an edit of one server block that
// changes what an engine.ScopeSummary rule's summary covers (a variable
// set there) moves the rule's findings in another server block; the
// incremental run gives the full run's findings, and fails to with a
// Summary that writes the same key for every tree (the summary wrongly
// kept).
func TestIncrementalCatchesStaleSummary(t *testing.T) {
	main := "events {}\nhttp {\n    include sites/*.conf;\n}\n"
	a := "server {\n    listen 80;\n    server_name a.example;\n    add_header X-A $foo;\n    return 200 $bar;\n" +
		"    location /r/ {\n        rewrite ^ $foo break;\n        proxy_pass http://127.0.0.1:8080;\n    }\n}\n"
	for _, tc := range []struct {
		rule         string
		before, edit string // sites/b.conf, or site
		site, a      string // the file edited and sites/a.conf, where not the above
	}{
		{"header-injection", "server {\n    listen 80;\n    server_name b.example;\n    set $foo $request_uri;\n}\n",
			"server {\n    listen 80;\n    server_name b.example;\n    set $foo $uri;\n}\n", "", ""},
		{"proxy-pass-normalized", "server {\n    listen 80;\n    server_name b.example;\n    set $foo $request_uri;\n}\n",
			"server {\n    listen 80;\n    server_name b.example;\n    set $foo /b;\n}\n", "", ""},
		{"undefined-reference", "server {\n    listen 80;\n    server_name b.example;\n    set $foo 1;\n    set $bar 1;\n}\n",
			"server {\n    listen 80;\n    server_name b.example;\n    set $foo 1;\n}\n", "", ""},
		// a's second default server of *:80 is the first once 0.conf's
		// (read before it) is not
		{"duplicate-definition", "server {\n    listen 80 default_server;\n    server_name z.example;\n}\n",
			"server {\n    listen 80;\n    server_name z.example;\n}\n", "sites/0.conf", "server {\n    listen 80 default_server;\n    server_name a.example;\n}\n"},
	} {
		site, siteA := tc.site, tc.a
		if site == "" {
			site, siteA = "sites/b.conf", a
		}
		var rule *engine.Rule
		for _, r := range All {
			if r.ID == tc.rule {
				rule = r
			}
		}
		if rule == nil || rule.Scope != engine.ScopeSummary {
			t.Fatalf("%s is not a rule of ScopeSummary", tc.rule)
		}
		stale := *rule
		stale.Summary = func(*engine.Pass) (string, bool) { return "the same", true }
		for _, r := range []*engine.Rule{rule, &stale} {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"nginx.conf": main, "sites/a.conf": siteA, site: tc.before})
			reuse := &loader.Reuse{}
			load := func() *loader.Tree {
				tr, err := loader.Load(filepath.Join(dir, "nginx.conf"), loader.Options{Reuse: reuse})
				if err != nil {
					t.Fatal(err)
				}
				return tr
			}
			all := []*engine.Rule{r}
			_, _, prev := engine.RunIncremental(load(), all, engine.Config{}, nil)
			if err := os.WriteFile(filepath.Join(dir, site), []byte(tc.edit), 0o644); err != nil {
				t.Fatal(err)
			}
			tr := load()
			got, _, next := engine.RunIncremental(tr, all, engine.Config{}, prev)
			want, _ := engine.Run(tr, all, engine.Config{})
			same := diagJSON(got) == diagJSON(want)
			switch {
			case !next.Kept():
				t.Errorf("%s: the edit of one server block reran everything", tc.rule)
			case r == rule && !same:
				t.Errorf("%s: the incremental findings differ from a full run's:\n%s", tc.rule, firstDifference(got, want))
			case r != rule && same:
				t.Errorf("%s with a stale summary: the incremental findings are a full run's (%d findings): the edit does not move a finding in another server", tc.rule, len(want))
			}
		}
	}
}

// scopeInput is a configuration to replay edits in: its text, read as a
// whole main file.
type scopeInput struct {
	name string
	text string
}

// scopeInputs reads every .conf file below dir that parses, wrapped into a
// main file by the context the loader reads it in.
func scopeInputs(t *testing.T, dir string) []scopeInput {
	var out []scopeInput
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".tsv") || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".golden") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > 200<<10 {
			return nil
		}
		f, diag := parser.Parse(p, src)
		if diag != nil || f.Broken {
			return nil
		}
		tr, err := loader.Load(p, loader.Options{})
		if err != nil || len(tr.Roots) == 0 {
			return nil
		}
		text := string(src)
		switch strings.Join(tr.Roots[0].Context, " ") {
		case "main":
		case "main http":
			text = "events {}\nhttp {\n" + text + "\n}\n"
		case "main http server":
			text = "events {}\nhttp {\nserver {\nlisten 80;\n" + text + "\n}\n}\n"
		case "main http server location":
			text = "events {}\nhttp {\nserver {\nlisten 80;\nlocation / {\n" + text + "\n}\n}\n}\n"
		default:
			return nil
		}
		out = append(out, scopeInput{name: p, text: text})
		return nil
	})
	return out
}

// splitServers moves the server blocks of main's http blocks into site
// files, two a file (one where there are four or fewer), each block
// replaced by the include of its file where it is its file's first; every
// other block includes a snippet the blocks share; with twice, every
// block again, in twin files included after the last. It returns the files
// by name, nginx.conf the main one, or nil when main has no server block.
func splitServers(main string, twice bool) map[string]string {
	f, _ := parser.Parse("nginx.conf", []byte(main))
	var servers []*parser.Directive
	for _, d := range f.Directives {
		if d.Name == "http" && d.Block != nil {
			for _, s := range d.Block {
				if s.Name == "server" && s.Block != nil {
					servers = append(servers, s)
				}
			}
		}
	}
	if len(servers) == 0 {
		return nil
	}
	files := map[string]string{"snippets/shared.conf": "add_header X-Shared 1;\nexpires 1h;\n"}
	per := 2 // servers a site file
	if len(servers) <= 4 {
		per = 1
	}
	var b strings.Builder
	at := 0
	for i, s := range servers {
		b.WriteString(main[at:s.Start])
		at = int(s.End)
		name := fmt.Sprintf("sites/g%d.conf", i/per)
		if i%per == 0 {
			b.WriteString("include " + name + ";")
		}
		text := main[s.Start:s.End]
		if i%2 == 1 {
			text = text[:s.BlockOpen-s.Start+1] + "\n    include snippets/shared.conf;" + text[s.BlockOpen-s.Start+1:]
		}
		files[name] += text + "\n"
	}
	if twice {
		// every server again, after the last, in files of their own: what
		// one server's edit changes in its twin, a rule that reads other
		// servers reports there
		b.WriteString(" include sites/twin*.conf;")
		twins := map[string]string{}
		for name, text := range files {
			if g, ok := strings.CutPrefix(name, "sites/g"); ok {
				twins["sites/twin"+g] = text
			}
		}
		maps.Copy(files, twins)
	}
	b.WriteString(main[at:])
	files["nginx.conf"] = b.String()
	return files
}

// editStats counts what replayEdits did.
type editStats struct{ trees, edits, runs, incremental, differ int }

// replayEdits makes each input a tree of site files (splitServers) and
// replays seeded edits in server blocks of its site files, comparing each
// load's incremental findings with a full run's. With lenient, a
// difference is counted, not an error.
func replayEdits(t *testing.T, all []*engine.Rule, inputs []scopeInput, edits int, lenient bool) editStats {
	var st editStats
	rng := rand.New(rand.NewPCG(45, 2026))
	// the lines edits insert: single lines of the inputs, some opening or
	// closing a block
	var pool []string
	for _, in := range inputs {
		for _, l := range strings.Split(in.text, "\n") {
			if l = strings.TrimSpace(l); strings.HasSuffix(l, ";") || strings.HasSuffix(l, "{") || l == "}" {
				pool = append(pool, l)
			}
		}
	}
	pool = append(pool, "include snippets/shared.conf;", "server_name shop.example;", "listen 80 default_server;")
	slices.Sort(pool)
	pool = slices.Compact(pool)
	dir := t.TempDir()
	for n, in := range inputs {
		files := splitServers(in.text, n%3 == 0)
		if files == nil {
			continue
		}
		st.trees++
		root := filepath.Join(dir, fmt.Sprint(n))
		writeFiles(t, root, files)
		var sites []string
		for name := range files {
			if strings.HasPrefix(name, "sites/") {
				sites = append(sites, name)
			}
		}
		slices.Sort(sites)
		reuse := &loader.Reuse{}
		var prev *engine.Incremental
		// every other tree with the rules in parallel (as on a large tree),
		// which the race detector watches
		cfg := engine.Config{}
		if n%2 == 1 {
			cfg.ParallelFrom = 1
		}
		what := "loaded"
		for e := 0; e <= edits; e++ {
			if e > 0 {
				name := sites[rng.IntN(len(sites))]
				lines := pool
				if rng.IntN(2) == 0 {
					// a line of another server of the tree: its names,
					// addresses, variables met twice
					lines = treeLines(files)
				}
				text, ok := editServer(rng, files[name], lines)
				if !ok {
					continue
				}
				files[name] = text
				if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				st.edits++
				what = fmt.Sprintf("edit %d of %s", e, name)
			}
			tr, err := loader.Load(filepath.Join(root, "nginx.conf"), loader.Options{Reuse: reuse})
			if err != nil {
				t.Fatalf("%s: %v", in.name, err)
			}
			got, gotNot, next := engine.RunIncremental(tr, all, cfg, prev)
			if prev != nil && next.Kept() {
				st.incremental++
			}
			st.runs++
			prev = next
			want, wantNot := engine.Run(tr, all, cfg)
			if g, w := diagJSON(got), diagJSON(want); g != w || gotNot != wantNot {
				st.differ++
				if !lenient {
					t.Errorf("%s, %s: the incremental findings differ from a full run's:\n%s", in.name, what, firstDifference(got, want))
					if st.differ > 5 {
						t.FailNow()
					}
				}
			}
		}
	}
	return st
}

// writeFiles writes files (by name below dir) and their directories.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeLines are the one-line statements of a tree's site files.
func treeLines(files map[string]string) []string {
	var out []string
	for name, text := range files {
		if !strings.HasPrefix(name, "sites/") {
			continue
		}
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); strings.HasSuffix(l, ";") {
				out = append(out, l)
			}
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return []string{"return 404;"}
	}
	return out
}

// editServer changes one line inside a server block at the top of text: it
// deletes it, inserts a line of pool before it or replaces it by one.
func editServer(rng *rand.Rand, text string, pool []string) (string, bool) {
	f, _ := parser.Parse("site.conf", []byte(text))
	var servers []*parser.Directive
	for _, d := range f.Directives {
		if d.Name == "server" && d.Block != nil && d.EndLine > d.Line+1 {
			servers = append(servers, d)
		}
	}
	if len(servers) == 0 {
		return "", false
	}
	s := servers[rng.IntN(len(servers))]
	lines := strings.SplitAfter(text, "\n")
	// the lines between the one of "server {" and the one of its "}"
	i := int(s.Line) + rng.IntN(int(s.EndLine-s.Line-1))
	line := "        " + pool[rng.IntN(len(pool))] + "\n"
	switch rng.IntN(3) {
	case 0:
		lines = slices.Delete(lines, i, i+1)
	case 1:
		lines = slices.Insert(lines, i, line)
	default:
		lines[i] = line
	}
	return strings.Join(lines, ""), true
}

func diagJSON(ds []finding.Diagnostic) string {
	b, err := json.Marshal(ds)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// firstDifference shows where two lists of findings part.
func firstDifference(got, want []finding.Diagnostic) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = diagJSON(got[i : i+1])
		}
		if i < len(want) {
			w = diagJSON(want[i : i+1])
		}
		if g != w {
			return fmt.Sprintf("finding %d (of %d, want %d):\n got  %s\n want %s", i, len(got), len(want), g, w)
		}
	}
	return "the same findings; the counts past the bound differ"
}

// TestIncrementalServerLocalRulesReadNoOtherServer: rules declared
// engine.ScopeServer whose findings moved with another server block's
// directives, each an edit of one site file that changes a finding in
// another (directives nginx refuses where they stand, as a configuration
// being typed holds): an upstream block inside a server, which
// proxy-dns-static and directive-args read as the tree's upstreams, and a
// load_module inside a server, which unknown-directive reads as the tree's
// modules. After each, RunIncremental's findings are Run's.
func TestIncrementalServerLocalRulesReadNoOtherServer(t *testing.T) {
	main := "events {}\nhttp {\n    include sites/*.conf;\n}\n"
	for _, tc := range []struct {
		name           string
		a, b, bEdited  string
		rule, contains string // a finding of rule in sites/a.conf, before or after
	}{
		{"proxy-dns-static: an upstream of that name in another server",
			"server {\n    listen 80;\n    location / {\n        proxy_pass http://api.example.com;\n    }\n}\n",
			"server {\n    listen 81;\n    upstream api.example.com {\n        server 127.0.0.1:8080;\n    }\n}\n",
			"server {\n    listen 81;\n}\n",
			"proxy-dns-static", "api.example.com is resolved once"},
		{"directive-args: a ported name of an upstream in another server",
			"server {\n    listen 80;\n    location / {\n        proxy_pass http://backend:8080;\n    }\n}\n",
			"server {\n    listen 81;\n    upstream backend {\n        server 127.0.0.1:8080;\n    }\n}\n",
			"server {\n    listen 81;\n}\n",
			"directive-args", "may not have port"},
		{"unknown-directive: a load_module in another server",
			"server {\n    listen 80;\n    fastcgi_bufers 8 16k;\n}\n",
			"server {\n    listen 81;\n    load_module modules/ngx_http_custom_module.so;\n}\n",
			"server {\n    listen 81;\n}\n",
			"unknown-directive", "if a module loaded with load_module provides it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fstest.MapFS{"nginx.conf": {Data: []byte(main)}, "sites/a.conf": {Data: []byte(tc.a)}, "sites/b.conf": {Data: []byte(tc.b)}}
			load := func() *loader.Tree {
				tr, err := loader.LoadFS(fs, "nginx.conf", loader.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return tr
			}
			in := func(ds []finding.Diagnostic) bool {
				for _, d := range ds {
					if d.Rule == tc.rule && strings.HasSuffix(d.File, "a.conf") && strings.Contains(d.Message, tc.contains) {
						return true
					}
				}
				return false
			}
			tr := load()
			before, _, prev := engine.RunIncremental(tr, All, engine.Config{}, nil)
			fs["sites/b.conf"] = &fstest.MapFile{Data: []byte(tc.bEdited)}
			tr = load()
			got, _, next := engine.RunIncremental(tr, All, engine.Config{}, prev)
			want, _ := engine.Run(tr, All, engine.Config{})
			if in(before) == in(want) {
				t.Fatalf("the edit of b.conf does not move the %s finding in a.conf: the case tests nothing", tc.rule)
			}
			if g, w := diagJSON(got), diagJSON(want); g != w {
				t.Errorf("an edit of another server moved a finding in a.conf, and the incremental run (kept: %v) missed it:\n%s", next.Kept(), firstDifference(got, want))
			}
		})
	}
}

// TestRulesOfOneWalkShareScope: the language rules are checked in one walk
// by the first of them to run, which reports for all four (Pass.For) into
// its own findings: a run after an edit keeps or makes them again together,
// so they must declare one scope.
func TestRulesOfOneWalkShareScope(t *testing.T) {
	ids := []string{"unknown-directive", "directive-context", "directive-args", "directive-duplicate"}
	scope := map[engine.Scope][]string{}
	for _, r := range All {
		if slices.Contains(ids, r.ID) {
			scope[r.Scope] = append(scope[r.Scope], r.ID)
		}
	}
	if len(scope) != 1 {
		t.Errorf("the language rules declare different scopes: %v", scope)
	}
}

// TestListenFirstsReadEveryListenOfAServer: duplicate-definition's summary
// takes a server block's listens from the walk's visits, where a server
// directive nested in the block (nginx refuses it, the walk meets it)
// stands between them; the listen after it is the block's still, as for
// the rule's full run.
func TestListenFirstsReadEveryListenOfAServer(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"nginx.conf": "events {}\nhttp {\n    server {\n        server { }\n        listen 80 default_server;\n    }\n}\n"})
	tr, err := loader.Load(filepath.Join(dir, "nginx.conf"), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var key string
	r := &engine.Rule{Doc: engine.Doc{ID: "x"}, Check: func(p *engine.Pass) { key, _ = duplicateSummary(&Pass{Pass: p}) }}
	engine.Run(tr, []*engine.Rule{r}, engine.Config{})
	if !strings.Contains(key, "nginx.conf\":5:9") {
		t.Errorf("the summary misses the default listen after a nested server block: %q", key)
	}
}
