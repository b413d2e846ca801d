package rules

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/internal/textdiff"
	"github.com/nginxtune/nginxtune/parser"
)

var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func TestRuleList(t *testing.T) {
	ids := map[string]bool{}
	for i, r := range All {
		if !kebab.MatchString(r.ID) {
			t.Errorf("rule id %q is not kebab-case", r.ID)
		}
		if ids[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		ids[r.ID] = true
		if i > 0 && All[i-1].ID >= r.ID {
			t.Errorf("All is not sorted at %s", r.ID)
		}
		if r.Title == "" || r.Why == "" || r.Fix == "" || r.Bad == "" || r.Good == "" || r.Since == "" || r.Versions == "" {
			t.Errorf("rule %s has an empty doc field", r.ID)
		}
	}
	for _, id := range []string{"syntax", "include-missing", "include-cycle", "unused-suppression",
		"upstream-keepalive", "proxy-keepalive-headers", "worker-fd-limit", "sendfile-off", "open-file-cache",
		"gzip-compressed-types", "gzip-comp-level", "ssl-session-cache", "ssl-directive-removed",
		"listen-http2-deprecated", "keepalive-disabled", "access-log-unbuffered", "worker-processes"} {
		if !ids[id] {
			t.Errorf("contract rule %s is missing", id)
		}
	}
}

// lintText lints one configuration written to nginx.conf in a fresh
// directory that also holds an empty conf.d/.
func lintText(t *testing.T, text string, cfg engine.Config) []finding.Diagnostic {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "conf.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := loader.Load(p, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host == nil {
		cfg.Host = host.Given(factsHeader(t, []byte(text)))
	}
	return Run(tr, cfg)
}

var factsRe = regexp.MustCompile(`(?m)^# nginxtune-facts:(.*)$`)

