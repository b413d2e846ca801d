package engine_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// probe runs check as the one rule of a run over src, in turn.
func probe(t *testing.T, src string, check func(p *engine.Pass)) {
	t.Helper()
	tree, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(src)}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := []*engine.Rule{{Doc: engine.Doc{ID: "probe", Severity: finding.Warning, Category: engine.CategoryCorrectness}, Check: check}}
	engine.Run(tree, all, engine.Config{ParallelFrom: 1 << 30})
}

// Each over several names lists their visits in walk order whichever way
// the list is made (picked out of the walk when the names are many,
// sorted when few), a name asked twice twice, and a visit in an int32: a
// list of 30,000 visits takes 120 KB, not the 240 KB of a list of ints.
func TestEachOfSeveralNamesInWalkOrder(t *testing.T) {
	var src strings.Builder
	src.WriteString("events {}\nhttp {\n")
	for i := range 10000 {
		fmt.Fprintf(&src, "    a %d;\n    b %d;\n    c %d;\n", i, i, i)
	}
	src.WriteString("    rare 1;\n    other 2;\n    rare 3;\n}\n")
	probe(t, src.String(), func(p *engine.Pass) {
		walkOrder := func(names ...string) string {
			var out []string
			p.EachDirective(func(d *parser.Directive, _ *parser.Context) {
				for _, n := range names {
					if d.Name == n {
						out = append(out, d.Name+d.Arg(0))
					}
				}
			})
			return strings.Join(out, " ")
		}
		each := func(names ...string) string {
			var out []string
			p.Each(func(d *parser.Directive, _ *parser.Context) { out = append(out, d.Name+d.Arg(0)) }, names...)
			return strings.Join(out, " ")
		}
		for _, names := range [][]string{{"c", "a", "b"}, {"rare", "other"}, {"rare", "http"}, {"a", "rare", "a"}, {"a", "missing"}} {
			if got, want := each(names...), walkOrder(names...); got != want {
				t.Errorf("Each of %q: %.80s, want %.80s", names, got, want)
			}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p.Each(func(*parser.Directive, *parser.Context) {}, "b", "c", "a")
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 30000*9/2 {
			t.Errorf("the list of 30,000 visits took %d bytes", n)
		}
	})
}

// Find and EffectiveIn answer with a piece of the tree where the
// directives stand together (most levels: one listen, a run of
// proxy_set_header lines), allocating nothing: the rules ask them for
// every server and location, and each answer was a new list, and each
// EffectiveIn a copy of the block chain. Where another directive stands
// between them, the answer is a list of its own, in order.
func TestFindAndEffectiveInAllocateNothing(t *testing.T) {
	src := "events {}\nhttp {\n    server {\n        listen 80;\n        listen 443 ssl;\n        root /a;\n        index x;\n        root /b;\n    }\n}\n"
	ran := false
	probe(t, src, func(p *engine.Pass) {
		p.Each(func(s *parser.Directive, c *parser.Context) {
			ran = true
			if got := p.Find(s.Block, "listen"); len(got) != 2 || got[0].Arg(0) != "80" || got[1].Arg(0) != "443" {
				t.Errorf("listens: %v", got)
			}
			if got := p.Find(s.Block, "root"); len(got) != 2 || got[0].Arg(0) != "/a" || got[1].Arg(0) != "/b" {
				t.Errorf("roots: %v", got)
			}
			if got := p.EffectiveIn(c, s, "index"); got.Last() == nil || got.Last().Arg(0) != "x" || got.Level != s {
				t.Errorf("index in effect: %+v", got)
			}
			if got := p.EffectiveIn(c, s, "server_tokens"); got.Found() || !got.Complete {
				t.Errorf("server_tokens in effect: %+v", got)
			}
			if n := testing.AllocsPerRun(100, func() { p.Find(s.Block, "listen") }); n != 0 {
				t.Errorf("Find allocated %.0f times", n)
			}
			if n := testing.AllocsPerRun(100, func() { p.EffectiveIn(c, s, "index") }); n != 0 {
				t.Errorf("EffectiveIn allocated %.0f times", n)
			}
		}, "server")
	})
	if !ran {
		t.Fatal("no server met")
	}
}
