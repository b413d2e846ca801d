// Package docs holds nginxtune's documentation; its test checks that every
// document the code and the docs cite is in the repository.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var cited = regexp.MustCompile(`(?:\.\./shared/)?docs/[A-Za-z0-9_.-]+\.md`)

// Every docs/*.md file named in Go code, templates, scripts and Markdown
// exists in docs/, and nothing points outside the repository (the shared
// research notes are not shipped to users).
func TestCitedDocsExist(t *testing.T) {
	root := ".."
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata" && strings.Contains(p, "fixtures")) {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".tmpl", ".sh", ".yaml", ".yml":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range cited.FindAllString(string(b), -1) {
			n++
			if strings.HasPrefix(m, "../shared/") {
				t.Errorf("%s cites %s, which users of nginxtune do not have", p, m)
				continue
			}
			if _, err := os.Stat(filepath.Join(root, m)); err != nil {
				t.Errorf("%s cites %s, which does not exist", p, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d citations found: the walk is broken", n)
	}
}

var (
	citedTest   = regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)(?:/[^`]*)?`")
	definedTest = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)\(`)
)

// Every test, fuzz target and benchmark that README and docs/ name (in
// backticks, as they cite them) is defined in a _test.go file of the
// repository: a guarantee that cites a test that was renamed or removed
// is held by nothing. CHANGELOG.md is history and may name old tests.
func TestCitedTestsExist(t *testing.T) {
	root := ".."
	defined := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range definedTest.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	n := 0
	for _, p := range docs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range citedTest.FindAllStringSubmatch(string(b), -1) {
			n++
			if !defined[m[1]] {
				t.Errorf("%s cites %s, which no _test.go file defines", filepath.Base(p), m[1])
			}
		}
	}
	if len(defined) < 100 || n < 20 {
		t.Fatalf("%d tests defined, %d citations: the walk is broken", len(defined), n)
	}
}
