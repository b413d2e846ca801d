// Package loader reads an nginx configuration as nginx does: a main file, a
// directory, an nginx -T dump or standard input, each file parsed once
// (package parser) and every include resolved (globs, symbolic links, path
// maps, the guessed prefix of a fragment), within the tree's boundary:
// nothing outside the tree, its path maps and the directories the caller
// allows is read, listed or told of. It checks what needs the whole tree
// (include cycles, the events block, bounds on what a walk meets) and
// returns the files and what reading found in a Tree.
package loader

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// PathMap maps an absolute directory named in the configuration (as it is on
// the server, e.g. /etc/nginx) onto a local directory (e.g. ./deploy/nginx).
type PathMap struct {
	From string
	To   string
}

// ParsePathMap reads "FROM=TO".
func ParsePathMap(s string) (PathMap, error) {
	from, to, ok := strings.Cut(s, "=")
	if !ok || from == "" || to == "" || !strings.HasPrefix(from, "/") {
		return PathMap{}, fmt.Errorf("path map %q: want /ABSOLUTE/DIR=LOCAL/DIR", s)
	}
	return PathMap{From: filepath.Clean(from), To: to}, nil
}

// The kinds of what loading finds besides a file's syntax (parser.Syntax),
// in finding.Diagnostic.Rule: each is the id of the rule that reports it.
const (
	IncludeMissing     = "include-missing"      // a file or directory an include names is missing or unreadable, or the tree is cut
	IncludeCycle       = "include-cycle"        // an include leads back to a file being read
	IncludeOutsideTree = "include-outside-tree" // an include names files outside the tree, which are not read
)

// Options control Load.
type Options struct {
	// Prefix is the directory relative include paths are resolved against,
	// as nginx's -p/-c prefix; empty means the directory of the root file.
	Prefix string
	// Maps rewrite absolute paths before files are read.
	Maps []PathMap
	// Stdin is read when the path is "-".
	Stdin io.Reader
	// Extra names directives of modules nginxtune does not know, so that a
	// line starting with one is recognised as a statement of its own.
	Extra []string
	// Live is set when the tree is the configuration nginx runs on this
	// machine: a missing absolute include is then an error for sure, where
	// in a copy it may only be missing from the copy, and files outside the
	// configuration directory (Debian's modules, certbot's options) are
	// read as nginx reads them.
	Live bool
	// Overlay holds file contents by real absolute path, read in place of
	// the file on disk (an editor's unsaved buffers). A file must still
	// exist on disk to be found.
	Overlay map[string][]byte
	// AllowOutside lists directories outside the linted tree whose files an
	// include may read. Without it, a tree that is not live reads nothing
	// outside its directory and the path maps: a configuration from a pull
	// request must not read the runner's files.
	AllowOutside []string
	// Reuse, when set, keeps the files this load parses for the next loads
	// that share it, and gives back those of the last loads that are the
	// same file with the same text: only what changed is parsed again (an
	// editor's analyses, one a keystroke). See Reuse for what it keeps.
	Reuse *Reuse
}

// Tree is a loaded configuration: the root files, every file read, and the
// problems found while reading.
type Tree struct {
	Roots       []*parser.File
	Files       []*parser.File
	Diagnostics []finding.Diagnostic
	// Dump is set when the input was the output of nginx -T.
	Dump bool
	// Inferred lists path maps guessed for absolute includes that did not
	// exist as written but did below the configuration directory.
	Inferred []PathMap
	// Dir is the directory of the configuration (its prefix); Outside lists
	// the files read from outside it and outside every path map, such as a
	// live /etc/nginx reached from a copy through an absolute include or
	// link. Callers say so once.
	Dir     string
	Outside []string
	// Unreadable lists files that exist but could not be read (permissions,
	// a directory where a file was expected): the tree was not read whole,
	// and no finding about it can be trusted.
	Unreadable []string

	byPath map[string]*parser.File
	// notRead holds the includes that left something unread
	notRead map[*parser.Directive]bool
	// what Statements and Visits return, counted while loading (counted
	// is unset for a Tree made otherwise)
	statements, visits int
	counted            bool
}

// NotRead reports whether an include left something unread: a file outside
// the tree, missing from a copy, or past a bound. What it would have set is
// unknown, so rules make no claim that it is unset.
func (t *Tree) NotRead(include *parser.Directive) bool { return t.notRead[include] }