// factsHeader reads "# nginxtune-facts: cpus=4 nofile=1024:524288 ..." (see
// host.ParseSpec); nil when the text has none.
func factsHeader(t *testing.T, src []byte) *host.Facts {
	m := factsRe.FindSubmatch(src)
	if m == nil {
		return nil
	}
	f, err := host.ParseSpec(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func ruleIDs(ds []finding.Diagnostic) string {
	var ids []string
	for _, d := range ds {
		ids = append(ids, fmt.Sprintf("%s@%d", d.Rule, d.Line))
	}
	return strings.Join(ids, " ")
}

// Every rule's documented bad example triggers it and its good example does
// not (with the nginx version unknown, the widest reading).
func TestDocExamples(t *testing.T) {
	for _, r := range All {
		t.Run(r.ID, func(t *testing.T) {
			bad := lintText(t, r.Bad, engine.Config{})
			if !strings.Contains(" "+ruleIDs(bad), " "+r.ID+"@") {
				t.Errorf("bad example does not trigger %s; found: %s", r.ID, ruleIDs(bad))
			}
			good := lintText(t, r.Good, engine.Config{})
			if strings.Contains(" "+ruleIDs(good), " "+r.ID+"@") {
				t.Errorf("good example triggers %s: %s", r.ID, ruleIDs(good))
			}
		})
	}
}

// expectation is a "# want RULE [\"regexp\"]" comment.
type expectation struct {
	file string
	line int
	rule string
	re   *regexp.Regexp
	hit  bool
}

var wantRe = regexp.MustCompile(`^\s*want\s+(.*)$`)
var embeddedWantRe = regexp.MustCompile(`#\s*want\s+(.*)$`)
var wantTok = regexp.MustCompile(`([a-z0-9-]+)(?:\s+"((?:[^"\\]|\\.)*)")?`)

// expectations reads the "# want" comments of every file of the tree. A
// trailing comment expects a finding on its own line; a comment on a line of
// its own expects one on the line of the next statement.
func expectations(t *testing.T, tr *loader.Tree) []*expectation {
	var out []*expectation
	for _, f := range tr.Files {
		for _, c := range f.Comments {
			m := wantRe.FindStringSubmatch(c.Text)
			embedded := false
			if m == nil {
				// "# nginxtune:disable x  # want unused-suppression": the
				// expectation is for the comment's own line.
				if m = embeddedWantRe.FindStringSubmatch(c.Text); m == nil {
					continue
				}
				embedded = true
			}
			line := c.Line
			if !c.Trailing && !embedded {
				if d := nextDirective(f.Directives, c.Offset); d != nil {
					line = int(d.Line)
				}
			}
			for _, tok := range wantTok.FindAllStringSubmatch(m[1], -1) {
				e := &expectation{file: f.Path, line: line, rule: tok[1]}
				if tok[2] != "" {
					e.re = regexp.MustCompile(tok[2])
				}
				out = append(out, e)
			}
		}
	}
	return out
}

var headerRe = regexp.MustCompile(`(?m)^# nginxtune-test:(.*)$`)

// fixtureConfig reads "# nginxtune-test: nginx-version=1.22.1 disable=a,b"
// from the main file.
func fixtureConfig(t *testing.T, src []byte) engine.Config {
	cfg := engine.Config{Disabled: map[string]bool{}, Host: host.Given(factsHeader(t, src))}
	for _, m := range headerRe.FindAllSubmatch(src, -1) {
		for _, kv := range strings.Fields(string(m[1])) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "nginx-version":
				ver, err := knowledge.ParseVersion(v)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Version = ver
			case "nginx-valid":
				// checked by CheckFixture with a real nginx -t
			case "disable":
				for _, id := range strings.Split(v, ",") {
					cfg.Disabled[id] = true
				}
			case "only":
				// these rules and the ones reporting what reading found
				on := map[string]bool{}
				for _, id := range strings.Split(v, ",") {
					on[id] = true
				}
				for _, r := range All {
					if !on[r.ID] && !LoaderRule(r.ID) {
						cfg.Disabled[r.ID] = true
					}
				}
			case "nginx-line":
				// the line nginx -t names, checked by TestDirectiveFixturesAgainstNginx
			default:
				t.Fatalf("unknown fixture setting %q", k)
			}
		}
	}
	return cfg
}

