package lint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules"
)

// lintChanged lints the configuration trees that include the changed files
// (so includes and inheritance are right) and keeps the findings in those
// files. A changed file that no root includes is linted on its own, in the
// context its directives (or a "# nginxtune: context=" comment) give it.
func (s *Settings) lintChanged(files []string) ([]finding.Diagnostic, bool, []*loader.Tree, error) {
	wd := getWorkDir()
	order, err := changedFiles(files, wd)
	if err != nil {
		return nil, false, nil, err
	}
	changed := map[string]bool{}
	for _, f := range order {
		changed[f] = true
	}
	roots := s.Roots
	if len(roots) == 0 {
		roots = nearestRoots(order, wd)
	}
	k := keeper{s: s, covered: map[string]bool{}, seenErr: map[string]bool{}}
	for _, r := range roots {
		t, err := s.load(r, s.Loader)
		if err != nil {
			return nil, false, nil, err
		}
		if hits := k.hits(t, changed); len(hits) > 0 {
			k.keep(t, hits)
		}
	}
	for _, f := range order {
		if err := k.alone(f); err != nil {
			return nil, false, nil, err
		}
	}
	sort.SliceStable(k.diags, func(i, j int) bool {
		if k.diags[i].File != k.diags[j].File {
			return k.diags[i].File < k.diags[j].File
		}
		return k.diags[i].Line < k.diags[j].Line
	})
	return k.diags, k.broken, k.trees, nil
}

// changedFiles checks the changed files and names each once, in order, at
// the path its findings are filed at.
func changedFiles(files []string, wd workDir) ([]string, error) {
	seen := map[string]bool{}
	var order []string
	for _, f := range files {
		abs, err := changedFile(f, wd)
		if err != nil {
			return nil, err
		}
		if !seen[abs] {
			seen[abs] = true
			order = append(order, abs)
		}
	}
	return order, nil
}

// changedFile is the path a changed file's findings are filed at, or why
// it is not linted.
func changedFile(f string, wd workDir) (string, error) {
	abs, err := filepath.Abs(f)
	if err != nil {
		return "", err
	}
	// a changed file is a file of the repository (the working directory,
	// where pre-commit runs the hook), and so is what a changed link
	// names; the live tree is the live tree's
	real, rerr := filepath.EvalSymlinks(abs)
	if rerr != nil {
		real = abs
	}
	if !wd.contains(abs) && !(IsLive(abs) && IsLive(real)) {
		return "", fmt.Errorf("%s: outside the repository (the working directory); --changed lints the repository's files only", untrusted.Escape(f))
	}
	if fi, err := os.Lstat(abs); err != nil || fi.IsDir() {
		return "", fmt.Errorf("%s: not a file (--changed takes the changed files)", untrusted.Escape(f))
	}
	// findings are filed at real paths: a changed link or a changed
	// target of one (sites-enabled/x -> ../sites-available/x) is one
	// file. A link naming a path outside the repository (a copy's
	// sites-enabled/x -> /etc/nginx/sites-available/x) stays as named:
	// the tree that includes it reads the copy's file through it, and
	// this machine's file is never read.
	if wd.contains(real) || IsLive(abs) {
		abs = real
	}
	return abs, nil
}

// nearestRoots are the main files that most likely include the files
// (NearestMain, within the working directory), each once, sorted.
func nearestRoots(files []string, wd workDir) []string {
	var roots []string
	seen := map[string]bool{}
	for _, f := range files {
		if r := NearestMain(f, wd.bound()); r != "" && !seen[r] {
			seen[r] = true
			roots = append(roots, r)
		}
	}
	sort.Strings(roots)
	return roots
}

// keeper gathers lintChanged's findings: those in the changed files, and
// errors anywhere in their trees.
type keeper struct {
	s       *Settings
	diags   []finding.Diagnostic
	trees   []*loader.Tree
	broken  bool
	covered map[string]bool // changed files a root's tree read
	seenErr map[string]bool // errors kept outside the changed files
}

// hits are the files of t that are changed files (or links to them) no
// tree before read, marking them covered.
func (k *keeper) hits(t *loader.Tree, changed map[string]bool) map[string]bool {
	hits := map[string]bool{}
	for _, f := range t.Files {
		for _, p := range []string{f.Path, f.Via} {
			if p != "" && changed[p] && !k.covered[p] {
				hits[f.Path], k.covered[p] = true, true
			}
		}
	}
	return hits
}

// keep runs the rules over t and keeps the findings in the files of only,
// and errors anywhere: a change can break a file it includes or is
// included by.
func (k *keeper) keep(t *loader.Tree, only map[string]bool) {
	k.broken = k.broken || treeBroken(t)
	k.s.needVersion()
	cfg := k.s.Config
	cfg.Only = only // what is kept below: rules skip reading host facts for the rest
	found, notShown := rules.RunCounted(t, cfg)
	k.s.notShown += notShown
	for _, d := range found {
		if only[d.File] || d.Severity == finding.Error && !k.seenErr[d.File+"\x00"+d.Message] {
			if !only[d.File] {
				k.seenErr[d.File+"\x00"+d.Message] = true
			}
			k.diags = append(k.diags, d)
		}
	}
	k.trees = append(k.trees, t)
}

// alone lints a changed file no root's tree read on its own, unless it is
// a link out of the repository or no nginx configuration.
func (k *keeper) alone(f string) error {
	if k.covered[f] {
		return nil
	}
	s := k.s
	t, err := s.load(f, s.Loader)
	if errors.Is(err, loader.ErrRootOutside) {
		fmt.Fprintf(s.stderr, "nginxtune: skipped %s: a link to a file outside the repository, and no nginx.conf here includes it\n", untrusted.Escape(RelPath(f)))
		return nil
	}
	if err != nil {
		return err
	}
	if !LooksLikeNginx(f, t.File(f)) {
		fmt.Fprintf(s.stderr, "nginxtune: skipped %s: not an nginx configuration (no nginx directive before the first error, and nothing includes it)\n", untrusted.Escape(RelPath(f)))
		return nil
	}
	k.keep(t, map[string]bool{f: true})
	return nil
}

// includedBy returns the nginx.conf above file (in the working directory,
// or the live configuration directory) whose tree includes it, "" when
// file is a main file itself, lies elsewhere, or nothing above includes it.
func (s *Settings) includedBy(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil || filepath.Base(abs) == "nginx.conf" {
		return ""
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
		return ""
	}
	real, err := filepath.EvalSymlinks(abs)
	wd := getWorkDir()
	if err != nil || !(wd.contains(abs) && wd.contains(real) || IsLive(abs) && IsLive(real)) {
		return ""
	}
	root, _ := IncludedBy(abs, wd.bound(), func(root string) (*loader.Tree, error) {
		opt := s.Loader
		opt.Live = IsLive(root)
		return s.load(root, opt)
	})
	return root
}
