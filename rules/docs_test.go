package rules

import (
	"os"
	"testing"
)

// docs/rules.md is generated from All; regenerate with make docs.
func TestRulesDocUpToDate(t *testing.T) {
	got, err := os.ReadFile("../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != DocsMarkdown() {
		t.Fatal("docs/rules.md is stale: run make docs")
	}
}
