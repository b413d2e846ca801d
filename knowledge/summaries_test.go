package knowledge_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// TestSummariesNameKnownThings: every line of summaries.tsv is about a
// directive of the table or a variable nginx defines, is one sentence-like
// line of reasonable length, and the table is sorted with no name twice.
func TestSummariesNameKnownThings(t *testing.T) {
	b, err := os.ReadFile("summaries.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	seen := map[string]bool{}
	for i, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		name, text, ok := strings.Cut(l, "\t")
		if !ok || text == "" || strings.Contains(text, "\t") {
			t.Errorf("summaries.tsv:%d: want NAME<TAB>summary", i+1)
			continue
		}
		if seen[name] {
			t.Errorf("summaries.tsv:%d: %s twice", i+1, name)
		}
		seen[name] = true
		names = append(names, name)
		if v, ok := strings.CutPrefix(name, "$"); ok {
			if !knowledge.VariableKnown(v, false) && !knowledge.VariableKnown(v, true) {
				t.Errorf("summaries.tsv:%d: $%s is no variable nginx defines", i+1, v)
			}
		} else if !knowledge.Has(name) {
			t.Errorf("summaries.tsv:%d: %s is no directive of the table", i+1, name)
		}
		if len(text) > 200 || !strings.HasSuffix(text, ".") {
			t.Errorf("summaries.tsv:%d: %s: one line of at most 200 characters ending in a full stop, got %d: %q", i+1, name, len(text), text)
		}
	}
	var dirs, vars []string
	for _, n := range names {
		if strings.HasPrefix(n, "$") {
			vars = append(vars, n)
		} else if len(vars) > 0 {
			t.Errorf("summaries.tsv: %s after the variables: directives first", n)
		} else {
			dirs = append(dirs, n)
		}
	}
	if !sort.StringsAreSorted(dirs) || !sort.StringsAreSorted(vars) {
		t.Error("summaries.tsv: directives sorted, then variables sorted")
	}
}

func TestVariableSummary(t *testing.T) {
	for name, want := range map[string]string{
		"request_uri":     "The original URI",
		"http_user_agent": "The User-Agent request header",
		"http_x_api_key":  "The request header NAME",
		"arg_page":        "The value of the query argument",
		"cookie_session":  "The value of the cookie",
	} {
		if got := knowledge.VariableSummary(name); !strings.HasPrefix(got, want) {
			t.Errorf("VariableSummary(%q) = %q, want it to begin %q", name, got, want)
		}
	}
	for _, name := range []string{"no_such_variable", ""} {
		if got := knowledge.VariableSummary(name); got != "" {
			t.Errorf("VariableSummary(%q) = %q, want none", name, got)
		}
	}
	if got := knowledge.Summary("proxy_pass"); !strings.Contains(got, "proxied server") {
		t.Errorf("Summary(proxy_pass) = %q", got)
	}
}

// TestSummariesCoverTheCorpus: the 200 directives used most often in the
// corpus of real configurations each have a summary.
func TestSummariesCoverTheCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "corpus")
	nginxtest.RequireCorpus(t, dir)
	count := map[string]int{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".tsv") || strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, _ := parser.Parse(p, b)
		if f == nil {
			return nil
		}
		var walk func(ds []*parser.Directive)
		walk = func(ds []*parser.Directive) {
			for _, d := range ds {
				if knowledge.Has(d.Name) {
					count[d.Name]++
				}
				if !parser.IsDataBlock(d.Name) {
					walk(d.Block)
				}
			}
		}
		walk(f.Directives)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) < 200 {
		t.Fatalf("only %d directives counted in the corpus", len(names))
	}
	for _, n := range names[:200] {
		if knowledge.Summary(n) == "" {
			t.Errorf("%s (%d uses in the corpus) has no summary", n, count[n])
		}
	}
}
