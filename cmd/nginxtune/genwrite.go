package main

// How gen writes: every file into the directory it was given (--out,
// --into, --os-root) through an os.Root of it, so that no link inside,
// one there from the start or one swapped in while gen runs, leads a write
// out of it; --tune-main's edits through the checked writer of --fix, to
// the very files that were read. Every file is staged before the first is
// put in place.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/internal/atomicfile"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/internal/textdiff"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/templates"
)

// writeGen places gen's files: the configuration's into the target, the
// OS half beside them (or under --os-root), --diff instead of writing;
// nothing is replaced without --force, and every file is staged before the
// first is renamed into place.
func writeGen(c *cobra.Command, f *genFlags, files []templates.File, edits []treeEdit, ex *existingTree, target string, lay *templates.Layout) error {
	// where each file goes: the configuration's files into the target;
	// the OS half beside them in a complete tree, under --os-root when a
	// site is added to a host's tree, else nowhere (said)
	type placed struct {
		file templates.File
		dir  string
	}
	var place []placed
	var notWritten []string
	for _, file := range files {
		switch {
		case file.Stock && present(filepath.Join(target, file.Path)):
			// the package's mime.types or fastcgi_params stays
		case !file.OS || ex == nil:
			place = append(place, placed{file, target})
		case f.osRoot != "":
			file.Path = osPath(file.Path)
			place = append(place, placed{file, f.osRoot})
		default:
			notWritten = append(notWritten, osPath(file.Path))
		}
	}
	// the directories named on the command line, each opened once: what
	// is read or written in them goes through the os.Root
	roots := map[string]*os.Root{}
	defer func() {
		for _, r := range roots {
			r.Close()
		}
	}()
	rootOf := func(dir string, create bool) (*os.Root, error) {
		if r, ok := roots[dir]; ok {
			return r, nil
		}
		if create {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
		}
		r, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		roots[dir] = r
		return r, nil
	}
	// current reads what is at a file's place now (nil: nothing, or
	// nothing gen can read there without leaving the directory)
	current := func(pf placed) []byte {
		r, err := rootOf(pf.dir, false)
		if err != nil {
			return nil
		}
		b, err := r.ReadFile(pf.file.Path)
		if err != nil {
			return nil
		}
		return b
	}
	readlink := func(pf placed) string {
		r, err := rootOf(pf.dir, false)
		if err != nil {
			return ""
		}
		l, _ := r.Readlink(pf.file.Path)
		return l
	}
	if f.diff {
		for _, pf := range place {
			p := filepath.Join(pf.dir, pf.file.Path)
			if pf.file.Link != "" {
				if old := readlink(pf); old != pf.file.Link {
					fmt.Fprintf(c.OutOrStdout(), "--- %s: a symbolic link to %s (now: %s)\n", untrusted.Escape(p), untrusted.Escape(pf.file.Link), untrusted.Escape(orNone(old)))
				}
				continue
			}
			if l := linkUnder(pf.dir, pf.file.Path); l != "" {
				fmt.Fprintf(c.OutOrStdout(), "--- %s: %s is a symbolic link; not read, not compared\n", untrusted.Escape(p), untrusted.Escape(l))
				continue
			}
			// the file there is anybody's: its bytes reach the terminal escaped
			fmt.Fprint(c.OutOrStdout(), untrusted.EscapeLines(textdiff.Unified(p, p+" (nginxtune gen)", string(current(pf)), pf.file.Content)))
		}
		for _, e := range edits {
			p := filepath.Join(target, e.rel)
			fmt.Fprint(c.OutOrStdout(), untrusted.EscapeLines(textdiff.Unified(p, p+" (nginxtune gen --tune-main)", string(e.file.Src), string(e.data))))
		}
		return nil
	}
	var exists, links, out []string
	link := func(l, dir string) {
		if slices.Contains(links, l) {
			return
		}
		links = append(links, l)
		// --force writes through a link that stays inside the directory
		// (os.Root follows no other); one that leads out is refused here,
		// with a word, rather than when the write fails
		real, err := filepath.EvalSymlinks(l)
		top, _ := filepath.Abs(dir)
		if top, terr := filepath.EvalSymlinks(top); err != nil || terr != nil || !boundedread.Within(real, top) {
			out = append(out, l)
		}
	}
	for _, pf := range place {
		p := filepath.Join(pf.dir, pf.file.Path)
		if pf.file.Link != "" {
			// through the directory's os.Root, as every other read: a
			// directory on the way that is a link out is not looked into
			if old := readlink(pf); old != "" && old != pf.file.Link {
				exists = append(exists, p)
			} else if r, err := rootOf(pf.dir, false); err == nil {
				if fi, err := r.Lstat(pf.file.Path); err == nil && fi.Mode()&os.ModeSymlink == 0 {
					exists = append(exists, p)
				}
			}
			if l := linkUnder(pf.dir, filepath.Dir(pf.file.Path)); l != "" && filepath.Dir(pf.file.Path) != "." {
				link(l, pf.dir)
			}
			continue
		}
		if l := linkUnder(pf.dir, pf.file.Path); l != "" {
			link(l, pf.dir)
		}
		if b := current(pf); b != nil && string(b) != pf.file.Content {
			exists = append(exists, p)
		}
	}
	where := "--out"
	if f.into != "" {
		where = "--into"
	}
	if len(out) > 0 {
		return failf(ExitError, "%s is a symbolic link inside %s that leads out of it; nothing written, even with --force", untrusted.Escape(strings.Join(out, ", ")), where)
	}
	if len(links) > 0 && !f.force {
		return failf(ExitError, "%s is a symbolic link inside %s; nothing written (--force writes through a link that stays inside %s)", untrusted.Escape(strings.Join(links, ", ")), where, where)
	}
	if len(exists) > 0 && !f.force {
		return failf(ExitError, "%s exists and differs; nothing written (see --diff, or --force to replace)", untrusted.Escape(strings.Join(exists, ", ")))
	}
	if beforeGenWrite != nil {
		beforeGenWrite()
	}
	// all or nothing: stage every file beside its place, then rename
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	type staged struct {
		root      *os.Root
		tmp, name string // relative to root
		show      string
		// dir is the directory the staged copy was made in, held open: a
		// failure removes the copy there even when that directory was
		// renamed or swapped for a link meanwhile (by name, root refuses
		// to follow the link and the copy stayed behind)
		dir *os.Root
	}
	var done []staged
	var theirs []atomicfile.Staged
	defer func() {
		for _, st := range done {
			st.dir.Close()
		}
	}()
	removeStaged := func(sts []staged) {
		for _, st := range sts {
			st.dir.Remove(filepath.Base(st.tmp))
		}
	}
	abort := func(err error) error {
		removeStaged(done)
		for _, st := range theirs {
			st.Discard()
		}
		return failf(ExitError, "%s; nothing written", untrusted.Escape(err.Error()))
	}
	for _, pf := range place {
		r, err := rootOf(pf.dir, true)
		if err != nil {
			return abort(err)
		}
		name := pf.file.Path
		if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			if l := linkUnder(pf.dir, filepath.Dir(name)); l != "" {
				// os.Root refused to follow it out
				err = fmt.Errorf("%s is a symbolic link now (put there while gen ran?) and leads out of %s", l, where)
			}
			return abort(err)
		}
		dir, err := r.OpenRoot(filepath.Dir(name))
		if err != nil {
			return abort(err)
		}
		var tmp string
		if pf.file.Link != "" {
			if old, err := r.Readlink(name); err == nil && old == pf.file.Link {
				dir.Close()
				continue
			}
			base, err := atomicfile.LinkIn(dir, filepath.Base(name), pf.file.Link)
			if err != nil {
				dir.Close()
				return abort(err)
			}
			tmp = filepath.Join(filepath.Dir(name), base)
		} else {
			if b, err := r.ReadFile(name); err == nil && string(b) == pf.file.Content {
				dir.Close()
				continue
			}
			base, err := atomicfile.TempIn(dir, filepath.Base(name), []byte(pf.file.Content), os.FileMode(pf.file.Mode)&^os.FileMode(umask))
			if err != nil {
				dir.Close()
				return abort(err)
			}
			tmp = filepath.Join(filepath.Dir(name), base)
		}
		done = append(done, staged{r, tmp, name, filepath.Join(pf.dir, name), dir})
		if afterGenStage != nil {
			afterGenStage()
		}
	}
	// the tree's own files (--tune-main): as --fix writes, the file read
	// and no other, its mode, owner and links kept
	for _, e := range edits {
		key := atomicfile.Key{Dev: e.file.Dev, Ino: e.file.Ino}
		now, err := atomicfile.ReadVerified(e.file.Path, key)
		if err == nil && string(now) != string(e.file.Src) {
			err = fmt.Errorf("%s: %w", e.file.Path, atomicfile.ErrSwapped)
		}
		if err != nil {
			return abort(err)
		}
		st, err := atomicfile.Stage(e.file.Path, key, e.data)
		if err != nil {
			return abort(err)
		}
		theirs = append(theirs, st)
	}
	total := len(done) + len(theirs)
	for i, st := range done {
		if err := st.root.Rename(st.tmp, st.name); err != nil {
			removeStaged(done[i:])
			for _, rest := range theirs {
				rest.Discard()
			}
			return failf(ExitError, "%s (written before the failure: %d of %d files)", untrusted.Escape(err.Error()), i, total)
		}
		fmt.Fprintf(c.ErrOrStderr(), "wrote %s\n", untrusted.Escape(st.show))
	}
	for i, st := range theirs {
		if _, err := st.Commit(); err != nil {
			for _, rest := range theirs[i+1:] {
				rest.Discard()
			}
			return failf(ExitError, "%s (written before the failure: %d of %d files)", untrusted.Escape(err.Error()), len(done)+i, total)
		}
		fmt.Fprintf(c.ErrOrStderr(), "wrote %s\n", untrusted.Escape(filepath.Join(target, edits[i].rel)))
	}
	if total == 0 {
		fmt.Fprintln(c.ErrOrStderr(), "nginxtune: every file is as gen would write it; nothing changed")
	}
	if len(notWritten) > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "nginxtune: not written (they belong outside %s): %s; give --os-root / to install them on this host, or see them with gen --layout %s --out DIR\n",
			untrusted.Escape(target), strings.Join(notWritten, ", "), lay.Name)
	}
	return nil
}

// beforeGenWrite, when set (by tests), runs between gen's checks of the
// target and its writing there.
var beforeGenWrite func()

// afterGenStage, when set (by tests), runs after each of gen's files is
// staged: where a writer racing gen swaps a directory that holds a staged
// copy.
var afterGenStage func()