// HasUnread reports whether any include left something unread.
func (t *Tree) HasUnread() bool { return len(t.notRead) > 0 }

// File returns the loaded file with the given path, or nil.
func (t *Tree) File(p string) *parser.File { return t.byPath[p] }

// ErrNoConfig is returned when a directory holds no configuration files.
var ErrNoConfig = errors.New("no nginx.conf and no *.conf files")

// source abstracts where file contents come from: the file system or the
// files of an nginx -T dump.
type source interface {
	read(p string) ([]byte, error)
	glob(pattern string) ([]string, error)
	exists(p string) bool
	isDir(p string) bool
	// onDisk reports whether paths are this machine's: then links are
	// resolved, files identified by device and inode, and the tree's
	// boundary checked (an nginx -T dump and an fs.FS have no outside).
	onDisk() bool
}

type osSource struct{}

func (osSource) onDisk() bool { return true }

// Limits on what one lint reads: a configuration is untrusted input.
const (
	// MaxTreeBytes is the most one tree may hold, all files together.
	MaxTreeBytes = 64 << 20
	// MaxDirectiveVisits bounds the directives a walk of the tree meets,
	// counting a file once per place that includes it: a file included
	// twice by each of 30 nested files would otherwise be met 2^30 times.
	MaxDirectiveVisits = 5_000_000
	// MaxFileInstances bounds the files a walk of the tree meets, a file
	// once per place that includes it.
	MaxFileInstances = 100_000
	// MaxGlobMatches bounds the paths one include pattern may match.
	MaxGlobMatches = 10_000
)

// ErrNotRegular is returned for a path that is not a regular file (a FIFO,
// a device, a directory) or lies in /proc, /sys or /dev: nginxtune never
// reads one, whatever it names.
var ErrNotRegular = errors.New("not a regular file; not read")

// ErrTooLarge is returned when a file would take the tree past MaxTreeBytes.
var ErrTooLarge = errors.New("the configuration would exceed " + strconv.Itoa(MaxTreeBytes>>20) + " MiB; not read")

// ErrOutside is returned for a file outside the linted tree.
var ErrOutside = errors.New("outside the linted tree; not read")

// systemDirs hold kernel and device files, never configuration.
var systemDirs = []string{"/proc", "/sys", "/dev"}

