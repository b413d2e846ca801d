package loader

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/nginxtune/nginxtune/parser"
)

// fsSource reads a configuration from an fs.FS: a path of the tree is the
// FS path with a leading "/", so that absolute includes resolve against the
// FS's root and nothing outside the FS can be named.
type fsSource struct{ fsys fs.FS }

func fsPath(p string) string {
	q := strings.TrimPrefix(path.Clean("/"+p), "/")
	if q == "" {
		return "."
	}
	return q
}

func (s fsSource) read(p string) ([]byte, error) {
	st, err := fs.Stat(s.fsys, fsPath(p))
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", p, ErrNotRegular)
	}
	if st.Size() > MaxTreeBytes {
		return nil, ErrTooLarge
	}
	return fs.ReadFile(s.fsys, fsPath(p))
}

func (s fsSource) glob(pattern string) ([]string, error) {
	matches, err := fs.Glob(s.fsys, fsPath(pattern))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(matches))
	for i, m := range matches {
		out[i] = "/" + m
	}
	return out, nil
}

func (s fsSource) onDisk() bool { return false }

func (s fsSource) exists(p string) bool {
	_, err := fs.Stat(s.fsys, fsPath(p))
	return err == nil
}

func (s fsSource) isDir(p string) bool {
	st, err := fs.Stat(s.fsys, fsPath(p))
	return err == nil && st.IsDir()
}

// LoadFS reads a configuration from a file system other than this
// machine's: an embed.FS, a zip archive, os.DirFS of a checkout, or an
// fstest.MapFS of bytes held in memory. main is the main file's path in
// fsys ("nginx.conf", "etc/nginx/nginx.conf"); relative includes resolve
// against its directory (or opt.Prefix, a path in fsys), absolute ones
// against the root of fsys. File paths in the tree are fsys paths with a
// leading "/". Nothing outside fsys is read; opt.Maps, opt.Live and
// opt.AllowOutside do not apply.
func LoadFS(fsys fs.FS, main string, opt Options) (*Tree, error) {
	if fsys == nil {
		return nil, errors.New("LoadFS: no file system")
	}
	l := &loader{opt: opt, src: fsSource{fsys}, state: map[*parser.File]int{},
		tree: &Tree{byPath: map[string]*parser.File{}}}
	root := "/" + fsPath(main)
	b, err := l.src.read(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", main, unwrapPathErr(err))
	}
	if isDump(b) {
		return l.loadDump(b)
	}
	l.prefix = path.Dir(root)
	if opt.Prefix != "" {
		l.prefix = "/" + fsPath(opt.Prefix)
	}
	l.tree.Dir = l.prefix
	if _, err := l.file(root); err != nil {
		return nil, fmt.Errorf("%s: %w", main, err)
	}
	l.finish([]string{root})
	return l.tree, nil
}
