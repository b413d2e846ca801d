package generate

// How gen writes: every file into the directory it was given (--out,
// --into, --os-root) through an os.Root of it, so that no link inside,
// one there from the start or one swapped in while gen runs, leads a write
// out of it; --tune-main's edits through the checked writer of --fix, to
// the very files that were read. Every file is staged before the first is
// put in place.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/nginxtune/nginxtune/internal/atomicfile"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/internal/textdiff"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/templates"
)

// placed is one of gen's files and the directory it goes into.
type placed struct {
	file templates.File
	dir  string
}

// staged is one of gen's files staged beside its place.
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

// writing is one write of gen's files.
type writing struct {
	o      *Options
	notes  io.Writer
	target string
	where  string // the option that named the target: --out or --into
	// the directories named in the options, each opened once: what is
	// read or written in them goes through the os.Root
	roots  map[string]*os.Root
	place  []placed
	done   []staged
	theirs []atomicfile.Staged
}

// write places gen's files: the configuration's into the target, the OS
// half beside them (or under OSRoot), Diff's comparison instead of writing;
// nothing is replaced without Force, and every file is staged before the
// first is renamed into place.
func (g *generation) write(files []templates.File, edits []treeEdit) error {
	w := &writing{o: g.o, notes: g.notes, target: g.o.target(), where: "--out", roots: map[string]*os.Root{}}
	if g.o.Into != "" {
		w.where = "--into"
	}
	defer w.close()
	notWritten := w.placeFiles(files, g.ex != nil)
	if w.o.Diff {
		w.diff(edits)
		return nil
	}
	if err := w.check(); err != nil {
		return err
	}
	if w.o.BeforeWrite != nil {
		w.o.BeforeWrite()
	}
	if err := w.stage(edits); err != nil {
		return err
	}
	if err := w.commit(edits); err != nil {
		return err
	}
	if len(w.done)+len(w.theirs) == 0 {
		fmt.Fprintln(w.notes, "nginxtune: every file is as gen would write it; nothing changed")
	}
	if len(notWritten) > 0 {
		fmt.Fprintf(w.notes, "nginxtune: not written (they belong outside %s): %s; give --os-root / to install them on this host, or see them with gen --layout %s --out DIR\n",
			untrusted.Escape(w.target), strings.Join(notWritten, ", "), g.lay.Name)
	}
	return nil
}

// placeFiles decides where each file goes: the configuration's files into
// the target; the OS half beside them in a complete tree, under OSRoot
// when a site is added to a host's tree (into), else nowhere: those are
// returned, to be said.
func (w *writing) placeFiles(files []templates.File, into bool) (notWritten []string) {
	for _, file := range files {
		switch {
		case file.Stock && present(filepath.Join(w.target, file.Path)):
			// the package's mime.types or fastcgi_params stays
		case !file.OS || !into:
			w.place = append(w.place, placed{file, w.target})
		case w.o.OSRoot != "":
			file.Path = osPath(file.Path)
			w.place = append(w.place, placed{file, w.o.OSRoot})
		default:
			notWritten = append(notWritten, osPath(file.Path))
		}
	}
	return notWritten
}

// close closes the directories the write held open.
func (w *writing) close() {
	for _, st := range w.done {
		st.dir.Close()
	}
	for _, r := range w.roots {
		r.Close()
	}
}

