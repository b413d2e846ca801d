package parser

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"
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
	// AllowOutside lists directories outside the linted tree whose files an
	// include may read. Without it, a tree that is not live reads nothing
	// outside its directory and the path maps: a configuration from a pull
	// request must not read the runner's files.
	AllowOutside []string
}

// Tree is a loaded configuration: the root files, every file read, and the
// problems found while reading.
type Tree struct {
	Roots       []*File
	Files       []*File
	Diagnostics []Diagnostic
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

	byPath map[string]*File
}

// File returns the loaded file with the given path, or nil.
func (t *Tree) File(p string) *File { return t.byPath[p] }

// ErrNoConfig is returned when a directory holds no configuration files.
var ErrNoConfig = errors.New("no nginx.conf and no *.conf files")

// source abstracts where file contents come from: the file system or the
// files of an nginx -T dump.
type source interface {
	read(p string) ([]byte, error)
	glob(pattern string) ([]string, error)
	exists(p string) bool
	isDir(p string) bool
}

type osSource struct{}

// Limits on what one lint reads: a configuration is untrusted input.
const (
	// MaxTreeBytes is the most one tree may hold, all files together.
	MaxTreeBytes = 64 << 20
	// MaxDirectiveVisits bounds the directives a walk of the tree meets,
	// counting a file once per place that includes it: a file included
	// twice by each of 30 nested files would otherwise be met 2^30 times.
	MaxDirectiveVisits = 5_000_000
	// MaxGlobMatches bounds the paths one include pattern may match.
	MaxGlobMatches = 10_000
)

// ErrNotRegular is returned for a path that is not a regular file (a FIFO,
// a device, a directory) or lies in /proc, /sys or /dev: nginxtune never
// reads one, whatever it names.
var ErrNotRegular = errors.New("not a regular file; not read")

// ErrTooLarge is returned when a file would take the tree past MaxTreeBytes.
var ErrTooLarge = fmt.Errorf("the configuration would exceed %d MiB; not read", MaxTreeBytes>>20)

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

func (osSource) read(p string) ([]byte, error) {
	if isSystemPath(p) {
		return nil, ErrNotRegular
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	if st.Size() > MaxTreeBytes {
		return nil, ErrTooLarge
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// one buffer of the size stat gave (a file that grew meanwhile is read
	// on to its end, still cut at the limit; one that shrank, to its end)
	b := make([]byte, st.Size())
	n, err := io.ReadFull(f, b)
	b = b[:n]
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return b, nil
	}
	if err != nil {
		return nil, err
	}
	rest, err := io.ReadAll(io.LimitReader(f, MaxTreeBytes+1-int64(n)))
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		b = append(b, rest...)
	}
	if len(b) > MaxTreeBytes {
		return nil, ErrTooLarge
	}
	return b, nil
}
func (osSource) glob(pattern string) ([]string, error) { return filepath.Glob(pattern) }
func (osSource) exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
func (osSource) isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

type dumpSource struct {
	files map[string][]byte
	order []string
}

func (d *dumpSource) read(p string) ([]byte, error) {
	if b, ok := d.files[p]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("open %s: not in the nginx -T output", p)
}
func (d *dumpSource) glob(pattern string) ([]string, error) {
	var out []string
	for _, p := range d.order {
		if ok, err := path.Match(pattern, p); err != nil {
			return nil, err
		} else if ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}
func (d *dumpSource) exists(p string) bool { _, ok := d.files[p]; return ok }
func (d *dumpSource) isDir(p string) bool {
	prefix := strings.TrimSuffix(p, "/") + "/"
	for _, f := range d.order {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

const dumpMarker = "# configuration file "

// splitDump splits nginx -T output into its files. Lines before the first
// "# configuration file PATH:" line (nginx's own messages) are skipped.
func splitDump(b []byte) (*dumpSource, bool) {
	d := &dumpSource{files: map[string][]byte{}}
	var cur string
	var buf bytes.Buffer
	flush := func() {
		if cur != "" {
			content := buf.Bytes()
			// nginx -T prints an empty line after each file.
			content = bytes.TrimSuffix(content, []byte("\n"))
			if _, dup := d.files[cur]; !dup {
				d.order = append(d.order, cur)
			}
			d.files[cur] = append([]byte(nil), content...)
		}
		buf.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, dumpMarker) && strings.HasSuffix(strings.TrimRight(line, "\r"), ":") {
			flush()
			cur = strings.TrimSuffix(strings.TrimRight(line[len(dumpMarker):], "\r"), ":")
			continue
		}
		if cur != "" {
			buf.WriteString(line)
			buf.WriteByte('\n')
		}
	}
	flush()
	return d, len(d.order) > 0
}

// IsDump reports whether b looks like nginx -T output.
func IsDump(b []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "nginx: ") || strings.TrimSpace(line) == "" {
			continue
		}
		return strings.HasPrefix(line, dumpMarker)
	}
	return false
}

