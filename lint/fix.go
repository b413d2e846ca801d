package lint

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/atomicfile"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Fixed is what Fix did.
type Fixed struct {
	Fixes int // findings whose fix was applied
	Files int // files changed
	// NginxChecked is set when nginx -t could check the fixed tree (the
	// live tree, or Options.NginxTest); else it was checked by reading it
	// again only.
	NginxChecked bool
}

// brokeError is Fix's error when the fixes left the configuration
// unreadable: nginxtune's bug (rules.ErrFixBroke).
type brokeError struct{ msg string }

func (e *brokeError) Error() string { return e.msg }
func (e *brokeError) Unwrap() error { return rules.ErrFixBroke }

// Fix applies the fixes of r's findings to the files of paths' trees, in
// rounds until none is left, and updates r to what is left. Every write is
// all or nothing; a round that leaves the configuration unreadable, or
// that nginx -t rejects where it accepted the tree before, is rolled back
// (the error names what was restored; errors.Is rules.ErrFixBroke when it
// is nginxtune's bug). Take LockDirs first.
func (s *Settings) Fix(paths []string, r *Result) (Fixed, error) {
	for _, t := range r.Trees {
		if t.Dump || (len(t.Roots) > 0 && t.Roots[0].Path == "<stdin>") {
			return Fixed{}, errors.New("--fix needs files on disk, not standard input or nginx -T output")
		}
	}
	// what every changed file held before, to roll back a fix that
	// leaves the configuration unreadable
	originals := map[string][]byte{}
	for _, t := range r.Trees {
		for _, f := range t.Files {
			originals[f.Path] = f.Src
		}
	}
	// nginx -t of the tree as it is, for the check after the fixes; not
	// needed when no finding carries a fix. nginx -t runs what a
	// configuration names (load_module, perl_require, js_import,
	// init_by_lua) and creates its log and temp paths: only on a tree the
	// user trusts, the live one or one named with --nginx-test
	// (docs/security.md)
	trusted := s.opt.NginxTest || allLive(paths)
	var beforeOK nginxcheck.Result
	if trusted && slices.ContainsFunc(r.Diags, func(d finding.Diagnostic) bool { return d.Fix != nil }) {
		beforeOK, _ = nginxTest(r.Trees, s.Config.Version)
	}
	changed := map[string]atomicfile.Key{}
	res, err := s.fixSession(paths, changed).Run(r.Diags, r.Trees, r.Broken)
	r.Diags, r.Broken, r.Trees = res.Diags, res.Broken, res.Trees
	if err != nil {
		return Fixed{}, fixFailed(err, changed, originals)
	}
	// what nginx itself says: a tree nginx -t accepted before must still
	// pass after the fixes, or they are taken back
	if len(changed) > 0 && beforeOK.OK {
		if after, checked := nginxTest(r.Trees, s.Config.Version); checked && !after.OK {
			return Fixed{}, fmt.Errorf("nginx -t rejects the fixed configuration (%s); restored %s",
				untrusted.Escape(untrusted.CutAt(after.Message, 200)), restore(changed, originals))
		}
	}
	return Fixed{Fixes: res.Fixes, Files: len(changed), NginxChecked: trusted}, nil
}

// fixSession applies the fixes in rounds, reading paths again after each;
// changed gathers the files written, with the identity of each.
func (s *Settings) fixSession(paths []string, changed map[string]atomicfile.Key) rules.FixSession {
	return rules.FixSession{
		Lint: func() ([]finding.Diagnostic, bool, []*loader.Tree, error) { return s.lint(paths) },
		Apply: func(set engine.FixSet, trees []*loader.Tree) ([]string, error) {
			keys, err := s.applyFixes(set, trees)
			var written []string
			for name, k := range keys {
				changed[name] = k
				written = append(written, name)
			}
			sort.Strings(written)
			return written, err
		},
		Outside: func(file string) {
			fmt.Fprintf(s.stderr, "nginxtune: not fixed: %s is outside the linted tree\n", untrusted.Escape(file))
		},
	}
}