func isSystemPath(p string) bool {
	for _, d := range systemDirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

func (osSource) read(p string) ([]byte, error) { return readOS(p, nil) }

// readOS reads the regular file p. st is what a stat of p said, when the
// caller has it (the loader's lstat of a real path); else p is stat'ed here.
func readOS(p string, st os.FileInfo) ([]byte, error) {
	if isSystemPath(p) {
		return nil, ErrNotRegular
	}
	if st == nil {
		var err error
		if st, err = os.Stat(p); err != nil {
			return nil, err
		}
	}
	if !st.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	if st.Size() > MaxTreeBytes {
		return nil, ErrTooLarge
	}
	// Plain system calls: os.Open would first offer the file to the
	// network poller (four fcntl calls and an epoll_ctl that fails for a
	// regular file), more than the reading itself for a small file.
	// O_NONBLOCK: should the file have become a FIFO since the stat, opening
	// it does not wait for a writer.
	fd, err := boundedread.IgnoringEINTR(func() (int, error) {
		return syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC|boundedread.ONonblock, 0)
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer syscall.Close(fd)
	// one buffer of the size stat gave and a byte more, to see the end (a
	// file that grew meanwhile is read on to its end, still cut at the
	// limit; one that shrank, to its end)
	b, err := boundedread.ReadFD(fd, make([]byte, 0, st.Size()+1), MaxTreeBytes)
	if errors.Is(err, boundedread.ErrTooLong) {
		return nil, ErrTooLarge
	}
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	return b, nil
}

func (osSource) glob(pattern string) ([]string, error) { return globOS(pattern) }

func (osSource) exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (osSource) isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// fileID is a file's device and inode.
type fileID struct{ dev, ino uint64 }

type loader struct {
	bytes int // read so far
	byID  map[fileID]*parser.File
	// noMain is set when a fragment was loaded with no nginx.conf above it:
	// its relative includes resolve against a guess of nginx's prefix.
	noMain bool
	opt    Options
	src    source
	tree   *Tree
	prefix string
	state  map[*parser.File]int // 0 new, 1 expanding, 2 done
	// reals caches realPath: every directory is resolved once, and a
	// glob's files once for the prefetch and again when they are included
	reals map[string]string
	// stats keeps what realPath's lstat said of a real path that is not a
	// link (the same as a stat): size and identity without another call
	stats map[string]os.FileInfo
	// pre holds files an include pattern matched, read and parsed ahead in
	// parallel (prefetch), by real path; file() takes them from here
	pre map[string]*prefetched
	// rootPath and rootSrc are the main file as Load read it to tell an
	// nginx -T dump from a configuration (by the path Load gives file):
	// read once
	rootPath string
	rootSrc  []byte
	// globs keeps what an include pattern expanded to, by local pattern
	globs map[string][]string
	// bounds are directories besides the prefix that the tree's files may
	// lie in (the main file's, checked by rootInside before a prefix is
	// known); bounded caches each boundary directory's given and real form
	bounds  []string
	bounded map[string][2]string
	// with Options.Reuse: the root files as named (never reused, since
	// their context is settled), and the syntax error each parse found;
	// when the load started, and the files taken unread (Reuse.unchanged)
	roots  map[string]bool
	syntax map[*parser.File]*finding.Diagnostic
	start  time.Time
	unread map[*parser.File]bool
	// what a walk of a file with a syntax error meets (shape), and the
	// files an include of another file read
	shapes   map[*parser.File]*parser.Walked
	included map[*parser.File]bool
}

// prefetched is a file read and parsed ahead of its turn.
type prefetched struct {
	f    *parser.File
	diag *finding.Diagnostic
	err  error
	// reused: f is a file Options.Reuse kept, not parsed here
	reused bool
}

// Load reads the configuration at p: a main file, a directory (its
// nginx.conf, or else every *.conf below it), an nginx -T dump, or "-" for
// standard input. The returned error is set only when nothing could be read;
// syntax errors and include problems are in Tree.Diagnostics.
func Load(p string, opt Options) (*Tree, error) {
	l := &loader{opt: opt, src: osSource{}, state: map[*parser.File]int{},
		tree: &Tree{byPath: map[string]*parser.File{}}}
	if opt.Reuse != nil {
		opt.Reuse.mu.Lock()
		defer opt.Reuse.mu.Unlock()
		l.roots, l.syntax = map[string]bool{}, map[*parser.File]*finding.Diagnostic{}
		l.start, l.unread = time.Now(), map[*parser.File]bool{}
	}
	var roots []string
	switch {
	case p == "-":
		r := opt.Stdin
		if r == nil {
			r = os.Stdin
		}
		b, err := io.ReadAll(io.LimitReader(r, MaxTreeBytes+1))
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		if len(b) > MaxTreeBytes {
			return nil, fmt.Errorf("standard input: more than %d MiB; not read", MaxTreeBytes>>20)
		}
		if isDump(b) {
			return l.loadDump(b)
		}
		f, d := parser.Parse("<stdin>", b)
		l.add(f, d)
		roots = []string{f.Path}
		l.prefix = opt.Prefix
		if l.prefix == "" {
			l.prefix, _ = os.Getwd()
		}
	default:
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		// The file named, or a link in place of it, obeys the boundary every
		// include does, checked before anything outside is looked at: a
		// checkout's nginx.conf that is a link to /etc/passwd is not read,
		// and whether its target exists is not told.
		// (a loader of its own: no prefix is known yet, and what it resolves
		// is not kept)
		early := &loader{opt: opt, src: osSource{}, tree: &Tree{}}
		if err := early.rootInside(abs, filepath.Dir(abs), ancestorMain(filepath.Dir(abs)), opt.Prefix); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, unwrapPathErr(err))
		}
		if st.IsDir() {
			main := filepath.Join(abs, "nginx.conf")
			if fi, err := os.Stat(main); err == nil && !fi.IsDir() {
				roots = []string{main}
			} else {
				roots, err = confFiles(abs)
				if err != nil {
					return nil, err
				}
				if len(roots) == 0 {
					return nil, fmt.Errorf("%s: %w", p, ErrNoConfig)
				}
			}
			l.prefix = abs
			if len(roots) > 0 && filepath.Base(roots[0]) != "nginx.conf" {
				if main := ancestorMain(filepath.Dir(abs)); main != "" {
					l.prefix = main
				}
			}
		} else {
			b, err := readOS(abs, st)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, unwrapPathErr(err))
			}
			if o, ok := opt.Overlay[abs]; ok {
				b = o
			}
			if isDump(b) {
				return l.loadDump(b)
			}
			l.rootPath, l.rootSrc = abs, b
			roots = []string{abs}
			l.prefix = filepath.Dir(abs)
			if filepath.Base(abs) != "nginx.conf" {
				// a fragment's relative includes are relative to nginx's
				// prefix, the directory of the main nginx.conf above it
				if main := ancestorMain(l.prefix); main != "" {
					l.prefix = main
				} else {
					l.noMain = true
				}
			}
		}
		if opt.Prefix != "" {
			l.prefix, _ = filepath.Abs(opt.Prefix)
		}
	}
	l.tree.Dir = l.prefix
	for _, r := range roots {
		if l.roots != nil {
			l.roots[r] = true
		}
	}
	for _, r := range roots {
		if r != "<stdin>" {
			if err := l.rootInside(r, l.prefix); err != nil {
				return nil, fmt.Errorf("%s: %w", r, err)
			}
		}
		if _, err := l.file(r); err != nil {
			return nil, fmt.Errorf("%s: %w", r, unwrapPathErr(err))
		}
	}
	l.finish(roots)
	if opt.Reuse != nil {
		opt.Reuse.keep(l, roots)
	}
	return l.tree, nil
}