// fileID is a file's device and inode.
type fileID struct{ dev, ino uint64 }

type loader struct {
	bytes    int               // read so far
	realDirs map[string]string // directories as given -> real paths, for under
	byID     map[fileID]*File
	// noMain is set when a fragment was loaded with no nginx.conf above it:
	// its relative includes resolve against a guess of nginx's prefix.
	noMain bool
	opt    Options
	src    source
	tree   *Tree
	prefix string
	state  map[*File]int // 0 new, 1 expanding, 2 done
	// reals caches realPath: a glob's files are resolved once for the
	// prefetch and again when they are included
	reals map[string]string
	// pre holds files an include pattern matched, read and parsed ahead in
	// parallel (prefetch), by real path; file() takes them from here
	pre map[string]*prefetched
}

// prefetched is a file read and parsed ahead of its turn.
type prefetched struct {
	f    *File
	diag *Diagnostic
	err  error
}

// Load reads the configuration at p: a main file, a directory (its
// nginx.conf, or else every *.conf below it), an nginx -T dump, or "-" for
// standard input. The returned error is set only when nothing could be read;
// syntax errors and include problems are in Tree.Diagnostics.
func Load(p string, opt Options) (*Tree, error) {
	l := &loader{opt: opt, src: osSource{}, state: map[*File]int{},
		tree: &Tree{byPath: map[string]*File{}}}
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
		if IsDump(b) {
			return l.loadDump(b)
		}
		f := &File{Path: "<stdin>", Src: b}
		l.add(f)
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
			b, err := (osSource{}).read(abs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, unwrapPathErr(err))
			}
			if IsDump(b) {
				return l.loadDump(b)
			}
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
		if _, err := l.file(r); err != nil {
			return nil, fmt.Errorf("%s: %w", r, unwrapPathErr(err))
		}
	}
	l.finish(roots)
	return l.tree, nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (l *loader) loadDump(b []byte) (*Tree, error) {
	d, ok := splitDump(b)
	if !ok {
		return nil, errors.New("nginx -T output holds no \"# configuration file\" sections")
	}
	l.src = d
	l.tree.Dump = true
	l.prefix = l.opt.Prefix
	if l.prefix == "" {
		l.prefix = path.Dir(d.order[0])
	}
	for _, p := range d.order {
		if _, err := l.file(p); err != nil {
			return nil, err
		}
	}
	l.finish([]string{d.order[0]})
	return l.tree, nil
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

func (l *loader) add(f *File) {
	l.tree.byPath[f.Path] = f
	l.tree.Files = append(l.tree.Files, f)
	if d := parseFile(f); d != nil {
		l.tree.Diagnostics = append(l.tree.Diagnostics, *d)
	}
}

// file returns the parsed file at the local path p, reading it once: a
// file reached by several paths (links, linked directories) is one file.
func (l *loader) file(p string) (*File, error) {
	if f, ok := l.tree.byPath[p]; ok {
		return f, nil
	}
	real := p
	if _, isOS := l.src.(osSource); isOS {
		real = l.cachedRealPath(p)
		if f, ok := l.tree.byPath[real]; ok {
			l.tree.byPath[p] = f
			return f, nil
		}
	}
	if _, isOS := l.src.(osSource); isOS && len(l.tree.Files) > 0 && !l.opt.Live && !l.inside(real) && !l.allowed(real) {
		return nil, ErrOutside
	}
	var id fileID
	if _, isOS := l.src.(osSource); isOS {
		// a file with several hard links is one file too
		if st, err := os.Stat(real); err == nil {
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
	if pf != nil {
		b, err = pf.f.Src, pf.err
	} else {
		b, err = l.src.read(real)
	}
	if err != nil {
		return nil, err
	}
	if l.bytes += len(b); l.bytes > MaxTreeBytes {
		return nil, ErrTooLarge
	}
	f := &File{Path: real, Src: b}
	if pf != nil {
		f = pf.f
		f.Path = real
	}
	if id != (fileID{}) {
		if l.byID == nil {
			l.byID = map[fileID]*File{}
		}
		l.byID[id] = f
	}
	if real != p {
		f.Via = p
		l.tree.byPath[p] = f
	}
	if pf != nil {
		l.tree.byPath[f.Path] = f
		l.tree.Files = append(l.tree.Files, f)
		if pf.diag != nil {
			pf.diag.File = real
			l.tree.Diagnostics = append(l.tree.Diagnostics, *pf.diag)
		}
	} else {
		l.add(f)
	}
	if _, isOS := l.src.(osSource); isOS && !l.opt.Live && !l.inside(real) && len(l.tree.Files) > 1 {
		l.tree.Outside = append(l.tree.Outside, real)
	}
	return f, nil
}

// inside reports whether p is below the configuration directory or a
// path map's local directory.
func (l *loader) inside(p string) bool {
	if l.under(p, l.prefix) {
		return true
	}
	for _, m := range l.opt.Maps {
		if l.under(p, m.To) {
			return true
		}
	}
	for _, m := range l.tree.Inferred {
		if l.under(p, m.To) {
			return true
		}
	}
	return false
}

// allowed reports whether p lies in a directory the user allowed.
func (l *loader) allowed(p string) bool {
	for _, d := range l.opt.AllowOutside {
		if l.under(p, d) {
			return true
		}
	}
	return false
}

// under reports whether the real path p is dir or below it, dir's own
// links resolved (once per directory and lint: it is asked per file read).
func (l *loader) under(p, dir string) bool {
	if dir == "" {
		return false
	}
	real, ok := l.realDirs[dir]
	if !ok {
		abs, err := filepath.Abs(dir)
		if err == nil {
			if r, err := filepath.EvalSymlinks(abs); err == nil {
				abs = r
			}
			real = abs
		}
		if l.realDirs == nil {
			l.realDirs = map[string]string{}
		}
		l.realDirs[dir] = real
	}
	return real != "" && (p == real || strings.HasPrefix(p, strings.TrimSuffix(real, "/")+"/"))
}

// realPath resolves the symbolic links of p one component at a time, as
// the kernel does, except that an absolute link target goes through the
// path maps first: a copy of a server's tree whose links point at
// /etc/nginx/... is read from the copy, not from this machine's /etc/nginx.
func (l *loader) realPath(p string) string {
	parts := strings.Split(filepath.Clean(p), "/")[1:]
	cur := "/"
	for i, hops := 0, 0; i < len(parts); i++ {
		next := filepath.Join(cur, parts[i])
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{cur}, parts[i:]...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return p // a loop: reading fails with the kernel's error
		}
		t, err := os.Readlink(next)
		if err != nil {
			return p
		}
		if filepath.IsAbs(t) {
			t = l.mapLinkTarget(filepath.Clean(t))
		} else {
			t = filepath.Join(cur, t)
		}
		parts = append(strings.Split(filepath.Clean(t), "/")[1:], parts[i+1:]...)
		cur, i = "/", -1
	}
	return cur
}

// mapLinkTarget applies the path maps to an absolute link target, and
// when the target lies outside the configuration directory but its tail
// exists inside it (a copy whose links name the server's paths), maps it
// there.
func (l *loader) mapLinkTarget(t string) string {
	if m := l.localPath(t); m != t {
		return m
	}
	if l.inside(t) || len(l.opt.Maps) > 0 {
		return t
	}
	parts := strings.Split(t, "/")[1:]
	for i := 1; i < len(parts); i++ {
		cand := filepath.Join(l.prefix, filepath.Join(parts[i:]...))
		if _, err := os.Lstat(cand); err == nil {
			l.tree.Inferred = append(l.tree.Inferred, PathMap{From: "/" + filepath.Join(parts[:i]...), To: l.prefix})
			return cand
		}
	}
	return t
}

// finish expands includes from every root, settles root contexts, and runs
// the checks that need the whole tree.
func (l *loader) finish(roots []string) {
	included := map[*File]bool{}
	for _, r := range roots {
		f := l.tree.byPath[r]
		l.expand(f)
	}
	for _, f := range l.tree.Files {
		walkFileDirs(f.Directives, func(d *Directive) {
			for _, inc := range d.Includes {
				if inc != f {
					included[inc] = true
				}
			}
		})
	}
	for _, r := range roots {
		f := l.tree.byPath[r]
		// In a directory without nginx.conf, a file that another one
		// includes is linted through that one, not on its own.
		if len(roots) > 1 && included[f] {
			continue
		}
		l.settleContext(f)
		l.tree.Roots = append(l.tree.Roots, f)
	}
	if len(l.tree.Roots) == 0 && len(roots) > 0 { // every file is in a cycle
		f := l.tree.byPath[roots[0]]
		l.settleContext(f)
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
	known := func(name string) bool { return Known(name) || extra[name] }
	for _, f := range l.tree.Files {
		l.tree.Diagnostics = append(l.tree.Diagnostics, gluedStatements(f, known)...)
	}
	sortDiagnostics(l.tree.Diagnostics)
}

func sortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].File != ds[j].File {
			return ds[i].File < ds[j].File
		}
		return ds[i].Offset < ds[j].Offset
	})
}