// CheckFixture lints path (a file, or a directory with nginx.conf) and
// compares the findings with its "# want" comments: every finding must be
// expected and every expectation met.
func CheckFixture(t *testing.T, path string) {
	t.Helper()
	tr, err := loader.Load(path, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := fixtureConfig(t, tr.Roots[0].Src)
	if scope := ruleScope(t, path, tr); scope != nil {
		for _, r := range All {
			if !scope[r.ID] && !LoaderRule(r.ID) {
				cfg.Disabled[r.ID] = true
			}
		}
	}
	if regexp.MustCompile(`(?m)^# nginxtune-test:.*\bnginx-valid\b`).Match(tr.Roots[0].Src) && !testing.Short() {
		if res := nginxtest.CheckTree(t, path); !res.OK {
			t.Errorf("fixture is marked nginx-valid, but nginx -t says: %s", res.Output)
		}
	}
	diags := Run(tr, cfg)
	checkFixed(t, path, cfg, regexp.MustCompile(`(?m)^# nginxtune-test:.*\bnginx-valid\b`).Match(tr.Roots[0].Src))
	exps := expectations(t, tr)
	for _, d := range diags {
		matched := false
		for _, e := range exps {
			if e.file == d.File && e.line == d.Line && e.rule == d.Rule && (e.re == nil || e.re.MatchString(d.Message)) && !e.hit {
				e.hit, matched = true, true
				break
			}
		}
		if !matched {
			t.Errorf("%s:%d: unexpected %s: %s", rel(d.File), d.Line, d.Rule, d.Message)
		}
	}
	for _, e := range exps {
		if !e.hit {
			re := ""
			if e.re != nil {
				re = fmt.Sprintf(" matching %q", e.re)
			}
			t.Errorf("%s:%d: expected %s%s, got none", rel(e.file), e.line, e.rule, re)
		}
	}
}

func rel(p string) string {
	wd, _ := os.Getwd()
	if r, err := filepath.Rel(wd, p); err == nil {
		return r
	}
	return p
}

var suppressionRe = regexp.MustCompile(`nginxtune:disable(?:-file)?\s+([a-z0-9,-]+)`)

// ruleScope is the set of rules a fixture under fixtures/rules runs: the
// rule its directory is named after (fixtures/rules/<rule-id>/...), the
// rules its "# want" comments and suppressions name, and the loader rules.
// A new rule thus never breaks a fixture written for another. A header
// with "only=" or "all-rules" decides instead; fixtures elsewhere
// (mission, host, directives) run every rule.
func ruleScope(t *testing.T, path string, tr *loader.Tree) map[string]bool {
	slashed := filepath.ToSlash(path)
	if !strings.Contains(slashed, "fixtures/rules/") || regexp.MustCompile(`(?m)^# nginxtune-test:.*\b(only=|all-rules\b)`).Match(tr.Roots[0].Src) {
		return nil
	}
	scope := map[string]bool{}
	rest := slashed[strings.Index(slashed, "fixtures/rules/")+len("fixtures/rules/"):]
	if dir, _, ok := strings.Cut(rest, "/"); ok && ByID(dir) != nil {
		scope[dir] = true
	}
	for _, e := range expectations(t, tr) {
		scope[e.rule] = true
	}
	for _, f := range tr.Files {
		for _, c := range f.Comments {
			for _, m := range suppressionRe.FindAllStringSubmatch(c.Text, -1) {
				for _, id := range strings.Split(m[1], ",") {
					scope[id] = true
				}
			}
		}
	}
	return scope
}

// fixturePaths lists the fixtures: files and nginx.conf directories of the
// fixture folders, and those of the per-rule folders fixtures/rules/<id>/.
func fixturePaths(t *testing.T) []string {
	var paths []string
	var add func(dir string, depth int)
	add = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case !e.IsDir() && strings.HasSuffix(e.Name(), ".conf"):
				paths = append(paths, p)
			case e.IsDir() && depth == 0 && ByID(e.Name()) != nil:
				add(p, 1)
			case e.IsDir():
				if _, err := os.Stat(filepath.Join(p, "nginx.conf")); err == nil {
					paths = append(paths, p)
				}
			}
		}
	}
	for _, dir := range []string{"../fixtures/rules", "../fixtures/mission", "../fixtures/host", "../fixtures/directives"} {
		add(dir, 0)
	}
	sort.Strings(paths)
	return paths
}

// TestFixtures runs every fixture under fixtures/rules and fixtures/mission.
func TestFixtures(t *testing.T) {
	paths := fixturePaths(t)
	covered := map[string]bool{}
	ran := 0
	for _, p := range paths {
		name := strings.TrimPrefix(filepath.ToSlash(p), "../fixtures/")
		t.Run(name, func(t *testing.T) {
			ran++
			CheckFixture(t, p)
		})
		tr, _ := loader.Load(p, loader.Options{})
		for _, e := range expectations(t, tr) {
			covered[e.rule] = true
		}
	}
	if ran < len(paths) {
		return // a -run pattern chose some fixtures: coverage is judged on all of them
	}
	for _, r := range All {
		if !covered[r.ID] {
			t.Errorf("no fixture expects %s", r.ID)
		}
		// a rule whose Bad example carries a fix is fixable: some fixture's
		// .fixed golden must check what its fix writes
		for _, d := range lintText(t, r.Bad, engine.Config{Disabled: onlyRules(r.ID)}) {
			if d.Rule == r.ID && d.Fix != nil && !fixedRules[r.ID] {
				t.Errorf("%s is fixable, but no fixture's .fixed golden file checks its fix", r.ID)
				break
			}
		}
	}
}

