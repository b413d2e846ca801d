package lint

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// NearestMain is the main file that most likely includes file: the
// nginx.conf in its directory or the closest one above it, never above
// bound (the working directory a hook runs in, the editor's workspace
// folder; "" is file's own directory). What lies above bound is not the
// tree's: another user's nginx.conf in /tmp above a checkout is never
// found. The directories are compared with their links resolved, and the
// path returned is the resolved one; file itself is not resolved (a link
// in the tree to a file outside is found beside the link). A file named
// nginx.conf is its own. "" when there is none, or when file's directory
// does not lie in bound.
func NearestMain(file, bound string) string {
	dir := filepath.Dir(file)
	if bound == "" {
		bound = dir
	}
	dir, bound = resolved(dir), resolved(bound)
	if !boundedread.Within(dir, bound) {
		return ""
	}
	return loader.NearestMain(filepath.Join(dir, filepath.Base(file)), bound)
}

// IncludedBy is the tree that includes file, and its main file: the one
// NearestMain finds within bound, read by load, when the tree it reads
// holds file (as named, or its links resolved). "" and nil when file is a
// main file itself, or no nginx.conf within bound includes it.
func IncludedBy(file, bound string, load func(main string) (*loader.Tree, error)) (string, *loader.Tree) {
	main := NearestMain(file, bound)
	if main == "" || filepath.Base(file) == "nginx.conf" {
		return "", nil
	}
	t, err := load(main)
	if err != nil {
		return "", nil
	}
	if t.File(file) == nil && t.File(resolved(file)) == nil {
		return "", nil
	}
	return main, t
}

// resolved is p with its links resolved; p when they cannot be.
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
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
	return workDir{path: wd, real: resolved(wd), ok: true}
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

// bound is the directory a main file is looked for in (NearestMain): the
// working directory, "" when it could not be read (then the file's own
// directory only).
func (w workDir) bound() string {
	if !w.ok {
		return ""
	}
	return w.path
}

// LooksLikeNginx tells a file that nothing includes from a file that is
// not nginx configuration at all (a README, an Ansible task file under
// roles/nginx/, another program's *.conf such as supervisord's or
// php-fpm's): nginx configuration holds a directive nginx knows. A file
// named nginx.conf or *.nginx is always linted; f is the file as read
// under name (nil: not read, taken for nginx's).
func LooksLikeNginx(name string, f *parser.File) bool {
	if base := filepath.Base(name); base == "nginx.conf" || strings.HasSuffix(base, ".nginx") {
		return true
	}
	if f == nil {
		return true
	}
	for _, d := range f.Directives {
		if knowledge.IsDirective(d.Name) {
			return true
		}
	}
	return false
}
