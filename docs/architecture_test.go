package docs

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/nginxtune/nginxtune"

// pkg is what go list says of one of nginxtune's packages: its own
// imports (tests left out) and everything it depends on.
type pkg struct {
	imports, deps []string
}

// listPackages runs go list over the module: the import graph the
// architecture test holds against docs/architecture.md.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports ","}}|{{join .Deps ","}}`, module+"/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list: %q", line)
		}
		pkgs[short(f[0])] = pkg{imports: split(f[1]), deps: split(f[2])}
	}
	return pkgs
}

// short names a package as the architecture document does: its path in
// the module ("." for the module's root package), or the path of a package
// from elsewhere.
func short(p string) string {
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p != "" {
			out = append(out, short(p))
		}
	}
	return out
}

var (
	layerRow  = regexp.MustCompile("^\\| (\\d+) \\| `([^`]+)` \\|")
	withinRow = regexp.MustCompile("^- `([^`]+)` → `([^`]+)`")
)

// readArchitecture reads the package table (layer, package) and the
// imports allowed within a layer from docs/architecture.md.
func readArchitecture(t *testing.T) (map[string]int, map[[2]string]bool) {
	t.Helper()
	f, err := os.Open("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	layers := map[string]int{}
	within := map[[2]string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := layerRow.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[1])
			if _, dup := layers[m[2]]; dup {
				t.Errorf("architecture.md lists %s twice", m[2])
			}
			layers[m[2]] = n
		}
		if m := withinRow.FindStringSubmatch(sc.Text()); m != nil {
			within[[2]string{m[1], m[2]}] = true
		}
	}
	if len(layers) < 10 {
		t.Fatalf("architecture.md: only %d packages read from its table", len(layers))
	}
	return layers, within
}

// TestArchitecture holds the code to docs/architecture.md: every package
// is in its table and every row is a package; a package imports only
// packages of lower layers, or of its own layer where the document names
// the pair.
func TestArchitecture(t *testing.T) {
	pkgs := listPackages(t)
	layers, within := readArchitecture(t)
	for p := range pkgs {
		if _, ok := layers[p]; !ok {
			t.Errorf("package %s is not in docs/architecture.md's table", p)
		}
	}
	for p := range layers {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is not a package", p)
		}
	}
	for p, info := range pkgs {
		for _, imp := range info.imports {
			if _, ours := pkgs[imp]; !ours {
				continue // the standard library's or another module's
			}
			lp, li := layers[p], layers[imp]
			if li < lp || li == lp && within[[2]string{p, imp}] {
				continue
			}
			t.Errorf("%s (layer %d) imports %s (layer %d): imports go to lower layers, or to a pair docs/architecture.md names within one", p, lp, imp, li)
		}
	}
	for pair := range within {
		if !slices.Contains(pkgs[pair[0]].imports, pair[1]) {
			t.Errorf("docs/architecture.md allows %s → %s, which is not an import", pair[0], pair[1])
		}
	}
}

// TestArchitectureRules: the rules docs/architecture.md states in words,
// over everything each package depends on (go list's Deps), so that no
// path around them through a third package is left open.
func TestArchitectureRules(t *testing.T) {
	pkgs := listPackages(t)
	never := func(who func(string) bool, what []string, why string) {
		t.Helper()
		n := 0
		for p, info := range pkgs {
			if !who(p) {
				continue
			}
			n++
			for _, d := range info.deps {
				if _, ours := pkgs[d]; !ours && !strings.Contains(d, ".") {
					continue // the standard library's
				}
				for _, w := range what {
					if d == w || strings.HasPrefix(d, w+"/") {
						t.Errorf("%s depends on %s: %s", p, d, why)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("no package is concerned by %q: the rule names none that exists", why)
		}
	}
	is := func(names ...string) func(string) bool {
		return func(p string) bool { return slices.Contains(names, p) }
	}
	never(func(p string) bool { return !strings.HasPrefix(p, "cmd/") && !strings.HasPrefix(p, "internal/cmd/") },
		[]string{"github.com/spf13/cobra", "github.com/spf13/pflag"},
		"only the commands parse flags; the packages below them take options")
	never(is("finding", "knowledge", "parser", "loader", "host", "internal/untrusted"),
		[]string{"lint", "rules", "route", "report", "lsp", "format", "templates", "diff"},
		"the layers that read nginx and the host know nothing of what is done with them")
	never(is("host"), []string{"parser", "loader"}, "host reads the machine, not configurations")
	never(is("lsp"), []string{"report", "cmd"}, "the editor speaks its own protocol; it shares the library, not the printers")
	never(func(p string) bool {
		return !strings.HasPrefix(p, "internal/testkit/") && !strings.HasPrefix(p, "internal/cmd/")
	},
		[]string{"internal/testkit"}, "test kits are for tests and development commands")
}

// TestPageRunsNothing: the browser page's WebAssembly, built as make web
// builds it, links nothing that runs a program or writes a file (nginx -t,
// the all-or-nothing writer, lint's --fix, gen's writing): the page reads
// what it is given and answers.
func TestPageRunsNothing(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-deps", "./cmd/nginxtune-wasm")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/playground") {
		t.Fatalf("the page's build does not link playground: %v", deps)
	}
	for _, d := range deps {
		for _, no := range []string{"internal/nginxcheck", "internal/atomicfile", "lint", "generate", "os/exec"} {
			if short(d) == no {
				t.Errorf("the page links %s", d)
			}
		}
	}
}
