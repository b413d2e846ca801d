package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ruleFile is the file that holds a rule's value, its Doc and its check:
// the id with underscores (upstream-keepalive: upstream_keepalive.go).
func ruleFile(id string) string { return strings.ReplaceAll(id, "-", "_") + ".go" }

// declaredRules lists, by file, the ids of the rule values the package's
// files declare (var x = &Rule{Doc: Doc{ID: "..."}, ...}).
func declaredRules(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok || !isNamed(cl.Type, "Rule") {
				return true
			}
			out[name] = append(out[name], literalID(cl))
			return false
		})
	}
	return out
}

func isNamed(e ast.Expr, name string) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == name
	case *ast.SelectorExpr:
		return e.Sel.Name == name
	}
	return false
}

// literalID reads Doc: Doc{ID: "..."} from a rule's literal.
func literalID(cl *ast.CompositeLit) string {
	for _, el := range cl.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok || !isNamed(kv.Key, "Doc") {
			continue
		}
		doc, ok := kv.Value.(*ast.CompositeLit)
		if !ok {
			continue
		}
		for _, el := range doc.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok && isNamed(kv.Key, "ID") {
				if lit, ok := kv.Value.(*ast.BasicLit); ok {
					id, _ := strconv.Unquote(lit.Value)
					return id
				}
			}
		}
	}
	return ""
}

// A rule, its doc and its cases are found by its id in one place: every
// rule of All is declared alone in the file named after it, no file
// declares a rule All does not list, and every folder of fixtures/rules is
// a rule's or a tree fixture (a folder with an nginx.conf) of several
// rules. (TestRuleFixtureFolders holds each rule's folder to its fires and
// clean cases.)
func TestRuleFiles(t *testing.T) {
	declared := declaredRules(t)
	for _, r := range All {
		if got := declared[ruleFile(r.ID)]; !slices.Equal(got, []string{r.ID}) {
			t.Errorf("%s: %s declares %q; want the rule alone", r.ID, ruleFile(r.ID), got)
		}
	}
	n := 0
	for file, ids := range declared {
		for _, id := range ids {
			n++
			if ByID(id) == nil || file != ruleFile(id) {
				t.Errorf("%s declares rule %q: not in All, or not in %s", file, id, ruleFile(id))
			}
		}
	}
	if n != len(All) {
		t.Errorf("%d rule values declared, %d in All", n, len(All))
	}
	dirs, err := os.ReadDir(filepath.Join("..", "fixtures", "rules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range dirs {
		if !e.IsDir() || ByID(e.Name()) != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join("..", "fixtures", "rules", e.Name(), "nginx.conf")); err != nil {
			t.Errorf("fixtures/rules/%s is neither a rule's folder nor a tree fixture (no nginx.conf)", e.Name())
		}
	}
}
