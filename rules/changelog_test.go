package rules

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/knowledge"
)

// CHANGELOG.md lists every rule under the version its Since names, no rule
// under another, and its newest entry is the version VERSION builds.
func TestChangelog(t *testing.T) {
	b, err := os.ReadFile("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	v, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	version := strings.TrimSpace(string(v))
	heading := regexp.MustCompile(`(?m)^## (\d+\.\d+\.\d+)`)
	sections := heading.FindAllStringSubmatchIndex(string(b), -1)
	if len(sections) == 0 || string(b)[sections[0][2]:sections[0][3]] != version {
		t.Fatalf("the newest CHANGELOG entry is not VERSION %s", version)
	}
	listed := map[string]string{} // rule -> version
	for i, sec := range sections {
		end := len(b)
		if i+1 < len(sections) {
			end = sections[i+1][0]
		}
		ver := string(b)[sec[2]:sec[3]]
		body := string(b)[sec[0]:end]
		_, rulesPart, ok := strings.Cut(body, "\nRules: ")
		if !ok {
			t.Errorf("%s: no \"Rules:\" line", ver)
			continue
		}
		rulesPart, _, _ = strings.Cut(rulesPart, "\n\n")
		rulesPart = strings.TrimSuffix(strings.TrimSpace(strings.ReplaceAll(rulesPart, "\n", " ")), ".")
		if rulesPart == "none added" {
			continue
		}
		for _, id := range strings.Split(rulesPart, ",") {
			id = strings.TrimSpace(id)
			if ByID(id) == nil {
				t.Errorf("%s lists %q, which is not a rule", ver, id)
			}
			listed[id] = ver
		}
	}
	for _, r := range All {
		if listed[r.ID] != r.Since {
			t.Errorf("%s: Since %s, CHANGELOG lists it under %q", r.ID, r.Since, listed[r.ID])
		}
		if knowledge.MustVersion(version).Less(knowledge.MustVersion(r.Since)) {
			t.Errorf("%s: Since %s is after VERSION %s", r.ID, r.Since, version)
		}
	}
}