// ErrRootOutside is returned for a main file that is a link to a file
// outside the linted tree.
var ErrRootOutside = errors.New("a link to a file outside the linted tree; not read (lint the file it points to, or give --allow-outside with its directory)")

// rootInside checks a main file named on the command line (or found in a
// linted directory) against the tree: its real path must lie below one of
// dirs (the directory it was named in, the tree's; their own links
// resolved), a path map, or an allowed directory. The live tree reads what
// nginx reads.
func (l *loader) rootInside(p string, dirs ...string) error {
	if l.opt.Live {
		return nil
	}
	l.bounds = append(l.bounds, dirs...)
	real := l.realPath(p)
	if l.allowed(real) {
		return nil
	}
	for _, dir := range dirs {
		if l.under(real, dir) {
			return nil
		}
	}
	for _, m := range l.opt.Maps {
		if l.under(real, m.To) {
			return nil
		}
	}
	return ErrRootOutside
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// confFiles lists *.conf files below dir, skipping hidden directories.
func confFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != dir && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".conf") && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// add registers a parsed file and its syntax error, if any.
func (l *loader) add(f *parser.File, d *finding.Diagnostic) {
	l.tree.byPath[f.Path] = f
	l.tree.Files = append(l.tree.Files, f)
	if d != nil {
		l.tree.Diagnostics = append(l.tree.Diagnostics, *d)
	}
}

