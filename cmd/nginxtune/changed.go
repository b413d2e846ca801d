package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"path/filepath"
	"sort"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/report"

	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules"
)

// lintChanged lints the configuration trees that include the changed files
// (so includes and inheritance are right) and keeps the findings in those
// files. A changed file that no root includes is linted on its own, in the
// context its directives (or a "# nginxtune: context=" comment) give it.
func lintChanged(files []string, s *lintSettings) ([]finding.Diagnostic, bool, []*parser.Tree, error) {
	wd := getWorkDir()
	changed := map[string]bool{}
	var order []string
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, false, nil, failf(ExitError, "%v", err)
		}
		// a changed file is a file of the repository (the working directory,
		// where pre-commit runs the hook), and so is what a changed link
		// names; the live tree is the live tree's
		real, rerr := filepath.EvalSymlinks(abs)
		if rerr != nil {
			real = abs
		}
		if !wd.contains(abs) && !(isLive(abs) && isLive(real)) {
			return nil, false, nil, failf(ExitError, "%s: outside the repository (the working directory); --changed lints the repository's files only", report.Escape(f))
		}
		if fi, err := os.Lstat(abs); err != nil || fi.IsDir() {
			return nil, false, nil, failf(ExitError, "%s: not a file (--changed takes the changed files)", report.Escape(f))
		}
		// findings are filed at real paths: a changed link or a changed
		// target of one (sites-enabled/x -> ../sites-available/x) is one
		// file. A link naming a path outside the repository (a copy's
		// sites-enabled/x -> /etc/nginx/sites-available/x) stays as named:
		// the tree that includes it reads the copy's file through it, and
		// this machine's file is never read.
		if wd.contains(real) || isLive(abs) {
			abs = real
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
			if r := wd.nearestRoot(f); r != "" && !seen[r] {
				seen[r] = true
				roots = append(roots, r)
			}
		}
		sort.Strings(roots)
	}
	var diags []finding.Diagnostic
	var trees []*parser.Tree
	broken := false
	covered := map[string]bool{}
	seenErr := map[string]bool{}
	keep := func(t *parser.Tree, only map[string]bool) {
		for _, f := range t.Files {
			if f.Broken {
				broken = true
			}
		}
		broken = broken || len(t.Unreadable) > 0
		s.needVersion()
		cfg := s.cfg
		cfg.Only = only // what is kept below: rules skip reading host facts for the rest
		found, notShown := rules.RunCounted(t, cfg)
		s.notShown += notShown
		for _, d := range found {
			// errors anywhere in the tree fail the run: a change can break
			// a file it includes or is included by
			if only[d.File] || d.Severity == finding.Error && !seenErr[d.File+"\x00"+d.Message] {
				if !only[d.File] {
					seenErr[d.File+"\x00"+d.Message] = true
				}
				diags = append(diags, d)
			}
		}
		trees = append(trees, t)
	}
	for _, r := range roots {
		t, err := s.load(r, s.opt)
		if err != nil {
			return nil, false, nil, failf(ExitError, "%v", err)
		}
		hits := map[string]bool{}
		for _, f := range t.Files {
			for _, p := range []string{f.Path, f.Via} {
				if p != "" && changed[p] && !covered[p] {
					hits[f.Path], covered[p] = true, true
				}
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
		t, err := s.load(f, s.opt)
		if errors.Is(err, parser.ErrRootOutside) {
			fmt.Fprintf(s.stderr, "nginxtune: skipped %s: a link to a file outside the repository, and no nginx.conf here includes it\n", report.Escape(relPath(f)))
			continue
		}
		if err != nil {
			return nil, false, nil, failf(ExitError, "%v", err)
		}
		if !looksLikeNginx(t, f) {
			fmt.Fprintf(s.stderr, "nginxtune: skipped %s: not an nginx configuration (no nginx directive before the first error, and nothing includes it)\n", report.Escape(relPath(f)))
			continue
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

// workDir is the working directory, the repository pre-commit runs the
// hook in: as the system names it, and with its links resolved. A run reads
// it once (getWorkDir), not once for each question asked of it.
type workDir struct {
	path, real string
	ok         bool // false: it could not be read
}

func getWorkDir() workDir {
	wd, err := os.Getwd()
	if err != nil {
		return workDir{}
	}
	w := workDir{path: wd, real: wd, ok: true}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		w.real = r
	}
	return w
}

// contains reports whether path lies in the working directory (links of the
// working directory itself resolved).
func (w workDir) contains(path string) bool {
	if !w.ok {
		return false
	}
	p := path
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(r, filepath.Base(p))
	}
	return boundedread.Within(p, w.real)
}

// nearestRoot finds the nginx.conf in the file's directory or the closest
// one above it, not above the working directory (the repository root when
// pre-commit runs the hook).
func (w workDir) nearestRoot(file string) string {
	stop := w.path
	if !w.ok {
		stop = filepath.Dir(file) // the file's own directory only
	}
	return parser.NearestMain(file, stop)
}

// looksLikeNginx tells a changed file that nothing includes from a file
// that is not nginx configuration at all (a README, an Ansible task file
// under roles/nginx/, another program's *.conf such as supervisord's or
// php-fpm's): nginx configuration holds a directive nginx knows. A file
// named nginx.conf or *.nginx is always linted.
func looksLikeNginx(t *parser.Tree, path string) bool { return fileLooksLikeNginx(path, t.File(path)) }

// fileLooksLikeNginx is looksLikeNginx for a file read under a name (nil:
// not read, taken for nginx's).
func fileLooksLikeNginx(name string, f *parser.File) bool {
	if base := filepath.Base(name); base == "nginx.conf" || strings.HasSuffix(base, ".nginx") {
		return true
	}
	if f == nil {
		return true
	}
	for _, d := range f.Directives {
		if parser.Known(d.Name) {
			return true
		}
	}
	return false
}

// includedBy returns the nginx.conf above file (in the working directory,
// or the live configuration directory) whose tree includes it, "" when
// file is a main file itself, lies elsewhere, or nothing above includes it.
func includedBy(file string, s *lintSettings) string {
	abs, err := filepath.Abs(file)
	if err != nil || filepath.Base(abs) == "nginx.conf" {
		return ""
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
		return ""
	}
	real, err := filepath.EvalSymlinks(abs)
	wd := getWorkDir()
	if err != nil || !(wd.contains(abs) && wd.contains(real) || isLive(abs) && isLive(real)) {
		return ""
	}
	root := wd.nearestRoot(abs)
	if root == "" || root == abs {
		return ""
	}
	opt := s.opt
	opt.Live = isLive(root)
	t, err := s.load(root, opt)
	if err != nil || t.File(real) == nil && t.File(abs) == nil {
		return ""
	}
	return root
}