// fixFailed rolls back what a failed fix session wrote and says so.
func fixFailed(err error, changed map[string]atomicfile.Key, originals map[string][]byte) error {
	switch {
	case errors.Is(err, rules.ErrFixBroke):
		return &brokeError{fmt.Sprintf("the fixes left the configuration unreadable; restored %s (please report it)", restore(changed, originals))}
	case len(changed) > 0:
		return fmt.Errorf("%v; restored %s", err, restore(changed, originals))
	}
	return err
}

// LockDirs takes --fix's lock: one --fix at a time per configuration
// directory (each path's, or its directory's); a second run waits, then
// reads what the first wrote. unlock lets them go.
func LockDirs(paths []string) (unlock func(), err error) {
	var unlocks []func()
	unlock = func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	locked := map[string]bool{}
	for _, a := range paths {
		dir := a
		if fi, err := os.Stat(a); err != nil || !fi.IsDir() {
			dir = filepath.Dir(a)
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if locked[dir] {
			continue
		}
		locked[dir] = true
		u, err := lockDir(dir)
		if err != nil {
			unlock()
			return nil, err
		}
		unlocks = append(unlocks, u)
	}
	return unlock, nil
}

// lockDir takes an exclusive advisory lock on a directory until unlock is
// called.
func lockDir(dir string) (unlock func(), err error) {
	fd, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(fd.Fd()), syscall.LOCK_EX); err != nil {
		fd.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(fd.Fd()), syscall.LOCK_UN)
		fd.Close()
	}, nil
}

// applyFixes applies the edits of every fix, skipping a fix whose edits
// overlap one already taken (or that creates what another already does) or
// that would write outside the linted trees, and writes each changed file
// atomically. Edits are applied to the text they were computed from: a file
// that changed since it was read is an error. Linear in the edits of a file
// (after sorting), so a fix of a 20,000-server file is not quadratic.
// written names the files now in place, with the identity of each (what
// restore checks before writing the original back), also on an error.
func (s *Settings) applyFixes(set engine.FixSet, trees []*loader.Tree) (written map[string]atomicfile.Key, err error) {
	source := map[string]*parser.File{}
	for _, t := range trees {
		for _, f := range t.Files {
			source[f.Path] = f
		}
	}
	outs, err := fixedTexts(set, source)
	if err != nil {
		return nil, err
	}
	if s.beforeWrite != nil {
		s.beforeWrite()
	}
	staged, err := s.stage(outs, source)
	if err != nil {
		return nil, err
	}
	return commit(staged)
}

// keyOf is the identity of the file f was read from.
func keyOf(f *parser.File) atomicfile.Key { return atomicfile.Key{Dev: f.Dev, Ino: f.Ino} }