func (l *loader) settleContext(f *File) {
	for _, c := range f.Comments {
		if spec, ok := strings.CutPrefix(strings.TrimSpace(c.Text), "nginxtune: context="); ok {
			f.Context = ParseContextSpec(strings.Fields(spec + " ")[0])
			f.ContextSource = "declared"
			return
		}
	}
	for _, d := range f.Directives {
		if d.Name == "http" || d.Name == "events" || d.Name == "stream" || d.Name == "worker_processes" {
			f.Context, f.ContextSource = []string{CtxMain}, "root"
			return
		}
	}
	if len(f.Directives) == 0 {
		f.Context, f.ContextSource = []string{CtxMain}, "root"
		return
	}
	inferred := inferContext(f.Directives)
	// a file named nginx.conf is the main file, unless what it holds can
	// only stand inside http (server, location, upstream blocks): then it
	// is a fragment that happens to carry the name
	if filepath.Base(f.Path) == "nginx.conf" && len(inferred) <= 1 {
		f.Context, f.ContextSource = []string{CtxMain}, "root"
		return
	}
	f.Context, f.ContextSource = inferred, "inferred"
}

// walkFileDirs visits every directive of one file, not following includes
// and not entering data blocks.
func walkFileDirs(dirs []*Directive, fn func(*Directive)) {
	for _, d := range dirs {
		fn(d)
		if d.Block != nil && !IsDataBlock(d.Name) {
			walkFileDirs(d.Block, fn)
		}
	}
}

