package loader

// Include resolution: what an include names, where that is on this machine
// (links, path maps, the guessed prefix of a fragment), and whether it may
// be read (inside the tree, not a system path).

import (
	"fmt"
	"io/fs"

	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

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
	_, real := l.boundary(dir)
	return boundedread.Within(p, real)
}

// realPath resolves the symbolic links of p one component at a time, as
// the kernel does, except that an absolute link target goes through the
// path maps first: a copy of a server's tree whose links point at
// /etc/nginx/... is read from the copy, not from this machine's /etc/nginx.
// Directories are resolved once per load (l.reals): the files of one
// directory cost one lstat each, not one per component of their path.
func (l *loader) realPath(p string) string {
	if r, ok := l.reals[p]; ok {
		return r // a key is a clean path, so p was one: no need to clean it
	}
	if r, ok := l.resolveLinks(filepath.Clean(p), 0); ok {
		return r
	}
	return p // a loop, or a link that cannot be read: reading fails with the kernel's error
}

// resolveLinks is realPath for a clean absolute path; hops counts the links
// followed so far, and false means a loop (more than 40, as the kernel
// allows) or an unreadable link.
func (l *loader) resolveLinks(p string, hops int) (string, bool) {
	if p == "/" || !filepath.IsAbs(p) {
		return p, true
	}
	if r, ok := l.reals[p]; ok {
		return r, true
	}
	// p is clean and absolute: its parent and last element are the parts
	// around its last slash (what filepath.Dir and Base give, without
	// cleaning it twice more)
	i := strings.LastIndexByte(p, '/')
	parent, base := p[:i], p[i+1:]
	if i == 0 {
		parent = "/"
	}
	dir, ok := l.resolveLinks(parent, hops)
	if !ok {
		return "", false
	}
	// an absolute dir is clean (what resolveLinks returns) and base a name
	// of a clean path (never "." or ".."): joined without cleaning again
	var next string
	switch {
	case dir == "/":
		next = "/" + base
	case strings.HasPrefix(dir, "/"):
		next = dir + "/" + base
	default: // a path map's relative target
		next = filepath.Join(dir, base)
	}
	r := next
	if !l.mayLook(next) {
		// outside the tree (a link's target there, or an include written
		// so): neither its existence nor its links are looked at; it
		// stays as written, and its callers find it outside
		if l.reals == nil {
			l.reals = map[string]string{}
		}
		l.reals[p] = r
		return r, true
	}
	switch fi, err := os.Lstat(next); {
	case err != nil:
		// a missing component: the rest stays as written
	case fi.Mode()&os.ModeSymlink == 0:
		if l.stats == nil {
			l.stats = map[string]os.FileInfo{}
		}
		l.stats[next] = fi
	default:
		if hops++; hops > 40 {
			return "", false
		}
		t, err := os.Readlink(next)
		if err != nil {
			return "", false
		}
		if filepath.IsAbs(t) {
			t = l.mapLinkTarget(filepath.Clean(t))
		} else {
			t = filepath.Join(dir, t)
		}
		if r, ok = l.resolveLinks(filepath.Clean(t), hops); !ok {
			return "", false
		}
	}
	if l.reals == nil {
		l.reals = map[string]string{}
	}
	l.reals[p] = r
	return r, true
}

// stat is os.Stat of a real path (one realPath returned), from what
// realPath's lstat saw when it can; a path outside the tree is not looked
// at (ErrOutside).
func (l *loader) stat(real string) (os.FileInfo, error) {
	if fi, ok := l.stats[real]; ok {
		return fi, nil
	}
	if !l.mayLook(real) {
		return nil, ErrOutside
	}
	return os.Stat(real)
}

