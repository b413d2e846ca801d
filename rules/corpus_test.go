package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Every corpus file lints without a panic; the findings per rule are logged
// (go test ./rules -run Corpus -v) for review by hand.
func TestCorpusLints(t *testing.T) {
	dir := "../../shared/corpus"
	nginxtest.RequireCorpus(t, dir)
	perRule := map[string]int{}
	samples := map[string][]string{}
	files := 0
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".tsv") || strings.HasSuffix(p, ".md") {
			return err
		}
		tr, err := loader.Load(p, loader.Options{})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		files++
		for _, d := range Run(tr, engine.Config{}) {
			perRule[d.Rule]++
			if len(samples[d.Rule]) < 3 {
				rel, _ := filepath.Rel(dir, d.File)
				samples[d.Rule] = append(samples[d.Rule], rel+":"+strconv.Itoa(d.Line)+": "+d.Message)
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

// TestCorpusLanguageAgreement compares the language rules, linting for
// 1.22.1, with what Debian's nginx 1.22.1 said of every corpus file
// (nginx-t-verdicts.tsv; fragments were tested wrapped in the context its
// "wrap" column names, which is declared here the same way). On files nginx
// rejects for a language reason, the agreement per class is logged; on files
// nginx accepts, no language rule may report an error.
func TestCorpusLanguageAgreement(t *testing.T) {
	dir := "../../shared/corpus"
	verdicts := nginxtest.CorpusVerdicts(t, dir)
	classes := []struct{ rule, re string }{
		{"unknown-directive", `unknown directive`},
		{"directive-context", `is not allowed here`},
		{"directive-args", `invalid number of arguments|has no opening|must be "on" or "off"`},
		{"directive-duplicate", `is duplicate`},
	}
	wraps := map[string]string{"http": "main,http", "server": "main,http,server", "location": "main,http,server,location"}
	lineRe := regexp.MustCompile(`:(\d+)"?$`)
	cfg := engine.Config{Version: knowledge.MustVersion("1.22.1"), Disabled: map[string]bool{}}
	for _, r := range All {
		if !langRuleIDs[r.ID] || r.ID == "syntax" {
			cfg.Disabled[r.ID] = true
		}
	}
	tmp := t.TempDir()
	agree, miss := map[string]int{}, map[string][]string{}
	var falseErrors []string
	for _, v := range verdicts {
		path, ok, wrap, msg := v.Path, v.OK, v.Wrap, v.Error
		class := ""
		for _, c := range classes {
			if regexp.MustCompile(c.re).MatchString(msg) {
				class = c.rule
				break
			}
		}
		if !ok && class == "" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			continue
		}
		if ctx := wraps[wrap]; ctx != "" {
			src = append(src, []byte("\n# nginxtune: context="+ctx+"\n")...)
		}
		p := filepath.Join(tmp, strings.ReplaceAll(path, "/", "_"))
		os.WriteFile(p, src, 0o644)
		tr, err := loader.Load(p, loader.Options{})
		if err != nil {
			continue
		}
		diags := Run(tr, cfg)
		if ok {
			for _, d := range diags {
				if d.Severity == finding.Error && d.Rule != "syntax" && d.File == tr.Roots[0].Path {
					falseErrors = append(falseErrors, path+":"+strconv.Itoa(d.Line)+": "+d.Message)
				}
			}
			continue
		}
		m := lineRe.FindStringSubmatch(strings.TrimSpace(msg))
		want := 0
		if m != nil {
			want, _ = strconv.Atoi(m[1])
		}
		hit := false
		for _, d := range diags {
			if d.Rule == class && d.Line <= want && want <= max(d.EndLine, d.Line) {
				hit = true
			}
		}
		if hit {
			agree[class]++
		} else {
			miss[class] = append(miss[class], path+": "+msg)
		}
	}
	for _, c := range classes {
		t.Logf("%-20s agree %d, miss %d", c.rule, agree[c.rule], len(miss[c.rule]))
		for _, m := range miss[c.rule] {
			t.Logf("    %s", m)
		}
	}
	for _, e := range falseErrors {
		t.Errorf("nginx accepts, nginxtune reports an error: %s", e)
	}
	if agree["unknown-directive"] < 200 {
		t.Errorf("unknown-directive agrees on %d files only", agree["unknown-directive"])
	}
}
