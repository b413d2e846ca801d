package rules

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/parser"
)

// Every corpus file lints without a panic; the findings per rule are logged
// (go test ./rules -run Corpus -v) for review by hand.
func TestCorpusLints(t *testing.T) {
	dir := "../../shared/corpus"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("corpus not available")
	}
	perRule := map[string]int{}
	samples := map[string][]string{}
	files := 0
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".tsv") || strings.HasSuffix(p, ".md") {
			return err
		}
		tr, err := parser.Load(p, parser.Options{})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		files++
		for _, d := range Run(tr, Config{}) {
			perRule[d.Rule]++
			if len(samples[d.Rule]) < 3 {
				rel, _ := filepath.Rel(dir, d.File)
				samples[d.Rule] = append(samples[d.Rule], rel+":"+itoa(d.Line)+": "+d.Message)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(perRule))
	for id := range perRule {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	t.Logf("linted %d corpus files", files)
	for _, id := range ids {
		t.Logf("%-24s %5d", id, perRule[id])
		for _, s := range samples[id] {
			t.Logf("    %s", s)
		}
	}
}

func itoa(n int) string {
	s := ""
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