// mayLook reports whether the loader may look at the path p on this
// machine (lstat it, read it when it is a link): anywhere for the live
// tree; otherwise only inside the tree — below the configuration directory,
// a path map's local directory, a directory the user allowed, or a
// directory the main file was checked against, each as given and with its
// links resolved — or on the way to it (an ancestor, which locating the tree
// itself resolves). A link inside the tree to a file elsewhere is so found
// outside by its target as written, without a look at the target: the
// runner's files (what /proc/self/cwd or /etc/alternatives point to,
// whether a path exists) never show in, or change, a finding.
func (l *loader) mayLook(p string) bool {
	if l.opt.Live {
		return true
	}
	near := func(dir string) bool {
		if dir == "" {
			return false
		}
		given, real := l.boundary(dir)
		return boundedread.Within(p, given) || boundedread.Within(given, p) ||
			boundedread.Within(p, real) || boundedread.Within(real, p)
	}
	if near(l.prefix) {
		return true
	}
	for _, d := range l.bounds {
		if near(d) {
			return true
		}
	}
	for _, d := range l.opt.AllowOutside {
		if near(d) {
			return true
		}
	}
	for _, ms := range [][]PathMap{l.opt.Maps, l.tree.Inferred} {
		for _, m := range ms {
			if near(m.To) {
				return true
			}
		}
	}
	return false
}

// boundary returns a directory of the tree's boundary as given (absolute,
// clean) and with its own links resolved, once per load.
func (l *loader) boundary(dir string) (given, real string) {
	if b, ok := l.bounded[dir]; ok {
		return b[0], b[1]
	}
	given = filepath.Clean(dir)
	if abs, err := filepath.Abs(dir); err == nil {
		given = abs
	}
	real = given
	if r, err := filepath.EvalSymlinks(given); err == nil {
		real = r
	}
	if l.bounded == nil {
		l.bounded = map[string][2]string{}
	}
	l.bounded[dir] = [2]string{given, real}
	return given, real
}