// A file read only up to a syntax error gets the error and nothing else:
// what follows it was never read, so no rule judges the half-read file.
func TestNoRulesOnHalfReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "nginx.conf")
	os.WriteFile(p, []byte("events {}\nhttp {\n    server {\n        listen 80;\n        root /srv/www;\n    }\n    server {\n        return 200 \"unterminated;\n    }\n}\n"), 0o644)
	tr, err := loader.Load(p, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds := Run(tr, engine.Config{Version: knowledge.MustVersion("1.22.1")})
	if len(ds) != 1 || ds[0].Rule != "syntax" {
		t.Errorf("want the syntax error alone, got %v", ds)
	}
}

// Every message's first sentence (up to the first "; " or ". ") stays
// under 200 characters: where, what and why; the rest is in explain.
func TestMessageFirstSentence(t *testing.T) {
	var paths []string
	for _, dir := range []string{"../fixtures/rules", "../fixtures/mission", "../fixtures/host", "../fixtures/directives"} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	split := regexp.MustCompile(`; |\. `)
	n := 0
	for _, p := range paths {
		tr, err := loader.Load(p, loader.Options{})
		if err != nil || len(tr.Roots) == 0 {
			continue
		}
		cfg := fixtureConfig(t, tr.Roots[0].Src)
		for _, d := range Run(tr, cfg) {
			n++
			if first := split.Split(d.Message, 2)[0]; len(first) > 200 {
				t.Errorf("%s:%d [%s]: first sentence has %d characters: %s", filepath.Base(d.File), d.Line, d.Rule, len(first), first)
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d findings checked", n)
	}
}

var update = flag.Bool("update", false, "rewrite the .fixed golden files of the fixtures")

// fixedRules records, across fixtures, the rules whose fixes a .fixed
// golden file checks.
var fixedRules = map[string]bool{}

// checkFixed applies the fixtures' fixes as lint --fix does (passes until
// none is left) to a copy of the fixture's folder, and compares every file
// they change with the golden file beside the original, FILE.fixed
// (go test ./rules -update writes them). A fixture marked nginx-valid must
// stay valid for nginx -t after the fixes.
func checkFixed(t *testing.T, path string, cfg engine.Config, valid bool) {
	t.Helper()
	root, main := filepath.Dir(path), filepath.Base(path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		root, main = path, ""
	}
	tmp := t.TempDir()
	if main == "" {
		if err := os.CopyFS(tmp, os.DirFS(root)); err != nil {
			t.Fatal(err)
		}
	} else {
		// a file among many fixtures: the files its tree reads, not the
		// whole folder again for each fixture in it
		tr, err := loader.Load(path, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		realRoot, err := filepath.Abs(root)
		if err == nil {
			realRoot, err = filepath.EvalSymlinks(realRoot)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range tr.Files {
			rel, err := filepath.Rel(realRoot, f.Path)
			if err != nil || !filepath.IsLocal(rel) {
				continue
			}
			dst := filepath.Join(tmp, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, f.Src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	target := filepath.Join(tmp, main)
	mine := map[string]bool{} // the files of this fixture's tree
	// the loop lint --fix runs (FixSession), writing plainly to the copy
	linted := linterOf(target, cfg)
	lint := func() ([]finding.Diagnostic, bool, []*loader.Tree, error) {
		diags, broken, trees, err := linted()
		if err != nil {
			return nil, false, nil, err
		}
		for _, f := range trees[0].Files {
			mine[f.Path] = true
		}
		for _, d := range diags {
			if d.Fix != nil {
				fixedRules[d.Rule] = true
			}
		}
		return diags, broken, trees, nil
	}
	session := FixSession{Lint: lint, Apply: applyPlainly}
	diags, broken, trees, err := lint()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.Run(diags, trees, broken); err != nil {
		t.Fatalf("fixing: %v", err)
	}
	changed := 0
	filepath.WalkDir(tmp, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !mine[p] {
			return err
		}
		r, _ := filepath.Rel(tmp, p)
		orig := filepath.Join(root, r)
		got, _ := os.ReadFile(p)
		before, _ := os.ReadFile(orig)
		golden := orig + ".fixed"
		want, gerr := os.ReadFile(golden)
		switch {
		case bytes.Equal(got, before) && gerr == nil:
			t.Errorf("%s exists, but no fix changes %s", rel(golden), rel(orig))
		case bytes.Equal(got, before):
		case *update:
			changed++
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
		case gerr != nil:
			t.Errorf("the fixes change %s; its golden %s is missing (go test ./rules -update writes it)", rel(orig), rel(golden))
		case !bytes.Equal(got, want):
			changed++
			t.Errorf("the fixes turn %s into something else than %s:\n%s", rel(orig), rel(golden), textdiff.Unified(rel(golden), "fixed", string(want), string(got)))
		default:
			changed++
		}
		return nil
	})
	if changed > 0 && valid {
		if res := nginxtest.CheckTree(t, target); !res.OK {
			t.Errorf("the fixed fixture fails nginx -t: %s", res.Output)
		}
	}
}

// applyPlainly writes one round's edits to the files on disk, as lint
// --fix does without its care for links, owners and failures.
func applyPlainly(set engine.FixSet, _ []*loader.Tree) ([]string, error) {
	var written []string
	for name, edits := range set.Edits {
		src, err := os.ReadFile(name)
		if err != nil {
			return written, err
		}
		out, err := engine.ApplyEdits(src, edits)
		if err != nil {
			return written, fmt.Errorf("%s: %v", name, err)
		}
		if err := os.WriteFile(name, out, 0o644); err != nil {
			return written, err
		}
		written = append(written, name)
	}
	return written, nil
}

// A user's comment that happens to start with "want" is a reason like any
// other; only "want" followed by rule ids is fixture syntax.
func TestWantCommentIsAReason(t *testing.T) {
	for _, c := range []struct {
		comment string
		want    finding.Severity
	}{
		{"# want it off: the disk is ZFS", finding.Info},
		{"# VirtualBox shared folder", finding.Info},
		{"# want sendfile-off", finding.Warning},
		{`# want sendfile-off "copied"`, finding.Warning},
	} {
		src := "events {}\nhttp {\n    sendfile off; " + c.comment + "\n    server { listen 80; root /srv; }\n}\n"
		var got []finding.Diagnostic
		for _, d := range lintText(t, src, engine.Config{}) {
			if d.Rule == "sendfile-off" {
				got = append(got, d)
			}
		}
		if len(got) != 1 || got[0].Severity != c.want {
			t.Errorf("%s: %+v, want one %s", c.comment, got, c.want)
		}
	}
}

func TestEveryRuleHasACategory(t *testing.T) {
	for _, r := range All {
		found := false
		for _, c := range engine.Categories {
			found = found || r.Category == c
		}
		if !found {
			t.Errorf("%s: category %q", r.ID, r.Category)
		}
	}
	ids, err := Select([]string{"category:input"})
	if err != nil || strings.Join(ids, ",") != "include-cycle,include-missing,include-outside-tree,syntax,unused-suppression" {
		t.Errorf("category:input: %v %v", ids, err)
	}
	if _, err := Select([]string{"category:speed"}); err == nil {
		t.Error("an unknown category was accepted")
	}
}

// nextDirective returns the first statement that starts after off.
func nextDirective(dirs []*parser.Directive, off int) *parser.Directive {
	for _, d := range dirs {
		if int(d.Start) > off {
			return d
		}
		if d.Block != nil && int(d.End) > off {
			if n := nextDirective(d.Block, off); n != nil {
				return n
			}
		}
	}
	return nil
}