// fixedTexts are the files the edits change, with their new text, each
// read again through the file that was read (a link put in its place since
// is not followed) and applied to the text they were computed from.
func fixedTexts(set engine.FixSet, source map[string]*parser.File) (map[string][]byte, error) {
	outs := map[string][]byte{}
	for _, name := range slices.Sorted(maps.Keys(set.Edits)) {
		src, err := atomicfile.ReadVerified(name, keyOf(source[name]))
		if err != nil {
			return nil, fmt.Errorf("%s; nothing written", untrusted.Escape(err.Error()))
		}
		if !bytes.Equal(src, source[name].Src) {
			return nil, fmt.Errorf("%s changed while nginxtune was reading it; nothing written, run again", untrusted.Escape(name))
		}
		out, err := engine.ApplyEdits(src, set.Edits[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %v; nothing written", untrusted.Escape(name), err)
		}
		if !bytes.Equal(out, src) {
			outs[name] = out
		}
	}
	return outs, nil
}

// stage writes and syncs every new file beside its original, all or
// nothing: a failure while staging (a full disk) leaves every original as
// it was. A read-only file is left alone without Options.Force.
func (s *Settings) stage(outs map[string][]byte, source map[string]*parser.File) ([]atomicfile.Staged, error) {
	var staged []atomicfile.Staged
	for _, name := range slices.Sorted(maps.Keys(outs)) {
		if atomicfile.ReadOnly(name) && !s.opt.Force {
			fmt.Fprintf(s.stderr, "nginxtune: not fixed: %s is read-only (--force rewrites it, keeping its mode)\n", untrusted.Escape(name))
			continue
		}
		st, err := atomicfile.Stage(name, keyOf(source[name]), outs[name])
		if err != nil {
			for _, st := range staged {
				st.Discard()
			}
			return nil, fmt.Errorf("%s; nothing written (not written: %s)", untrusted.Escape(err.Error()), untrusted.Escape(strings.Join(slices.Sorted(maps.Keys(outs)), ", ")))
		}
		staged = append(staged, st)
	}
	return staged, nil
}

// commit renames the staged files into place, and names those written,
// also on an error.
func commit(staged []atomicfile.Staged) (map[string]atomicfile.Key, error) {
	written := map[string]atomicfile.Key{}
	var done []string
	for i, st := range staged {
		key, err := st.Commit()
		if err != nil {
			var rest []string
			for _, r := range staged[i:] {
				rest = append(rest, r.Name)
				if r.Name != st.Name {
					r.Discard()
				}
			}
			return written, fmt.Errorf("%s (not written: %s; files already fixed: %s)", untrusted.Escape(err.Error()), untrusted.Escape(strings.Join(rest, ", ")), untrusted.Escape(strings.Join(done, ", ")))
		}
		done = append(done, st.Name)
		written[st.Name] = key
	}
	return written, nil
}

// restore writes back what the changed files held, and names them: each
// only while it is still the file --fix wrote.
func restore(changed map[string]atomicfile.Key, originals map[string][]byte) string {
	var restored, failed []string
	for name, key := range changed {
		old, ok := originals[name]
		if !ok {
			continue
		}
		st, err := atomicfile.Stage(name, key, old)
		if err == nil {
			_, err = st.Commit()
		}
		if err != nil {
			// said, never dropped: the user must know which file still
			// holds the fix
			failed = append(failed, fmt.Sprintf("%s (%v)", RelPath(name), err))
			continue
		}
		restored = append(restored, RelPath(name))
	}
	sort.Strings(restored)
	sort.Strings(failed)
	out := strings.Join(restored, ", ")
	if len(failed) > 0 {
		if out != "" {
			out += "; "
		}
		out += "COULD NOT RESTORE " + strings.Join(failed, ", ")
	}
	return out
}

// nginxTest runs nginx -t on a copy of the tree in a temporary prefix.
// checked is false when it could not: no nginx, another version than the
// one linted for, or a copy that could not be written (then nothing is
// said against the fixes).
func nginxTest(trees []*loader.Tree, target knowledge.Version) (res nginxcheck.Result, checked bool) {
	bin := nginxcheck.Binary()
	if bin == "" || len(trees) != 1 || trees[0].Dump || len(trees[0].Roots) != 1 || trees[0].Dir == "" || !sameMinor(bin, target) {
		return res, false
	}
	t := trees[0]
	dir, err := os.MkdirTemp("", "nginxtune-fix-")
	if err != nil {
		return res, false
	}
	defer os.RemoveAll(dir)
	if !copyTree(t, dir) {
		return res, false
	}
	nginxcheck.StockFiles(dir)
	if err := nginxcheck.WriteSelfSigned(dir); err != nil {
		return res, false
	}
	rel, err := filepath.Rel(t.Dir, t.Roots[0].Path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return res, false
	}
	return nginxcheck.Run(bin, dir, filepath.Join(dir, rel)), true
}

// sameMinor reports whether the nginx at bin is of target's major and
// minor version (any when target is unknown).
func sameMinor(bin string, target knowledge.Version) bool {
	if !target.Known() {
		return true
	}
	iv, err := knowledge.ParseVersion(nginxcheck.Version(bin))
	return err == nil && iv.Major == target.Major && iv.Minor == target.Minor
}

// copyTree writes the files of t inside its directory to the same places
// under dir.
func copyTree(t *loader.Tree, dir string) bool {
	for _, f := range t.Files {
		rel, err := filepath.Rel(t.Dir, f.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return false
		}
		if err := os.WriteFile(p, f.Src, 0o644); err != nil {
			return false
		}
	}
	return true
}
