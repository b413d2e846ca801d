package engine_test

import (
	"fmt"
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
