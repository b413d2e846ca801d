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

// madeKey keys the run-wide value of TestRunKnowsNoRule's rules.
type madeKey struct{}

// The engine runs the rules it is given and knows none of nginxtune's:
// made-up rules report, a suppression hides a finding, a suppression that
// matches nothing is reported as the rule marked for it, a check reports
// for another rule through For, and a run-wide value is made once for all
// the rules that ask for it.
func TestRunKnowsNoRule(t *testing.T) {
	src := "events {}\nhttp {\n    a 1;\n    # nginxtune:disable first -- known\n    a 2;\n    # nginxtune:disable second -- stale\n    b 3;\n}\n"
	tree, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(src)}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	made := 0
	shared := func(p *engine.Pass) int {
		return p.Shared(madeKey{}, func() any { made++; return made }).(int)
	}
	rule := func(id string, check func(*engine.Pass)) *engine.Rule {
		return &engine.Rule{Doc: engine.Doc{ID: id, Severity: finding.Warning, Category: engine.CategoryCorrectness}, Check: check}
	}
	all := []*engine.Rule{
		rule("first", func(p *engine.Pass) {
			n := shared(p)
			p.Each(func(d *parser.Directive, _ *parser.Context) { p.Reportf(d, "first %s (%d)", d.Arg(0), n) }, "a")
		}),
		rule("second", func(p *engine.Pass) {
			n := shared(p)
			third := p.For("third")
			p.Each(func(d *parser.Directive, _ *parser.Context) { third.Reportf(d, "third %s (%d)", d.Arg(0), n) }, "b")
		}),
		rule("third", nil),
		{Doc: engine.Doc{ID: "unused", Severity: finding.Info, Category: engine.CategoryInput}, UnusedSuppressions: true},
	}
	got, notShown := engine.Run(tree, all, engine.Config{})
	var lines []string
	for _, d := range got {
		lines = append(lines, fmt.Sprintf("%d %s %s: %s", d.Line, d.Rule, d.Severity, d.Message))
	}
	want := []string{
		"3 first warning: first 1 (1)",
		"6 unused info: suppression of second matches no finding; remove it",
		"7 third warning: third 3 (1)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") || notShown != 0 {
		t.Errorf("got\n%s\n(%d not shown), want\n%s", strings.Join(lines, "\n"), notShown, strings.Join(want, "\n"))
	}
	if made != 1 {
		t.Errorf("the run-wide value was made %d times, want once", made)
	}
}

// Each over several names walks them in the order of the tree, and the
// list of their visits is made once per run, whichever rules ask: on a tree
// of 20,000 such directives, twenty walks by a second rule allocate a few
// bytes each (the names' key), not a list of 20,000 visits each (160 KB;
// several rules walk the *_pass directives or the header families, and
// each made and sorted its own list).
func TestEachOfSeveralNamesMadeOnce(t *testing.T) {
	var src strings.Builder
	src.WriteString("events {}\nhttp {\n")
	for i := range 10000 {
		fmt.Fprintf(&src, "    b %d;\n    a %d;\n", i, i)
	}
	src.WriteString("}\n")
	tree, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(src.String())}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var orders [2][]string
	var allocated uint64
	walk := func(p *engine.Pass, into *[]string) {
		*into = (*into)[:0]
		p.Each(func(d *parser.Directive, _ *parser.Context) { *into = append(*into, d.Name+d.Arg(0)) }, "a", "b")
	}
	all := []*engine.Rule{
		{Doc: engine.Doc{ID: "first", Severity: finding.Warning, Category: engine.CategoryCorrectness}, Check: func(p *engine.Pass) {
			walk(p, &orders[0])
		}},
		{Doc: engine.Doc{ID: "second", Severity: finding.Warning, Category: engine.CategoryCorrectness}, Check: func(p *engine.Pass) {
			orders[1] = make([]string, 0, 20000)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 20 {
				p.Each(func(*parser.Directive, *parser.Context) {}, "a", "b")
			}
			runtime.ReadMemStats(&after)
			allocated = after.TotalAlloc - before.TotalAlloc
			walk(p, &orders[1])
		}},
	}
	engine.Run(tree, all, engine.Config{ParallelFrom: 1 << 30}) // in turn: the count is the second rule's alone
	if len(orders[0]) != 20000 || orders[0][0] != "b0" || orders[0][1] != "a0" || orders[0][19999] != "a9999" {
		t.Fatalf("walk order: %d visits, starting %v", len(orders[0]), orders[0][:min(2, len(orders[0]))])
	}
	if strings.Join(orders[0], " ") != strings.Join(orders[1], " ") {
		t.Error("the second rule's walk differs from the first's")
	}
	if allocated > 16<<10 {
		t.Errorf("twenty walks of a second rule allocated %d bytes: the list of visits was made again", allocated)
	}
}

// Each over several names of which at most one is in the tree (most of a
// family, in a small tree) walks that name's visits in walk order and
// allocates nothing: no merged list is made, shared or looked up.
func TestEachOfSeveralNamesOneInTree(t *testing.T) {
	tree, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte("events {}\nhttp {\n    a 1;\n    c 1;\n    a 2;\n}\n")}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got, none []string
	var allocs float64
	all := []*engine.Rule{{Doc: engine.Doc{ID: "walk", Severity: finding.Warning, Category: engine.CategoryCorrectness}, Check: func(p *engine.Pass) {
		p.Each(func(d *parser.Directive, _ *parser.Context) { got = append(got, d.Name+d.Arg(0)) }, "b", "a", "x")
		p.Each(func(d *parser.Directive, _ *parser.Context) { none = append(none, d.Name) }, "b", "x")
		allocs = testing.AllocsPerRun(20, func() {
			p.Each(func(*parser.Directive, *parser.Context) {}, "b", "a", "x")
			p.Each(func(*parser.Directive, *parser.Context) {}, "y", "z")
		})
	}}}
	engine.Run(tree, all, engine.Config{})
	if strings.Join(got, " ") != "a1 a2" || len(none) != 0 {
		t.Errorf("walked %v and %v, want [a1 a2] and nothing", got, none)
	}
	if allocs > 0 {
		t.Errorf("a walk of several names with at most one in the tree allocated %.0f times", allocs)
	}
}
