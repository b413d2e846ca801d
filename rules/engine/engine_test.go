package engine

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
)

// A rule's findings past MaxFindings are counted, not kept: a tree of a
// million unknown names held 1.1 GB of findings that were then cut.
func TestReportKeepsAtMostMaxFindings(t *testing.T) {
	var diags []finding.Diagnostic
	dropped := 0
	p := &Pass{rule: &Rule{Doc: Doc{ID: "x"}}, diags: &diags, dropped: &dropped}
	for i := 0; i < MaxFindings+10; i++ {
		p.Report(finding.Diagnostic{Message: "m"})
	}
	if len(diags) != MaxFindings || dropped != 10 {
		t.Errorf("kept %d, counted %d past the bound; want %d and 10", len(diags), dropped, MaxFindings)
	}
}

// sortDiags orders findings as a stable sort by file, line, column and rule
// does, moving each once.
func TestSortDiagsStable(t *testing.T) {
	var in []finding.Diagnostic
	for i := range 500 {
		in = append(in, finding.Diagnostic{File: []string{"b", "a", "c"}[i%3], Line: i % 7, Col: i % 2, Rule: []string{"y", "x"}[i%5%2], Message: fmt.Sprint(i)})
	}
	want := slices.Clone(in)
	sort.SliceStable(want, func(i, j int) bool {
		a, b := want[i], want[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Rule < b.Rule
	})
	got := slices.Clone(in)
	sortDiags(got)
	for i := range want {
		if got[i].Message != want[i].Message {
			t.Fatalf("at %d: finding %s, want %s", i, got[i].Message, want[i].Message)
		}
	}
}