// rootOf is the os.Root of dir, made first with create.
func (w *writing) rootOf(dir string, create bool) (*os.Root, error) {
	if r, ok := w.roots[dir]; ok {
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
	w.roots[dir] = r
	return r, nil
}

// current reads what is at a file's place now (nil: nothing, or nothing
// gen can read there without leaving the directory).
func (w *writing) current(pf placed) []byte {
	r, err := w.rootOf(pf.dir, false)
	if err != nil {
		return nil
	}
	b, err := r.ReadFile(pf.file.Path)
	if err != nil {
		return nil
	}
	return b
}

// readlink is where the link at a file's place points, "" when there is
// none.
func (w *writing) readlink(pf placed) string {
	r, err := w.rootOf(pf.dir, false)
	if err != nil {
		return ""
	}
	l, _ := r.Readlink(pf.file.Path)
	return l
}

// diff writes what would change to Output.
func (w *writing) diff(edits []treeEdit) {
	out := w.o.Output
	for _, pf := range w.place {
		p := filepath.Join(pf.dir, pf.file.Path)
		if pf.file.Link != "" {
			if old := w.readlink(pf); old != pf.file.Link {
				fmt.Fprintf(out, "--- %s: a symbolic link to %s (now: %s)\n", untrusted.Escape(p), untrusted.Escape(pf.file.Link), untrusted.Escape(orNone(old)))
			}
			continue
		}
		if l := linkUnder(pf.dir, pf.file.Path); l != "" {
			fmt.Fprintf(out, "--- %s: %s is a symbolic link; not read, not compared\n", untrusted.Escape(p), untrusted.Escape(l))
			continue
		}
		// the file there is anybody's: its bytes reach the terminal escaped
		fmt.Fprint(out, untrusted.EscapeLines(textdiff.Unified(p, p+" (nginxtune gen)", string(w.current(pf)), pf.file.Content)))
	}
	for _, e := range edits {
		p := filepath.Join(w.target, e.rel)
		fmt.Fprint(out, untrusted.EscapeLines(textdiff.Unified(p, p+" (nginxtune gen --tune-main)", string(e.file.Src), string(e.data))))
	}
}

// check refuses, before anything is written, a file that exists and
// differs (without Force) and a link on the way to a file's place: one
// that leads out of its directory always, one that stays inside without
// Force.
func (w *writing) check() error {
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
	for _, pf := range w.place {
		p := filepath.Join(pf.dir, pf.file.Path)
		if pf.file.Link != "" {
			// through the directory's os.Root, as every other read: a
			// directory on the way that is a link out is not looked into
			if old := w.readlink(pf); old != "" && old != pf.file.Link {
				exists = append(exists, p)
			} else if r, err := w.rootOf(pf.dir, false); err == nil {
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
		if b := w.current(pf); b != nil && string(b) != pf.file.Content {
			exists = append(exists, p)
		}
	}
	if len(out) > 0 {
		return fmt.Errorf("%s is a symbolic link inside %s that leads out of it; nothing written, even with --force", untrusted.Escape(strings.Join(out, ", ")), w.where)
	}
	if len(links) > 0 && !w.o.Force {
		return fmt.Errorf("%s is a symbolic link inside %s; nothing written (--force writes through a link that stays inside %s)", untrusted.Escape(strings.Join(links, ", ")), w.where, w.where)
	}
	if len(exists) > 0 && !w.o.Force {
		return fmt.Errorf("%s exists and differs; nothing written (see --diff, or --force to replace)", untrusted.Escape(strings.Join(exists, ", ")))
	}
	return nil
}

// stage stages every file beside its place, and the tree's own files
// (edits: --tune-main's), as --fix writes them: the file read and no
// other, its mode, owner and links kept. On a failure it removes what it
// staged.
func (w *writing) stage(edits []treeEdit) error {
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	for _, pf := range w.place {
		st, ok, err := w.stageFile(pf, os.FileMode(umask))
		if err != nil {
			return w.abort(err)
		}
		if !ok {
			continue
		}
		w.done = append(w.done, st)
		if w.o.AfterStage != nil {
			w.o.AfterStage()
		}
	}
	for _, e := range edits {
		st, err := atomicfile.StageUnchanged(e.file.Path, atomicfile.Key{Dev: e.file.Dev, Ino: e.file.Ino}, e.file.Src, e.data)
		if err != nil {
			return w.abort(err)
		}
		w.theirs = append(w.theirs, st)
	}
	return nil
}

// stageFile stages one file (or link) beside its place, made with the
// permissions umask leaves; ok is false when the place holds it already.
func (w *writing) stageFile(pf placed, umask os.FileMode) (st staged, ok bool, err error) {
	r, err := w.rootOf(pf.dir, true)
	if err != nil {
		return st, false, err
	}
	name := pf.file.Path
	if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		if l := linkUnder(pf.dir, filepath.Dir(name)); l != "" {
			// os.Root refused to follow it out
			err = fmt.Errorf("%s is a symbolic link now (put there while gen ran?) and leads out of %s", l, w.where)
		}
		return st, false, err
	}
	dir, err := r.OpenRoot(filepath.Dir(name))
	if err != nil {
		return st, false, err
	}
	var base string
	if pf.file.Link != "" {
		if old, err := r.Readlink(name); err == nil && old == pf.file.Link {
			dir.Close()
			return st, false, nil
		}
		base, err = atomicfile.LinkIn(dir, filepath.Base(name), pf.file.Link)
	} else {
		if b, err := r.ReadFile(name); err == nil && string(b) == pf.file.Content {
			dir.Close()
			return st, false, nil
		}
		base, err = atomicfile.TempIn(dir, filepath.Base(name), []byte(pf.file.Content), os.FileMode(pf.file.Mode)&^umask)
	}
	if err != nil {
		dir.Close()
		return st, false, err
	}
	return staged{r, filepath.Join(filepath.Dir(name), base), name, filepath.Join(pf.dir, name), dir}, true, nil
}

// removeStaged removes staged copies from the directories they were made
// in.
func removeStaged(sts []staged) {
	for _, st := range sts {
		st.dir.Remove(filepath.Base(st.tmp))
	}
}

// abort removes everything staged: nothing is written.
func (w *writing) abort(err error) error {
	removeStaged(w.done)
	for _, st := range w.theirs {
		st.Discard()
	}
	return fmt.Errorf("%s; nothing written", untrusted.Escape(err.Error()))
}

// commit puts every staged file in place, saying each; a failure says how
// many were written before it and removes the rest.
func (w *writing) commit(edits []treeEdit) error {
	total := len(w.done) + len(w.theirs)
	for i, st := range w.done {
		if err := st.root.Rename(st.tmp, st.name); err != nil {
			removeStaged(w.done[i:])
			for _, rest := range w.theirs {
				rest.Discard()
			}
			return fmt.Errorf("%s (written before the failure: %d of %d files)", untrusted.Escape(err.Error()), i, total)
		}
		fmt.Fprintf(w.notes, "wrote %s\n", untrusted.Escape(st.show))
	}
	for i, st := range w.theirs {
		if _, err := st.Commit(); err != nil {
			for _, rest := range w.theirs[i+1:] {
				rest.Discard()
			}
			return fmt.Errorf("%s (written before the failure: %d of %d files)", untrusted.Escape(err.Error()), len(w.done)+i, total)
		}
		fmt.Fprintf(w.notes, "wrote %s\n", untrusted.Escape(filepath.Join(w.target, edits[i].rel)))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// osPath is where a file of the OS half is installed on a host, relative
// to its root.
func osPath(p string) string {
	switch {
	case strings.HasPrefix(p, "sysctl.d/"):
		return "etc/" + p
	case strings.HasPrefix(p, "systemd/"):
		return "etc/systemd/system/" + strings.TrimPrefix(p, "systemd/")
	case strings.HasPrefix(p, "letsencrypt/"):
		return "etc/" + p
	}
	return p
}

// linkUnder returns the first symbolic link on the way from dir to
// dir/rel (the file itself included), "" when there is none.
func linkUnder(dir, rel string) string {
	p := dir
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		p = filepath.Join(p, part)
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}