// mapLinkTarget applies the path maps to an absolute link target, and
// when the target lies outside the configuration directory but its tail
// exists inside it (a copy whose links name the server's paths), maps it
// there.
func (l *loader) mapLinkTarget(t string) string {
	if m := l.localPath(t); m != t {
		return m
	}
	if l.opt.Live || l.prefix == "" || l.inside(t) {
		return t // the live tree's links name this machine's paths
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

func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// optionalInclude reports the "name[.]conf" idiom: a pattern that matches
// one file name exactly, written as a pattern only so that nginx accepts the
// file's absence.
func optionalInclude(p string) bool {
	base := filepath.Base(p)
	return !strings.ContainsAny(filepath.Dir(p), "*?[") && !strings.ContainsAny(base, "*?") &&
		oneCharClasses(base)
}

// oneCharClasses reports whether s is plain text with at least one class of
// a single character ("[.]", "[x]") and no other brackets: what the regular
// expression ^[^\[\]]*(\[[^\]]\][^\[\]]*)+$ matches, written out so that no
// run pays for compiling it.
func oneCharClasses(s string) bool {
	classes := 0
	for i := 0; i < len(s); {
		switch s[i] {
		case ']':
			return false
		case '[':
			r, n := utf8.DecodeRuneInString(s[i+1:])
			if n == 0 || r == ']' || i+1+n >= len(s) || s[i+1+n] != ']' {
				return false
			}
			classes++
			i += 2 + n
			continue
		}
		i++
	}
	return classes > 0
}

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
func (l *loader) resolve(d *parser.Directive) []string {
	if len(d.Args) != 1 {
		l.diag(d, parser.Syntax, finding.Error, "invalid number of arguments in \"include\" directive: want one path, have %d", len(d.Args))
		return nil
	}
	target := d.Arg(0)
	if tm := l.templateMatches(target); len(tm) > 0 {
		return tm
	}
	local := l.localPath(target)
	glob := hasGlob(target)
	// A copy of a server's tree names the server's absolute paths: read the
	// copy's files rather than this machine's when the copy has them.
	if l.src.onDisk() && filepath.IsAbs(target) && local == filepath.Clean(target) && !l.inside(local) {
		if alt, ok := l.inferMap(target); ok {
			if !glob {
				return []string{alt}
			}
			local = alt
		}
	}
	if l.src.onDisk() && !l.opt.Live && l.reachesOutside(local) {
		// Nothing outside the tree is read, listed or even looked at: whether
		// a file exists there is this machine's business, not the
		// configuration's, and a finding must not differ between a laptop,
		// CI and the server.
		if glob && optionalInclude(target) {
			return nil // "file[.]conf": meant to read nothing where the file is absent
		}
		if !glob && knowledge.IsPackageFile(filepath.Base(target)) {
			l.diag(d, IncludeMissing, finding.Info, "include %q: %s is not in the linted tree; nginx packages ship this file in the configuration directory, so nginx on the server likely has it%s",
				untrusted.Clip(target), untrusted.Clip(l.display(local)), l.mapHint(target))
			return nil
		}
		l.diag(d, IncludeOutsideTree, finding.Info, "include %q: %s is outside the linted tree; not read%s; findings that depend on it are missing",
			untrusted.Clip(target), untrusted.Clip(l.display(local)), l.outsideHint(target, local))
		return nil
	}
	if !glob {
		if !l.src.exists(local) {
			if alt, ok := l.inferMap(target); ok {
				return []string{alt}
			}
			if knowledge.IsPackageFile(filepath.Base(target)) {
				l.diag(d, IncludeMissing, finding.Info, "include %q: %s is not here; nginx packages ship this file in the configuration directory, so nginx on the server likely has it%s",
					untrusted.Clip(target), l.display(local), l.mapHint(target))
				return nil
			}
			switch {
			case placeholder(target):
				l.diag(d, IncludeMissing, finding.Info, "include %q: the path holds a template placeholder; lint the rendered file, or map the path with --map", untrusted.Clip(target))
			case !filepath.IsAbs(target) && l.noMain && l.opt.Prefix == "":
				l.diag(d, IncludeMissing, finding.Info, "include %q: %s does not exist; nginx resolves it from its prefix (the directory of the main nginx.conf), and no nginx.conf above this file says where that is: lint from the main file, or give --prefix", untrusted.Clip(target), l.display(local))
			case filepath.IsAbs(target) && !l.opt.Live && !l.inside(local):
				l.diag(d, IncludeMissing, finding.Info, "include %q: %s is not in this copy of the configuration; nginx -t fails if it is missing on the server too%s", untrusted.Clip(target), l.display(local), l.mapHint(target))
			default:
				l.diag(d, IncludeMissing, finding.Error, "include %q: %s does not exist; nginx -t fails with \"open() failed\"%s", untrusted.Clip(target), l.display(local), l.mapHint(target))
			}
			return nil
		}
		return []string{local}
	}
	// one pattern is expanded once per load: 2,000 includes of conf.d/*.conf
	// list the directory once, not 2,000 times
	if m, ok := l.globs[local]; ok {
		return m
	}
	diagsBefore := len(l.tree.Diagnostics)
	var matches []string
	var err error
	if l.src.onDisk() && !l.opt.Live {
		var refused bool
		matches, refused, err = l.globInside(local)
		if refused {
			l.diag(d, IncludeOutsideTree, finding.Info, "include %q: the pattern reaches directories outside the linted tree (through a link); they are not listed%s",
				untrusted.Clip(target), l.outsideHint(target, local))
		}
	} else {
		matches, err = l.src.glob(local)
	}
	if err != nil {
		l.diag(d, IncludeMissing, finding.Error, "include %q: bad pattern: %v", untrusted.Clip(target), err)
		return nil
	}
	if len(matches) == 0 && optionalInclude(target) {
		return nil // "file[.]conf": an include meant to read nothing when the file is absent
	}
	if len(matches) == 0 && placeholder(target) {
		l.diag(d, IncludeMissing, finding.Info, "include %q: the path holds a template placeholder; lint the rendered file, or map the path with --map", untrusted.Clip(target))
		return nil
	}
	if len(matches) == 0 && !l.tree.Dump && !l.src.isDir(dirOf(local, l.tree.Dump)) {
		// nginx accepts a pattern that matches nothing, even in a missing
		// directory (the "[.]" optional-include idiom relies on it); in an
		// nginx -T dump an empty match is no news at all
		if alt, ok := l.inferMap(target); ok {
			if l.src.onDisk() && !l.opt.Live {
				matches, _, _ = l.globInside(alt)
			} else {
				matches, _ = l.src.glob(alt)
			}
		} else {
			l.diag(d, IncludeMissing, finding.Info, "include %q: directory %s does not exist, so the pattern matches nothing (nginx accepts that; check the path if files were meant to be read)%s", untrusted.Clip(target), l.display(dirOf(local, l.tree.Dump)), l.mapHint(target))
			return nil
		}
	}
	if len(matches) > MaxGlobMatches {
		l.diag(d, IncludeMissing, finding.Error, "include %q matches %d paths, more than nginxtune reads for one include (%d); none read", untrusted.Clip(target), len(matches), MaxGlobMatches)
		l.tree.Unreadable = append(l.tree.Unreadable, d.File.Path)
		return nil
	}
	var out []string
	baseHasGlob := hasGlob(filepath.Base(target))
	for _, m := range matches {
		if baseHasGlob && strings.HasPrefix(filepath.Base(m), ".") {
			continue
		}
		if l.matchIsDir(m) {
			continue
		}
		out = append(out, m)
	}
	sort.Strings(out)
	if len(l.tree.Diagnostics) == diagsBefore {
		if l.globs == nil {
			l.globs = map[string][]string{}
		}
		l.globs[local] = out
	}
	return out
}

// matchIsDir reports whether a path a pattern matched is a directory (or
// a link to one). On disk it asks realPath, whose lstat of each component
// is kept and serves the reading of the file next: one system call a
// match fewer than a stat of its own.
func (l *loader) matchIsDir(m string) bool {
	if !l.src.onDisk() {
		return l.src.isDir(m)
	}
	st, err := l.stat(l.realPath(m))
	return err == nil && st.IsDir()
}

// TemplateSuffix ends the files the official Docker image renders at start:
// templates/NAME.template becomes conf.d/NAME through envsubst.
const TemplateSuffix = ".template"

// templateMatches handles a repository for the official nginx Docker image:
// an include of conf.d (/etc/nginx/conf.d/*.conf, the image's own) reads,
// beside the conf.d files the repository has, the templates/ files that the
// image renders into conf.d at start, under the names they get there. They
// are read as they are (their ${VARIABLES} opaque; see Templated).
func (l *loader) templateMatches(target string) []string {
	if l.tree.Dump || hasGlob(filepath.Dir(target)) || filepath.Base(filepath.Dir(target)) != "conf.d" {
		return nil
	}
	tdir := filepath.Join(l.prefix, "templates")
	if !l.src.isDir(tdir) || l.reachesOutside(tdir) {
		return nil
	}
	entries, err := os.ReadDir(tdir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		rendered, ok := strings.CutSuffix(name, TemplateSuffix)
		if !ok || e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		if m, _ := filepath.Match(filepath.Base(target), rendered); m {
			out = append(out, filepath.Join(tdir, name))
		}
	}
	if len(out) == 0 {
		return nil
	}
	// the repository's own conf.d files, where it has them, come too
	if conf := filepath.Join(l.prefix, "conf.d"); l.src.isDir(conf) {
		if m, err := filepath.Glob(filepath.Join(conf, filepath.Base(target))); err == nil {
			out = append(out, m...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return renderedName(out[i]) < renderedName(out[j]) })
	return out
}

// renderedName is the name a file gets in conf.d: a template's without its
// suffix.
func renderedName(p string) string { return strings.TrimSuffix(filepath.Base(p), TemplateSuffix) }

// EnvPlaceholder reports whether v holds a ${NAME} placeholder of envsubst
// (upper case, as the Docker image's templates write them; nginx's own
// variables are lower case).
func EnvPlaceholder(v string) bool {
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			return false
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			return false
		}
		name := v[i+2 : i+j]
		upper := name != ""
		for _, c := range name {
			if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				upper = false
			}
		}
		if upper {
			return true
		}
		v = v[i+j:]
	}
}