// expand resolves the include directives of f and of the files they name,
// depth first; an include that leads back to a file being expanded is a
// cycle and is not followed.
func (l *loader) expand(f *File) {
	if l.state[f] != 0 {
		return
	}
	l.state[f] = 1
	walkFileDirs(f.Directives, func(d *Directive) {
		if d.Name != "include" {
			return
		}
		paths := l.resolve(d)
		l.prefetch(paths)
		for _, p := range paths {
			inc, err := l.file(p)
			switch {
			case errors.Is(err, ErrOutside):
				l.diag(d, "include-outside-tree", SevInfo, "include %q: %s is %v (give --allow-outside %s to read it); findings that depend on it are missing",
					Clip(d.Arg(0)), Clip(l.display(p)), err, Clip(filepath.Dir(p)))
				continue
			case err != nil:
				l.diag(d, "include-missing", SevError, "include %q: cannot read %s: %v", Clip(d.Arg(0)), Clip(l.display(p)), unwrapPathErr(err))
				l.tree.Unreadable = append(l.tree.Unreadable, p)
				continue
			}
			if l.state[inc] == 1 && l.throughInferred(d.Arg(0)) {
				continue // a guessed map, not the configuration, leads back: the guess is wrong here
			}
			if l.state[inc] == 1 {
				l.diag(d, "include-cycle", SevError, "include %q leads back to %s, which is already being read: nginx would include it again and again", Clip(d.Arg(0)), l.display(inc.Path))
				continue
			}
			d.Includes = append(d.Includes, inc)
			l.expand(inc)
		}
	})
	l.state[f] = 2
}

