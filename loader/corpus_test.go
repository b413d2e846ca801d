package loader

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/parser"
)

// corpusDir is the shared corpus of real-world configurations, next to the
// project checkout. Tests that use it skip when it is absent.
const corpusDir = "../../shared/corpus"

type verdict struct {
	path, wrap, err string
	ok              bool
}

func readVerdicts(t testing.TB) []verdict {
	nginxtest.RequireCorpus(t, filepath.Join(corpusDir, "nginx-t-verdicts.tsv"))
	f, err := os.Open(filepath.Join(corpusDir, "nginx-t-verdicts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []verdict
	for _, row := range rows[1:] {
		out = append(out, verdict{path: row[0], ok: row[1] == "1", wrap: row[2], err: row[3]})
	}
	return out
}

// nginx messages that come from reading the text, as opposed to checking
// directives, modules, files and addresses. ("unexpected ... in condition"
// comes from the rewrite module's reading of if conditions, a semantic check.)
var nginxSyntaxMsg = regexp.MustCompile(`unexpected "|unexpected end of|too long parameter|is not terminated by|has no opening`)
var nginxLineRe = regexp.MustCompile(`:(\d+)"?$`)

// loadBounded loads one file, failing the test on a hang.
func loadBounded(t *testing.T, p string) *Tree {
	done := make(chan *Tree, 1)
	go func() {
		tr, err := Load(p, Options{})
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
		done <- tr
	}()
	select {
	case tr := <-done:
		return tr
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s: Load did not finish in 2 minutes (a hang: one file loads in milliseconds)", p)
	}
	return nil
}

// firstSyntax returns the first syntax error in the named file itself (not in
// files it includes).
func firstSyntax(tr *Tree, abs string) *finding.Diagnostic {
	for i, d := range tr.Diagnostics {
		if d.Rule == parser.Syntax && d.Severity == finding.Error && d.File == abs {
			return &tr.Diagnostics[i]
		}
	}
	return nil
}

// TestCorpusAgreesWithNginx compares the parser's verdict on every corpus
// file with what nginx -t said of it (nginx-t-verdicts.tsv).
func TestCorpusAgreesWithNginx(t *testing.T) {
	vs := readVerdicts(t)
	var agree, disagree, beyondSyntax, silentGlue int
	reasons := map[string][]string{}
	for _, v := range vs {
		p := filepath.Join(corpusDir, v.path)
		abs, _ := filepath.Abs(p)
		tr := loadBounded(t, p)
		if tr == nil {
			continue
		}
		ours := firstSyntax(tr, abs)
		switch {
		case v.ok && ours == nil:
			agree++
		case v.ok && v.wrap == "events" && strings.HasPrefix(ours.Message, "no \"events\" block"):
			// nginx accepted the file only once the verdict's harness added
			// the events block it lacks: nginx -t of the file alone fails
			agree++
		case v.ok && strings.HasPrefix(ours.Message, "missing \";\""):
			// nginx accepted the file, but only by reading two lines as one
			// directive: we say so on purpose.
			silentGlue++
			reasons["nginx accepts; nginxtune reports a glued statement"] = append(reasons["nginx accepts; nginxtune reports a glued statement"], v.path+":"+strconv.Itoa(ours.Line)+": "+ours.Message)
		case v.ok:
			disagree++
			reasons["nginx accepts; nginxtune reports a syntax error"] = append(reasons["nginx accepts; nginxtune reports a syntax error"], v.path+":"+strconv.Itoa(ours.Line)+": "+ours.Message)
		case nginxSyntaxMsg.MatchString(v.err) && !strings.Contains(v.err, "in condition"):
			m := nginxLineRe.FindStringSubmatch(v.err)
			want, _ := strconv.Atoi(m[1])
			got := 0
			if ours != nil {
				got = ours.Line
				if ours.EndLine != 0 {
					got = ours.EndLine
				}
			}
			if got == want {
				agree++
			} else {
				disagree++
				reasons["nginx syntax error not matched"] = append(reasons["nginx syntax error not matched"], v.path+": nginx "+v.err+"; ours line "+strconv.Itoa(got))
			}
		default:
			// nginx rejected the file for what it means (unknown directive,
			// bad port, missing module), not for how it is written.
			beyondSyntax++
			if ours != nil {
				reasons["nginx rejects beyond syntax; nginxtune reports syntax too"] = append(reasons["nginx rejects beyond syntax; nginxtune reports syntax too"], v.path+": "+ours.Message)
			}
		}
	}
	t.Logf("corpus: %d files; agree %d; nginx rejects for reasons beyond syntax %d; nginx accepts but a statement is glued %d; disagree %d",
		len(vs), agree, beyondSyntax, silentGlue, disagree)
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: %d", k, len(reasons[k]))
		for _, r := range reasons[k] {
			t.Logf("  %s", r)
		}
	}
	if disagree > 0 {
		t.Errorf("%d files disagree with nginx -t", disagree)
	}
}

// Every file under the corpus, listed in the verdicts or not, loads without
// a panic or a hang.
func TestCorpusEveryFileLoads(t *testing.T) {
	nginxtest.RequireCorpus(t, corpusDir)
	n := 0
	err := filepath.WalkDir(corpusDir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".tsv") || strings.HasSuffix(p, ".md") {
			return err
		}
		n++
		loadBounded(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d corpus files", n)
}
