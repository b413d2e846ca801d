package engine_test

import (
	"reflect"
	"testing"
	"testing/fstest"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// RunIncremental gives Run's findings after each kind of change, and keeps
// the last run's findings only where a change inside server blocks cannot
// move them: an edit in a server block of a site file or of a snippet
// several servers share, a server added; never after a change outside
// server blocks (the http level, an upstream in a site file), a file read
// both outside and inside server blocks, or another configuration.
func TestRunIncrementalKeepsOnlyWhatCannotMove(t *testing.T) {
	rule := func(id string, scope engine.Scope, check func(*engine.Pass)) *engine.Rule {
		return &engine.Rule{Doc: engine.Doc{ID: id, Severity: finding.Warning, Category: engine.CategoryCorrectness}, Check: check, Scope: scope}
	}
	all := []*engine.Rule{
		// a finding per "x": how many its server has, and the http level's "y"
		rule("local", engine.ScopeServer, func(p *engine.Pass) {
			p.Each(func(d *parser.Directive, c *parser.Context) {
				n := 0
				if s := c.Enclosing("server"); s != nil {
					n = len(p.Find(s.Block, "x"))
				}
				y := ""
				if h := c.Enclosing("http"); h != nil {
					for _, v := range p.Find(h.Block, "y") {
						y = v.Arg(0)
					}
				}
				p.Reportf(d, "x %s: %d in its server, y %s", d.Arg(0), n, y)
			}, "x")
		}),
		// a finding per server: how many servers the tree has
		rule("global", engine.ScopeTree, func(p *engine.Pass) {
			n := 0
			p.HTTPServers(func(*parser.Directive, *parser.Context) { n++ })
			p.HTTPServers(func(s *parser.Directive, _ *parser.Context) { p.Reportf(s, "%d servers", n) })
		}),
	}
	main := "events {}\nhttp {\n    y 1;\n    include sites/*.conf;\n}\n"
	base := map[string]string{
		"nginx.conf":          main,
		"sites/a.conf":        "server {\n    x 1;\n    include snippets/s.conf;\n}\nserver {\n    x 2;\n}\n",
		"sites/b.conf":        "server {\n    x 3;\n    x 10;\n    include snippets/s.conf;\n}\n",
		"sites/c.conf":        "server {\n    x 4;\n}\n",
		"snippets/s.conf":     "x 5;\n",
		"snippets/alone.conf": "x 6;\n",
	}
	for _, tc := range []struct {
		name string
		// both: files of the tree before and after the change
		both, change map[string]string
		cfg          engine.Config
		kept         bool
	}{
		{"a server of a site file", nil, map[string]string{"sites/c.conf": "server {\n    x 4;\n    x 7;\n}\n"}, engine.Config{}, true},
		{"a line deleted before other servers of the file", nil, map[string]string{"sites/a.conf": "server {\n    include snippets/s.conf;\n}\nserver {\n    x 2;\n}\n"}, engine.Config{}, true},
		{"a server that reads a snippet another shares", nil, map[string]string{"sites/b.conf": "server {\n    x 3;\n    x 10;\n    x 7;\n    include snippets/s.conf;\n}\n"}, engine.Config{}, true},
		{"a snippet two servers share", nil, map[string]string{"snippets/s.conf": "x 5;\nx 8;\n"}, engine.Config{}, true},
		{"a server added", nil, map[string]string{"sites/c.conf": "server {\n    x 4;\n}\nserver {\n    x 9;\n}\n"}, engine.Config{}, true},
		{"the http level", nil, map[string]string{"nginx.conf": "events {}\nhttp {\n    y 2;\n    include sites/*.conf;\n}\n"}, engine.Config{}, false},
		{"an upstream in a site file", nil, map[string]string{"sites/c.conf": "upstream u { server 127.0.0.1; }\nserver {\n    x 4;\n}\n"}, engine.Config{}, false},
		{"a site file gone", nil, map[string]string{"sites/c.conf": ""}, engine.Config{}, false},
		{"a server beside a file read outside and inside servers", map[string]string{"nginx.conf": "events {}\nhttp {\n    y 1;\n    include snippets/alone.conf;\n    include sites/*.conf;\n}\n",
			"sites/c.conf": "server {\n    x 4;\n    include snippets/alone.conf;\n}\n"}, map[string]string{"sites/b.conf": "server {\n}\n"}, engine.Config{}, false},
		{"a server beside one in a file with an upstream", map[string]string{"sites/c.conf": "upstream u {\n    x 11;\n}\nserver {\n    x 4;\n}\n"},
			map[string]string{"sites/b.conf": "server {\n}\n"}, engine.Config{}, true},
		{"another configuration", nil, nil, engine.Config{Disabled: map[string]bool{"global": true}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			load := func(files map[string]string) *loader.Tree {
				fs := fstest.MapFS{}
				for name, text := range files {
					if text != "" {
						fs[name] = &fstest.MapFile{Data: []byte(text)}
					}
				}
				tr, err := loader.LoadFS(fs, "nginx.conf", loader.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return tr
			}
			with := func(files ...map[string]string) map[string]string {
				out := map[string]string{}
				for _, f := range files {
					for name, text := range f {
						out[name] = text
					}
				}
				return out
			}
			_, _, prev := engine.RunIncremental(load(with(base, tc.both)), all, engine.Config{}, nil)
			after := with(base, tc.both, tc.change)
			tr := load(after)
			got, _, next := engine.RunIncremental(tr, all, tc.cfg, prev)
			want, _ := engine.Run(tr, all, tc.cfg)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the findings differ from a full run's:\n%v\nwant:\n%v", got, want)
			}
			if next.Kept() != tc.kept {
				t.Errorf("kept the last run's findings: %v, want %v", next.Kept(), tc.kept)
			}
		})
	}
}

// TestRunIncrementalForAcrossScopes: a check of a ScopeServer rule that
// reports for a rule of ScopeTree (Pass.For, one walk for several rules)
// walks only the servers rerun, and what it reports for the other rule
// depends on the whole tree: RunIncremental runs everything then, and its
// findings are Run's after an edit of one server.
func TestRunIncrementalForAcrossScopes(t *testing.T) {
	all := []*engine.Rule{
		{Doc: engine.Doc{ID: "walker", Severity: finding.Warning, Category: engine.CategoryCorrectness}, Scope: engine.ScopeServer,
			Check: func(p *engine.Pass) {
				n := 0
				p.HTTPServers(func(*parser.Directive, *parser.Context) { n++ })
				counter := p.For("counter")
				p.Each(func(d *parser.Directive, _ *parser.Context) {
					p.Reportf(d, "x %s", d.Arg(0))
					counter.Reportf(d, "x %s: %d servers walked", d.Arg(0), n)
				}, "x")
			}},
		// reported by walker's check only
		{Doc: engine.Doc{ID: "counter", Severity: finding.Warning, Category: engine.CategoryCorrectness}, Scope: engine.ScopeTree},
	}
	fs := fstest.MapFS{
		"nginx.conf":   {Data: []byte("events {}\nhttp {\n    include sites/*.conf;\n}\n")},
		"sites/a.conf": {Data: []byte("server {\n    x 1;\n}\n")},
		"sites/b.conf": {Data: []byte("server {\n    x 2;\n}\n")},
	}
	load := func() *loader.Tree {
		tr, err := loader.LoadFS(fs, "nginx.conf", loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	_, _, prev := engine.RunIncremental(load(), all, engine.Config{}, nil)
	fs["sites/b.conf"] = &fstest.MapFile{Data: []byte("server {\n    x 2;\n    x 3;\n}\n")}
	tr := load()
	got, _, _ := engine.RunIncremental(tr, all, engine.Config{}, prev)
	want, _ := engine.Run(tr, all, engine.Config{})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the findings differ from a full run's:\n%v\nwant:\n%v", got, want)
	}
}