func (l *loader) diag(d *Directive, kind string, sev Severity, format string, args ...any) {
	l.tree.Diagnostics = append(l.tree.Diagnostics, Diagnostic{
		Kind: kind, Severity: sev, File: d.File.Path, Line: d.Line, Col: d.Col, Offset: d.Start,
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

// stockFiles are the files nginx packages install next to nginx.conf;
// repositories of site configurations often include them without
// carrying a copy.
var stockFiles = map[string]bool{
	"mime.types": true, "fastcgi_params": true, "fastcgi.conf": true, "scgi_params": true,
	"uwsgi_params": true, "proxy_params": true, "koi-utf": true, "koi-win": true, "win-utf": true,
	"fastcgi-php.conf": true, "snakeoil.conf": true,
}

func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// optionalInclude reports the "name[.]conf" idiom: a pattern that matches
// one file name exactly, written as a pattern only so that nginx accepts the
// file's absence.
func optionalInclude(p string) bool {
	base := filepath.Base(p)
	return !strings.ContainsAny(filepath.Dir(p), "*?[") && !strings.ContainsAny(base, "*?") &&
		oneCharClass.MatchString(base)
}

var oneCharClass = regexp.MustCompile(`^[^\[\]]*(\[[^\]]\][^\[\]]*)+$`)

// placeholder reports whether an include path still holds a template
// variable (%home%, <VAR>, {{ var }}, ${VAR}, @VAR@) of a tool that renders
// the configuration.
func placeholder(p string) bool {
	return Templated(p) || strings.Contains(p, "${") // include paths take no variables
}

// Templated reports whether a value still holds a template placeholder of
// a tool that renders configurations (%name%, {{ name }}, <name>, @name@).
func Templated(v string) bool {
	return strings.Count(v, "%") >= 2 || strings.Contains(v, "{{") || strings.Contains(v, "<") && strings.Contains(v, ">") ||
		strings.Count(v, "@") >= 2
}

// resolve returns the local paths an include directive names, sorted as
// nginx's glob() returns them, with hidden files left out of wildcard
// matches. Problems become diagnostics.
func (l *loader) resolve(d *Directive) []string {
	if len(d.Args) != 1 {
		l.diag(d, "syntax", SevError, "invalid number of arguments in \"include\" directive: want one path, have %d", len(d.Args))
		return nil
	}
	target := d.Arg(0)
	local := l.localPath(target)
	glob := hasGlob(target)
	// A copy of a server's tree names the server's absolute paths: read the
	// copy's files rather than this machine's when the copy has them.
	if _, isOS := l.src.(osSource); isOS && filepath.IsAbs(target) && local == filepath.Clean(target) && !l.inside(local) {
		if alt, ok := l.inferMap(target); ok {
			if !glob {
				return []string{alt}
			}
			local = alt
		}
	}
	if !glob {
		if !l.src.exists(local) {
			if alt, ok := l.inferMap(target); ok {
				return []string{alt}
			}
			if stockFiles[filepath.Base(target)] {
				l.diag(d, "include-missing", SevInfo, "include %q: %s is not here; nginx packages ship this file in the configuration directory, so nginx on the server likely has it%s",
					Clip(target), l.display(local), l.mapHint(target))
				return nil
			}
			switch {
			case placeholder(target):
				l.diag(d, "include-missing", SevInfo, "include %q: the path holds a template placeholder; lint the rendered file, or map the path with --map", Clip(target))
			case !filepath.IsAbs(target) && l.noMain && l.opt.Prefix == "":
				l.diag(d, "include-missing", SevInfo, "include %q: %s does not exist; nginx resolves it from its prefix (the directory of the main nginx.conf), and no nginx.conf above this file says where that is: lint from the main file, or give --prefix", Clip(target), l.display(local))
			case filepath.IsAbs(target) && !l.opt.Live && !l.inside(local):
				l.diag(d, "include-missing", SevInfo, "include %q: %s is not in this copy of the configuration; nginx -t fails if it is missing on the server too%s", Clip(target), l.display(local), l.mapHint(target))
			default:
				l.diag(d, "include-missing", SevError, "include %q: %s does not exist; nginx -t fails with \"open() failed\"%s", Clip(target), l.display(local), l.mapHint(target))
			}
			return nil
		}
		return []string{local}
	}
	matches, err := l.src.glob(local)
	if err != nil {
		l.diag(d, "include-missing", SevError, "include %q: bad pattern: %v", Clip(target), err)
		return nil
	}
	if len(matches) == 0 && optionalInclude(target) {
		return nil // "file[.]conf": an include meant to read nothing when the file is absent
	}
	if len(matches) == 0 && placeholder(target) {
		l.diag(d, "include-missing", SevInfo, "include %q: the path holds a template placeholder; lint the rendered file, or map the path with --map", Clip(target))
		return nil
	}
	if len(matches) == 0 && !l.tree.Dump && !l.src.isDir(dirOf(local, l.tree.Dump)) {
		// nginx accepts a pattern that matches nothing, even in a missing
		// directory (the "[.]" optional-include idiom relies on it); in an
		// nginx -T dump an empty match is no news at all
		if alt, ok := l.inferMap(target); ok {
			matches, _ = l.src.glob(alt)
		} else {
			l.diag(d, "include-missing", SevInfo, "include %q: directory %s does not exist, so the pattern matches nothing (nginx accepts that; check the path if files were meant to be read)%s", Clip(target), l.display(dirOf(local, l.tree.Dump)), l.mapHint(target))
			return nil
		}
	}
	if len(matches) > MaxGlobMatches {
		l.diag(d, "include-missing", SevError, "include %q matches %d paths, more than nginxtune reads for one include (%d); none read", Clip(target), len(matches), MaxGlobMatches)
		l.tree.Unreadable = append(l.tree.Unreadable, d.File.Path)
		return nil
	}
	var out []string
	baseHasGlob := hasGlob(filepath.Base(target))
	for _, m := range matches {
		if baseHasGlob && strings.HasPrefix(filepath.Base(m), ".") {
			continue
		}
		if l.src.isDir(m) {
			continue
		}
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

func dirOf(p string, dump bool) string {
	for hasGlob(p) {
		if dump {
			p = path.Dir(p)
		} else {
			p = filepath.Dir(p)
		}
	}
	return p
}

func (l *loader) mapHint(target string) string {
	if strings.HasPrefix(target, "/") && !l.tree.Dump && len(l.opt.Maps) == 0 {
		return fmt.Sprintf(" (reading a copy of the server's files? map the path with --map %s=LOCAL_DIR)", dirOf(filepath.Dir(target), false))
	}
	return ""
}

// localPath applies the prefix and path maps to an include path.
func (l *loader) localPath(p string) string {
	if l.tree.Dump {
		if !path.IsAbs(p) {
			p = path.Join(l.prefix, p)
		}
		return path.Clean(p)
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(l.prefix, p)
	}
	p = filepath.Clean(p)
	// the most specific map wins, whatever the order they were given in;
	// given maps before guessed ones
	for _, maps := range [][]PathMap{l.opt.Maps, l.tree.Inferred} {
		best := -1
		for i, m := range maps {
			if (p == m.From || strings.HasPrefix(p, m.From+"/")) && (best < 0 || len(m.From) > len(maps[best].From)) {
				best = i
			}
		}
		if best >= 0 {
			to, _ := filepath.Abs(maps[best].To)
			return filepath.Join(to, strings.TrimPrefix(p, maps[best].From))
		}
	}
	return p
}

// inferMap handles a checkout of a server's configuration directory: when
// an absolute include such as /etc/nginx/conf.d/*.conf does not exist as
// written but its tail does below the prefix, it maps the head onto the
// prefix (and remembers the map for the includes that follow).
func (l *loader) inferMap(target string) (string, bool) {
	if l.tree.Dump || len(l.opt.Maps) > 0 || !filepath.IsAbs(target) {
		return "", false
	}
	parts := strings.Split(filepath.Clean(target), "/")[1:]
	// keep at least a directory and a file name of a pattern's tail; a
	// plain file (mime.types) may stand alone, since it exists; a bare
	// "*.conf" never stands for a directory nginxtune guessed
	last := len(parts) - 1
	if !hasGlob(target) {
		last = len(parts)
	}
	for i := 1; i < last; i++ {
		tail := filepath.Join(parts[i:]...)
		cand := filepath.Join(l.prefix, tail)
		if (hasGlob(tail) && l.src.isDir(dirOf(cand, false))) || (!hasGlob(tail) && l.src.exists(cand)) {
			from := "/" + filepath.Join(parts[:i]...)
			l.tree.Inferred = append(l.tree.Inferred, PathMap{From: from, To: l.prefix})
			return cand, true
		}
	}
	return "", false
}

// gluedStatements finds statements that swallowed the next one because a
// ";" is missing: an argument that starts a new line and is itself the name
// of a directive. nginx reads both lines as one directive and then either
// fails with "invalid number of arguments" or, for directives that take any
// number of arguments, silently misreads the configuration.
func gluedStatements(f *File, known func(string) bool) []Diagnostic {
	var out []Diagnostic
	walkFileDirs(f.Directives, func(d *Directive) {
		if !known(d.Name) || d.Name == "if" {
			return
		}
		if d.Parent != nil && IsDataBlock(d.Parent.Name) {
			return
		}
		prevLine, prevEnd := d.Line, d.Start+len(d.Name)
		for i, a := range d.Args {
			if a.Line > prevLine && a.Quote == 0 && known(a.Value) && !paramWords[d.Name][a.Value] {
				line, col := f.Position(prevEnd)
				before := d.Name
				for _, b := range d.Args[:i] {
					before += " " + b.Raw
				}
				out = append(out, Diagnostic{
					Kind: "syntax", Severity: SevError, File: f.Path, Line: line, Col: col, Offset: prevEnd, NginxLine: d.EndLine,
					Message: fmt.Sprintf("missing \";\" after %q: nginx reads %q on line %d as one more argument of %q",
						truncate(before, 40), a.Value, a.Line, d.Name),
				})
				break
			}
			prevLine, prevEnd = a.Line, a.Offset+len(a.Raw)
		}
	})
	return out
}

// paramWords are parameters that share their name with a directive, so that
// a wrapped line starting with them is not a missing ";".
var paramWords = map[string]map[string]bool{
	"access_log": {"gzip": true},
	"listen":     {"ssl": true, "http2": true, "http3": true, "quic": true, "proxy_protocol": true},
	"rewrite":    {"break": true},
	"server":     {"resolve": true},
}

// CutAt shortens s to at most n bytes on a character boundary, marking the
// cut with "...".
func CutAt(s string, n int) string { return truncate(s, n) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// clipLen bounds what a message quotes of the configuration: a config is
// untrusted input, and a message is not the place to copy it out.
const clipLen = 64

// Clip shortens text quoted from the configuration to clipLen bytes, for
// every message that quotes it.
func Clip(s string) string { return truncate(s, clipLen) }

// checkEvents reports a main file without an events block: nginx -t fails
// with "no "events" section in configuration". A main file is a root read
// in the main context that holds a main-only block (http, stream, mail,
// worker_processes), an empty nginx.conf, or the main file of a dump.
func (l *loader) checkEvents(r *File) {
	if r.ContextSource != "root" || r.Broken {
		return
	}
	// an empty nginx.conf is a main file; one holding only server blocks
	// is a fragment named like one
	main := l.tree.Dump || filepath.Base(r.Path) == "nginx.conf" && len(r.Directives) == 0
	hasEvents := false
	var visit func(dirs []*Directive, depth int)
	visit = func(dirs []*Directive, depth int) {
		for _, d := range dirs {
			switch d.Name {
			case "events":
				hasEvents = true
			case "http", "stream", "mail", "worker_processes":
				main = true
			case "include":
				if depth < 16 {
					for _, inc := range d.Includes {
						if inc.Broken {
							hasEvents = true // cannot tell
						}
						visit(inc.Directives, depth+1)
					}
				}
				if len(d.Includes) == 0 {
					hasEvents = true // an include nginxtune could not read may hold it
				}
			}
		}
	}
	visit(r.Directives, 0)
	if !main || hasEvents {
		return
	}
	l.tree.Diagnostics = append(l.tree.Diagnostics, Diagnostic{
		Kind: "syntax", Severity: SevError, File: r.Path, Line: 1, Col: 1,
		Message: `no "events" block in the main file: nginx -t fails with "no \"events\" section in configuration"; add "events {}"`,
	})
}

// ancestorMain returns the nearest directory at or above dir that holds an
// nginx.conf, not above the top of a git work tree; "" when there is none.
func ancestorMain(dir string) string {
	for i := 0; i < 8; i++ {
		if st, err := os.Stat(filepath.Join(dir, "nginx.conf")); err == nil && !st.IsDir() {
			return dir
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
	return ""
}

// throughInferred reports whether an absolute include path is read through
// a path map nginxtune guessed rather than one it was given.
func (l *loader) throughInferred(target string) bool {
	if !filepath.IsAbs(target) {
		return false
	}
	p := filepath.Clean(target)
	for _, m := range l.opt.Maps {
		if p == m.From || strings.HasPrefix(p, m.From+"/") {
			return false
		}
	}
	for _, m := range l.tree.Inferred {
		if p == m.From || strings.HasPrefix(p, m.From+"/") {
			return true
		}
	}
	return false
}

// boundVisits counts the directives a walk of the tree meets, a file once
// per place that includes it, and when the count passes MaxDirectiveVisits
// reports the include that amplifies most and cuts every include, so that
// no rule walks an exponential tree: the tree was not read whole (exit 2).
func (l *loader) boundVisits() {
	memo := map[*File]int{}
	var cost func(f *File, depth int) int
	cost = func(f *File, depth int) int {
		if n, ok := memo[f]; ok {
			return n
		}
		memo[f] = MaxDirectiveVisits + 1 // a path back here is a cycle already cut; count it as too much
		n := 0
		walkFileDirs(f.Directives, func(d *Directive) {
			n++
			for _, inc := range d.Includes {
				if n <= MaxDirectiveVisits {
					n += cost(inc, depth+1)
				}
			}
		})
		memo[f] = min(n, MaxDirectiveVisits+1)
		return memo[f]
	}
	total := 0
	for _, r := range l.tree.Roots {
		total += cost(r, 0)
	}
	if total <= MaxDirectiveVisits {
		return
	}
	var worst *Directive
	worstN := 0
	for _, f := range l.tree.Files {
		walkFileDirs(f.Directives, func(d *Directive) {
			if len(d.Includes) > 0 {
				n := 0
				for _, inc := range d.Includes {
					n += memo[inc]
				}
				if n > worstN || worst == nil {
					worst, worstN = d, n
				}
			}
		})
	}
	for _, f := range l.tree.Files {
		walkFileDirs(f.Directives, func(d *Directive) { d.Includes = nil })
	}
	if worst != nil {
		l.diag(worst, "include-missing", SevError, "include %q: the tree expands to more than %d directives when every file is counted once per place that includes it; nginxtune stops here (includes not followed)", Clip(worst.Arg(0)), MaxDirectiveVisits)
		l.tree.Unreadable = append(l.tree.Unreadable, worst.File.Path)
	}
}

// cachedRealPath is realPath, once per path.
func (l *loader) cachedRealPath(p string) string {
	if r, ok := l.reals[p]; ok {
		return r
	}
	if l.reals == nil {
		l.reals = map[string]string{}
	}
	r := l.realPath(p)
	l.reals[p] = r
	return r
}

// prefetch reads and parses, in parallel, the files an include pattern
// matched that the tree does not hold yet. Only regular files inside the
// tree (or allowed) are read, within the tree's byte budget; what is left
// out is read in turn by file(), which also makes every decision (limits,
// links, order of Files and diagnostics) as if nothing had been read ahead.
func (l *loader) prefetch(paths []string) {
	if _, isOS := l.src.(osSource); !isOS || len(paths) < 2 || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	var todo []string
	budget := MaxTreeBytes - l.bytes
	for _, p := range paths {
		if _, ok := l.tree.byPath[p]; ok {
			continue
		}
		real := l.cachedRealPath(p)
		if _, ok := l.tree.byPath[real]; ok || l.pre[real] != nil || isSystemPath(real) {
			continue
		}
		if len(l.tree.Files) > 0 && !l.opt.Live && !l.inside(real) && !l.allowed(real) {
			continue
		}
		st, err := os.Stat(real)
		if err != nil || !st.Mode().IsRegular() || st.Size() > int64(budget) {
			continue
		}
		budget -= int(st.Size())
		todo = append(todo, real)
	}
	if len(todo) < 2 {
		return
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
				f := &File{Src: b}
				pf := &prefetched{f: f, err: err}
				if err == nil {
					pf.diag = parseFile(f)
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
