package engine

import (
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