// reachesOutside reports whether a local include path (a file or a
// pattern) starts outside the tree: its part before the first wildcard,
// links resolved, lies neither below the configuration directory nor a path
// map nor a directory the user allowed.
func (l *loader) reachesOutside(local string) bool {
	head := local
	if hasGlob(local) {
		head = dirOf(local, false)
	}
	real := l.realPath(head)
	return !l.inside(real) && !l.allowed(real)
}

// outsideHint tells how to read an outside include: a path map when the
// repository holds a copy, --allow-outside for this machine's files.
func (l *loader) outsideHint(target, local string) string {
	dir := filepath.Dir(local)
	if hasGlob(local) {
		dir = dirOf(local, false)
	}
	if filepath.IsAbs(target) && len(l.opt.Maps) == 0 {
		return fmt.Sprintf(" (nginx reads it on the server; --map %s=LOCAL_DIR reads a copy kept in the repository, --allow-outside %s this machine's)", untrusted.Clip(dirOf(filepath.Dir(target), false)), untrusted.Clip(dir))
	}
	return fmt.Sprintf(" (--allow-outside %s reads it)", untrusted.Clip(dir))
}

// globInside expands a pattern as filepath.Glob does, one component at a
// time, but never lists a directory whose real path is outside the tree
// (a link inside it pointing elsewhere): refused says one was skipped. A
// pattern from a configuration must not turn into a listing of, or an
// existence test on, the runner's files.
func (l *loader) globInside(pattern string) (matches []string, refused bool, err error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, false, err
	}
	head := dirOf(pattern, false)
	rest := strings.TrimPrefix(strings.TrimPrefix(pattern, head), "/")
	if head == pattern || rest == "" {
		m, err := globOS(pattern)
		return m, false, err
	}
	cur := []string{head}
	comps := strings.Split(rest, "/")
	for i, c := range comps {
		var next []string
		for _, dir := range cur {
			real := l.realPath(dir)
			if !l.inside(real) && !l.allowed(real) {
				refused = true
				continue
			}
			if !hasGlob(c) {
				next = append(next, filepath.Join(dir, c))
				continue
			}
			// the real directory, not dir: a link is listed where the
			// check above found it (path maps apply to link targets)
			names, err := dirNames(real)
			if err != nil {
				continue // as filepath.Glob: an unreadable directory matches nothing
			}
			for _, name := range names {
				if ok, _ := filepath.Match(c, name); ok {
					next = append(next, filepath.Join(dir, name))
				}
			}
		}
		if len(next) > MaxGlobMatches {
			return next, refused, nil // the caller refuses so many
		}
		cur = next
		if i == len(comps)-1 {
			break
		}
	}
	// the last component named without a wildcard must exist, as in
	// filepath.Glob; its directory was checked above
	out := cur[:0]
	for _, p := range cur {
		if !hasGlob(comps[len(comps)-1]) {
			if _, err := os.Lstat(p); err != nil {
				continue
			}
		}
		out = append(out, p)
	}
	return out, refused, nil
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
	// given maps before guessed ones
	for _, maps := range [][]PathMap{l.opt.Maps, l.tree.Inferred} {
		if local, to := MapPath(maps, p); to != "" {
			return local
		}
	}
	return p
}

