package main

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules"
)

// lintChanged lints the configuration trees that include the changed files
// (so includes and inheritance are right) and keeps the findings in those
// files. A changed file that no root includes is linted on its own, in the
// context its directives (or a "# nginxtune: context=" comment) give it.
func lintChanged(files []string, s *lintSettings) ([]rules.Diagnostic, bool, []*parser.Tree, error) {
	changed := map[string]bool{}
	var order []string
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, false, nil, failf(ExitError, "%v", err)
		}
		if st, err := os.Stat(abs); err != nil || st.IsDir() {
			return nil, false, nil, failf(ExitError, "%s: not a file (--changed takes the changed files)", f)
		}
		if !changed[abs] {
			changed[abs] = true
			order = append(order, abs)
		}
	}
	roots := s.roots
	if len(roots) == 0 {
		seen := map[string]bool{}
		for _, f := range order {
			if r := nearestRoot(f); r != "" && !seen[r] {
				seen[r] = true
				roots = append(roots, r)
			}
		}
		sort.Strings(roots)
	}
	var diags []rules.Diagnostic
	var trees []*parser.Tree
	broken := false
	covered := map[string]bool{}
	keep := func(t *parser.Tree, only map[string]bool) {
		for _, f := range t.Files {
			if only[f.Path] && f.Broken {
				broken = true
			}
		}
		for _, d := range rules.Run(t, s.cfg) {
			if only[d.File] {
				diags = append(diags, d)
			}
		}
		trees = append(trees, t)
	}
	for _, r := range roots {
		t, err := parser.Load(r, s.opt)
		if err != nil {
			return nil, false, nil, failf(ExitError, "%v", err)
		}
		hits := map[string]bool{}
		for _, f := range t.Files {
			if changed[f.Path] && !covered[f.Path] {
				hits[f.Path], covered[f.Path] = true, true
			}
		}
		if len(hits) > 0 {
			keep(t, hits)
		}
	}
	for _, f := range order {
		if covered[f] {
			continue
		}
		t, err := parser.Load(f, s.opt)
		if err != nil {
			return nil, false, nil, failf(ExitError, "%v", err)
		}
		keep(t, map[string]bool{f: true})
	}
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].File != diags[j].File {
			return diags[i].File < diags[j].File
		}
		return diags[i].Line < diags[j].Line
	})
	return diags, broken, trees, nil
}

// nearestRoot finds the nginx.conf in the file's directory or the closest
// one above it, not above the working directory (the repository root when
// pre-commit runs the hook).
func nearestRoot(file string) string {
	if filepath.Base(file) == "nginx.conf" {
		return file
	}
	stop, _ := os.Getwd()
	dir := filepath.Dir(file)
	for {
		p := filepath.Join(dir, "nginx.conf")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		if dir == stop || dir == filepath.Dir(dir) {
			return ""
		}
		if rel, err := filepath.Rel(stop, dir); err != nil || rel == "." || len(rel) >= 2 && rel[:2] == ".." {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}