// file returns the parsed file at the local path p, reading it once: a
// file reached by several paths (links, linked directories) is one file.
func (l *loader) file(p string) (*parser.File, error) {
	if f, ok := l.tree.byPath[p]; ok {
		return f, nil
	}
	real := p
	if l.src.onDisk() {
		real = l.realPath(p)
		if f, ok := l.tree.byPath[real]; ok {
			l.tree.byPath[p] = f
			return f, nil
		}
	}
	if l.src.onDisk() && len(l.tree.Files) > 0 && !l.opt.Live && !l.inside(real) && !l.allowed(real) {
		return nil, ErrOutside
	}
	var id fileID
	var st os.FileInfo
	if l.src.onDisk() {
		// a file with several hard links is one file too
		var err error
		if st, err = l.stat(real); err == nil {
			if sys, ok := st.Sys().(*syscall.Stat_t); ok {
				id = fileID{uint64(sys.Dev), sys.Ino}
				if f, ok := l.byID[id]; ok {
					l.tree.byPath[p] = f
					return f, nil
				}
			}
		}
	}
	pf := l.pre[real]
	delete(l.pre, real)
	var b []byte
	var err error
	if o, ok := l.opt.Overlay[real]; ok {
		b, pf = o, nil
	} else if l.rootSrc != nil && p == l.rootPath {
		b, pf = l.rootSrc, nil
		l.rootSrc = nil
	} else if pf != nil {
		b, err = pf.f.Src, pf.err
	} else if rf, rd := l.unchanged(real, st); rf != nil && l.reusable(rf, p, real, id) {
		// kept by Options.Reuse and unchanged since: not read again
		b, pf = rf.Src, &prefetched{f: rf, diag: rd, reused: true}
		l.unread[rf] = true
	} else if _, ok := l.src.(osSource); ok && st != nil {
		b, err = readOS(real, st) // without stat'ing it again
	} else {
		b, err = l.src.read(real)
	}
	if err != nil {
		return nil, err
	}
	if l.bytes += len(b); l.bytes > MaxTreeBytes {
		return nil, ErrTooLarge
	}
	var f *parser.File
	var diag *finding.Diagnostic
	// a file kept by Options.Reuse is shared with the trees of other
	// loads: nothing below writes to it
	shared := false
	switch {
	case pf != nil && !pf.reused:
		f, diag = pf.f, pf.diag
		f.Path = real
		if diag != nil {
			diag.File = real
		}
	case pf != nil && l.reusable(pf.f, p, real, id):
		f, diag, shared = pf.f, pf.diag, true
	default:
		if rf, rd := l.take(real, b); rf != nil && l.reusable(rf, p, real, id) {
			f, diag, shared = rf, rd, true
		} else {
			f, diag = parser.Parse(real, b)
		}
	}
	if l.syntax != nil && diag != nil {
		l.syntax[f] = diag
	}
	if id != (fileID{}) {
		if !shared {
			f.Dev, f.Ino = id.dev, id.ino
		}
		if l.byID == nil {
			l.byID = map[fileID]*parser.File{}
		}
		l.byID[id] = f
	}
	if real != p {
		if !shared {
			f.Via = p
		}
		l.tree.byPath[p] = f
	}
	l.add(f, diag)
	if l.src.onDisk() && !l.opt.Live && !l.inside(real) && len(l.tree.Files) > 1 {
		l.tree.Outside = append(l.tree.Outside, real)
	}
	return f, nil
}

// take is Options.Reuse's file for the real path and bytes, when this load
// holds the Reuse (Load does; LoadFS and a dump's files do not use it).
func (l *loader) take(real string, b []byte) (*parser.File, *finding.Diagnostic) {
	if l.roots == nil || !l.src.onDisk() {
		return nil, nil
	}
	return l.opt.Reuse.take(real, b)
}

// unchanged is Options.Reuse's file for the real path when a stat says it
// is unchanged since the load that read it (Reuse.unchanged), when this
// load holds the Reuse.
func (l *loader) unchanged(real string, st os.FileInfo) (*parser.File, *finding.Diagnostic) {
	if l.roots == nil || st == nil {
		return nil, nil
	}
	if _, ok := l.src.(osSource); !ok {
		return nil, nil
	}
	return l.opt.Reuse.unchanged(real, st)
}

// reusable reports whether a file Options.Reuse kept (the same real path
// and bytes) stands for the file read at p: the same file on disk under
// the same name, not a root.
func (l *loader) reusable(f *parser.File, p, real string, id fileID) bool {
	via := ""
	if real != p {
		via = p
	}
	return id != (fileID{}) && f.Dev == id.dev && f.Ino == id.ino && f.Via == via && f.Path == real &&
		!l.roots[p] && !l.roots[real] && f.Context == nil
}

// finish expands includes from every root, settles root contexts, and runs
// the checks that need the whole tree. None of it walks the files' statements:
// the scanner noted what a walk meets (its size, its include directives:
// parser.Walked), which is all the include expansion, the bounds and the
// counts need.
func (l *loader) finish(roots []string) {
	for _, r := range roots {
		f := l.tree.byPath[r]
		l.expand(f)
	}
	for _, r := range roots {
		f := l.tree.byPath[r]
		// In a directory without nginx.conf, a file that another one
		// includes is linted through that one, not on its own.
		if len(roots) > 1 && l.included[f] {
			continue
		}
		parser.SettleContext(f)
		l.tree.Roots = append(l.tree.Roots, f)
	}
	if len(l.tree.Roots) == 0 && len(roots) > 0 { // every file is in a cycle
		f := l.tree.byPath[roots[0]]
		parser.SettleContext(f)
		l.tree.Roots = append(l.tree.Roots, f)
	}
	l.boundVisits()
	for _, r := range l.tree.Roots {
		l.checkEvents(r)
	}
	extra := map[string]bool{}
	for _, e := range l.opt.Extra {
		extra[e] = true
	}
	known := func(name string) bool { return knowledge.IsDirective(name) || extra[name] }
	for _, f := range l.tree.Files {
		l.tree.Diagnostics = append(l.tree.Diagnostics, parser.FileFindings(f, known)...)
	}
	parser.SortDiagnostics(l.tree.Diagnostics)
}

