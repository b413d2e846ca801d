package rules

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/rules/engine"
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

// The figures README states about the rules and the directive table are
// the registry's and the table's: the security rules counted by category,
// the gixy family's other checks, the nginx versions the table knows.
func TestREADMEFigures(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	security := 0
	for _, r := range All {
		if r.Category == engine.CategorySecurity {
			security++
		}
	}
	want := fmt.Sprintf("(%d rules of the security category, and %d more checks of the gixy family", security, len(securityRules)-security)
	if !strings.Contains(readme, want) {
		t.Errorf("README does not say %q", want)
	}
	v := knowledge.CoreVersions()
	list := strings.Join(v[:len(v)-1], ", ") + " and " + v[len(v)-1]
	if want := "nginx's own source (" + list + ")"; !strings.Contains(readme, want) {
		t.Errorf("README does not say %q", want)
	}
}