// MapPath applies the most specific of maps (whatever the order they were
// given in) to the clean absolute path p: where p is read from, and the
// map's local directory (absolute); p and "" when no map holds it.
func MapPath(maps []PathMap, p string) (local, to string) {
	best := -1
	for i, m := range maps {
		if (p == m.From || strings.HasPrefix(p, m.From+"/")) && (best < 0 || len(m.From) > len(maps[best].From)) {
			best = i
		}
	}
	if best < 0 {
		return p, ""
	}
	to, _ = filepath.Abs(maps[best].To)
	return filepath.Join(to, strings.TrimPrefix(p, maps[best].From)), to
}

// inferMap handles a checkout of a server's configuration directory: when
// an absolute include such as /etc/nginx/conf.d/*.conf does not exist as
// written but its tail does below the prefix, it maps the head onto the
// prefix (and remembers the map for the includes that follow).
func (l *loader) inferMap(target string) (string, bool) {
	// given maps do not turn the guessing off: --map for one directory
	// (sites-enabled, absent from a checkout) adds to the maps guessed for
	// the others (conf.d), it does not send them to this machine's files
	if l.tree.Dump || !filepath.IsAbs(target) {
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
		if hasGlob(parts[i]) {
			break // a guessed map is anchored by a directory name, never by a wildcard
		}
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

// NearestMain finds the nginx.conf in a file's directory or the closest one
// above it, not above stop ("" for no bound but the file system's root): the
// main file that most likely includes the file. A file named nginx.conf is
// its own. "" when there is none, and when the file's directory is not
// stop or below it (a file there has no main file inside stop).
func NearestMain(file, stop string) string {
	if filepath.Base(file) == "nginx.conf" {
		return file
	}
	dir := filepath.Dir(file)
	if stop != "" && !boundedread.Within(dir, filepath.Clean(stop)) {
		return ""
	}
	for {
		p := filepath.Join(dir, "nginx.conf")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		if dir == stop || dir == filepath.Dir(dir) {
			return ""
		}
		if stop != "" {
			if rel, err := filepath.Rel(stop, dir); err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				return ""
			}
		}
		dir = filepath.Dir(dir)
	}
}

// globOS is filepath.Glob, with the directory of a pattern that has
// wildcards in its last name only (include's usual "dir/*.conf") listed by
// dirNames; other patterns are filepath.Glob's. As filepath.Glob, it
// ignores a directory it cannot read or list, and returns the error of a
// name's match: a pattern can pass the check against "" and fail against a
// name ("*.["), which globInside's loop, matching the same way, ignores.
func globOS(pattern string) ([]string, error) {
	dir, file := filepath.Split(pattern)
	if globMeta(dir) || !globMeta(file) {
		return filepath.Glob(pattern)
	}
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	switch dir {
	case "":
		dir = "."
	case "/":
	default:
		dir = dir[:len(dir)-1]
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil
	}
	names, _ := dirNames(dir) // what could be listed, as filepath.Glob
	var matches []string
	for _, name := range names {
		ok, err := filepath.Match(file, name)
		if err != nil {
			return matches, err
		}
		if ok {
			matches = append(matches, filepath.Join(dir, name))
		}
	}
	return matches, nil
}

// globMeta is filepath's test for a pattern (a backslash escapes).
func globMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// dirNames lists a directory's entries by name, sorted as os.ReadDir sorts
// them (on an error, those listed until then), with plain system calls: os.ReadDir's file is first offered to the
// network poller (its set-up, four fcntl calls and a failing epoll_ctl),
// more work than listing a directory of site files. O_NONBLOCK: a FIFO
// put in the directory's place since it was checked is not waited on
// (O_DIRECTORY refuses it).
func dirNames(dir string) ([]string, error) {
	fd, err := boundedread.IgnoringEINTR(func() (int, error) {
		return syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC|boundedread.ONonblock, 0)
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, 8192)
	var names []string
	for {
		n, err := boundedread.IgnoringEINTR(func() (int, error) { return syscall.ReadDirent(fd, buf) })
		if err != nil {
			slices.Sort(names)
			return names, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			break
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
	slices.Sort(names)
	return names, nil
}