// expand resolves the include directives of f and of the files they name,
// depth first; an include that leads back to a file being expanded is a
// cycle and is not followed.
func (l *loader) expand(f *parser.File) {
	if l.state[f] != 0 {
		return
	}
	l.state[f] = 1
	for _, inc := range l.shape(f).Includes {
		l.expandInclude(f, inc.D)
	}
	l.state[f] = 2
}

// expandInclude resolves the include directive d of f and expands the
// files it reads.
func (l *loader) expandInclude(f *parser.File, d *parser.Directive) {
	paths := l.resolve(d)
	l.prefetch(paths)
	// files the pattern matched inside the tree that are links to files
	// outside it: one finding for the include, naming where they point
	var outside []string
	defer func() {
		if len(outside) == 0 {
			return
		}
		dirs := map[string]bool{}
		var list []string
		for _, p := range outside {
			if dir := filepath.Dir(l.realPath(p)); !dirs[dir] {
				dirs[dir] = true
				list = append(list, dir)
			}
		}
		what := untrusted.Clip(l.display(outside[0])) + " is a link"
		if len(outside) > 1 {
			what = fmt.Sprintf("%d of the files it matches (%s, ...) are links", len(outside), untrusted.Clip(l.display(outside[0])))
		}
		l.diag(d, IncludeOutsideTree, finding.Info, "include %q: %s to files outside the linted tree (in %s); not read: they name the server's files, which nginx reads there, and findings that depend on them are missing (\"# nginxtune:disable include-outside-tree -- the server's files\" above the include says so once)",
			untrusted.Clip(d.Arg(0)), what, untrusted.Clip(strings.Join(list, ", ")))
	}()
	for _, p := range paths {
		inc, err := l.file(p)
		switch {
		case errors.Is(err, ErrOutside):
			outside = append(outside, p)
			continue
		case err != nil:
			l.diag(d, IncludeMissing, finding.Error, "include %q: cannot read %s: %v", untrusted.Clip(d.Arg(0)), untrusted.Clip(l.display(p)), unwrapPathErr(err))
			l.tree.Unreadable = append(l.tree.Unreadable, p)
			continue
		}
		if l.state[inc] == 1 && l.throughInferred(d.Arg(0)) {
			continue // a guessed map, not the configuration, leads back: the guess is wrong here
		}
		if l.state[inc] == 1 {
			l.diag(d, IncludeCycle, finding.Error, "include %q leads back to %s, which is already being read: nginx would include it again and again", untrusted.Clip(d.Arg(0)), l.display(inc.Path))
			continue
		}
		d.SetIncludes(append(d.Includes(), inc))
		if inc != f {
			if l.included == nil {
				l.included = map[*parser.File]bool{}
			}
			l.included[inc] = true
		}
		l.expand(inc)
	}
}

func (l *loader) diag(d *parser.Directive, kind string, sev finding.Severity, format string, args ...any) {
	// what an include left unread may set anything, unless nginx would
	// refuse the tree anyway (an error) or it is a stock file whose content
	// every package ships (mime.types, fastcgi_params)
	if d.Name == "include" && (kind == IncludeOutsideTree || kind == IncludeMissing && sev == finding.Info && !knowledge.IsPackageFile(filepath.Base(d.Arg(0)))) {
		if l.tree.notRead == nil {
			l.tree.notRead = map[*parser.Directive]bool{}
		}
		l.tree.notRead[d] = true
	}
	l.tree.Diagnostics = append(l.tree.Diagnostics, finding.Diagnostic{
		Rule: kind, Severity: sev, File: d.File.Path, Line: int(d.Line), Col: int(d.Col), Offset: int(d.Start),
		Message: fmt.Sprintf(format, args...),
	})
}

// display names a local path in messages: relative to the configuration
// directory when it is below it, as a user reads include paths.
func (l *loader) display(p string) string {
	if l.tree.Dump || l.prefix == "" {
		return p
	}
	if r, err := filepath.Rel(l.prefix, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// checkEvents reports a main file without an events block: nginx -t fails
// with "no "events" section in configuration". A main file is a root read
// in the main context that holds a main-only block (http, stream, mail,
// worker_processes), an empty nginx.conf, or the main file of a dump.
func (l *loader) checkEvents(r *parser.File) {
	if r.ContextSource != "root" || r.Broken {
		return
	}
	// an empty nginx.conf is a main file; one holding only server blocks
	// is a fragment named like one
	main := l.tree.Dump || filepath.Base(r.Path) == "nginx.conf" && len(r.Directives) == 0
	hasEvents := false
	var visit func(dirs []*parser.Directive, depth int)
	visit = func(dirs []*parser.Directive, depth int) {
		for _, d := range dirs {
			// a directive that swallowed "events" (a missing ";" before
			// it): the glued statement is the cause, reported once
			for _, a := range d.Args {
				if a.Value == "events" && a.Quote == 0 {
					hasEvents = true
				}
			}
			switch d.Name {
			case "events":
				hasEvents = true
			case "http", "stream", "mail", "worker_processes":
				main = true
			case "include":
				if depth < 16 {
					for _, inc := range d.Includes() {
						if inc.Broken {
							hasEvents = true // cannot tell
						}
						visit(inc.Directives, depth+1)
					}
				}
				if len(d.Includes()) == 0 {
					hasEvents = true // an include nginxtune could not read may hold it
				}
			}
		}
	}
	visit(r.Directives, 0)
	if !main || hasEvents {
		return
	}
	l.tree.Diagnostics = append(l.tree.Diagnostics, finding.Diagnostic{
		Rule: parser.Syntax, Severity: finding.Error, File: r.Path, Line: 1, Col: 1,
		Message: noEvents,
	})
}

const noEvents = `no "events" block in the main file: nginx -t fails with "no \"events\" section in configuration"; add "events {}"`

// NoEvents reports whether d is a main file's missing events block: an
// error of the configuration, not of the file's text (which reads whole,
// and fmt lays out).
func NoEvents(d finding.Diagnostic) bool { return d.Rule == parser.Syntax && d.Message == noEvents }

// boundVisits counts the directives a walk of the tree meets, a file once
// per place that includes it, and when the count passes MaxDirectiveVisits
// reports the include that amplifies most and cuts every include, so that
// no rule walks an exponential tree: the tree was not read whole (exit 2).
func (l *loader) boundVisits() {
	// from each file's shape, in the order and with the cut-offs of a walk
	// of its directives (WalkFile), without walking them again
	memo := map[*parser.File]int{}
	var cost func(f *parser.File, depth int) int
	cost = func(f *parser.File, depth int) int {
		if n, ok := memo[f]; ok {
			return n
		}
		memo[f] = MaxDirectiveVisits + 1 // a path back here is a cycle already cut; count it as too much
		sh := l.shape(f)
		added := 0 // by the includes so far
		for _, inc := range sh.Includes {
			n := inc.At + added
			for _, f := range inc.D.Includes() {
				if n <= MaxDirectiveVisits {
					c := cost(f, depth+1)
					n += c
					added += c
				}
			}
		}
		memo[f] = min(sh.Directives+added, MaxDirectiveVisits+1)
		return memo[f]
	}
	// file instances: a file counted once per place that includes it
	// (2,000 includes of a pattern that matches 2,000 small files stay
	// under the directive bound but make every rule walk 4 million files)
	inst := map[*parser.File]int{}
	var instances func(f *parser.File) int
	instances = func(f *parser.File) int {
		if n, ok := inst[f]; ok {
			return n
		}
		inst[f] = MaxFileInstances + 1
		n := 1
		for _, inc := range l.shape(f).Includes {
			for _, f := range inc.D.Includes() {
				if n <= MaxFileInstances {
					n += instances(f)
				}
			}
		}
		inst[f] = min(n, MaxFileInstances+1)
		return inst[f]
	}
	total, files := 0, 0
	for _, r := range l.tree.Roots {
		total += cost(r, 0)
		files += instances(r)
	}
	l.tree.statements, l.tree.counted = 0, true
	for _, f := range l.tree.Files {
		l.tree.statements += l.shape(f).Directives
	}
	if total <= MaxDirectiveVisits && files <= MaxFileInstances {
		l.tree.visits = total
		return
	}
	// every include is cut below: a walk meets the roots' own directives
	l.tree.visits = 0
	for _, r := range l.tree.Roots {
		l.tree.visits += l.shape(r).Directives
	}
	if total <= MaxDirectiveVisits {
		memo = inst // name the include that multiplies files most
	}
	var worst *parser.Directive
	worstN := 0
	for _, f := range l.tree.Files {
		parser.WalkFile(f.Directives, func(d *parser.Directive) {
			if len(d.Includes()) > 0 {
				n := 0
				for _, inc := range d.Includes() {
					n += memo[inc]
				}
				if n > worstN || worst == nil {
					worst, worstN = d, n
				}
			}
		})
	}
	for _, f := range l.tree.Files {
		parser.WalkFile(f.Directives, func(d *parser.Directive) {
			if len(d.Includes()) > 0 {
				d.SetIncludes(nil)
			}
		})
	}
	if worst != nil && total <= MaxDirectiveVisits {
		l.diag(worst, IncludeMissing, finding.Error, "include %q: the tree expands to more than %d files when every file is counted once per place that includes it; nginxtune stops here (includes not followed)", untrusted.Clip(worst.Arg(0)), MaxFileInstances)
		l.tree.Unreadable = append(l.tree.Unreadable, worst.File.Path)
	} else if worst != nil {
		l.diag(worst, IncludeMissing, finding.Error, "include %q: the tree expands to more than %d directives when every file is counted once per place that includes it; nginxtune stops here (includes not followed)", untrusted.Clip(worst.Arg(0)), MaxDirectiveVisits)
		l.tree.Unreadable = append(l.tree.Unreadable, worst.File.Path)
	}
}

// shape is what a walk of f meets: what the scanner noted (parser.Walked),
// or for a file with a syntax error, a walk of what it holds.
func (l *loader) shape(f *parser.File) *parser.Walked {
	if w := f.Walked(); w != nil {
		return w
	}
	if sh := l.shapes[f]; sh != nil {
		return sh
	}
	sh := &parser.Walked{}
	parser.WalkFile(f.Directives, func(d *parser.Directive) {
		sh.Directives++
		if d.Name == "include" {
			sh.Includes = append(sh.Includes, parser.Include{D: d, At: sh.Directives})
		}
	})
	if l.shapes == nil {
		l.shapes = map[*parser.File]*parser.Walked{}
	}
	l.shapes[f] = sh
	return sh
}

// prefetch reads and parses, in parallel, the files an include pattern
// matched that the tree does not hold yet. Only regular files inside the
// tree (or allowed) are read, within the tree's byte budget; what is left
// out is read in turn by file(), which also makes every decision (limits,
// links, order of Files and diagnostics) as if nothing had been read ahead.
// prefetchMin is the size of the files one include matches below which
// they are read one after another: on Debian's stock tree (a dozen files,
// 20 KB) no second thread then has to start. (A variable so that tests can
// read small trees in parallel too.)
var prefetchMin = 256 << 10

func (l *loader) prefetch(paths []string) {
	if !l.src.onDisk() || len(paths) < 2 || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	var todo []string
	budget := MaxTreeBytes - l.bytes
	for _, p := range paths {
		if _, ok := l.tree.byPath[p]; ok {
			continue
		}
		real := l.realPath(p)
		if _, ok := l.tree.byPath[real]; ok || l.pre[real] != nil || isSystemPath(real) {
			continue
		}
		if len(l.tree.Files) > 0 && !l.opt.Live && !l.inside(real) && !l.allowed(real) {
			continue
		}
		st, err := l.stat(real)
		if err != nil || !st.Mode().IsRegular() || st.Size() > int64(budget) {
			continue
		}
		if f, _ := l.unchanged(real, st); f != nil {
			continue // file() takes it, unread
		}
		budget -= int(st.Size())
		todo = append(todo, real)
	}
	if len(todo) < 2 || MaxTreeBytes-l.bytes-budget < prefetchMin {
		return // a few small files: starting threads to read them costs more than reading them
	}
	out := make([]*prefetched, len(todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				b, err := osSource{}.read(todo[i])
				pf := &prefetched{f: &parser.File{Src: b}, err: err}
				if _, ok := l.opt.Overlay[todo[i]]; ok || err != nil {
					// file() reads the overlay; a failed read is its error
				} else if rf, rd := l.take(todo[i], b); rf != nil {
					pf.f, pf.diag, pf.reused = rf, rd, true
				} else {
					pf.f, pf.diag = parser.Parse("", b)
				}
				out[i] = pf
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	if l.pre == nil {
		l.pre = map[string]*prefetched{}
	}
	for i, r := range todo {
		l.pre[r] = out[i]
	}
}
