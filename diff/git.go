package diff

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// maxArchive bounds what one revision's tree may hold, as the loader
// bounds a tree.
const maxArchive = 64 << 20

// gitTrees reads the trees --git names: the working tree's path against
// REV, or revision A against B ("A..B"). Revisions are written by git
// archive into a private temporary directory (removed by cleanup) through
// an os.Root, so no entry of the archive lands outside it; nothing of
// the trees runs.
func gitTrees(spec, p string) (old, new *Tree, cleanup func(), err error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, nil, nil, err
	}
	dir := abs
	if fi, err := os.Stat(abs); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %v", p, err)
	} else if !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, nil, nil, err
	}
	top = strings.TrimSpace(top)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, nil, nil, fmt.Errorf("%s is not inside the git repository at %s", p, top)
	}
	tmp, err := os.MkdirTemp("", "nginxtune-diff-")
	if err != nil {
		return nil, nil, nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	a, b, two := strings.Cut(spec, "..")
	if !two {
		a = spec
	}
	if old, err = revisionTree(top, a, rel, filepath.Join(tmp, "old"), p); err != nil {
		return nil, nil, cleanup, err
	}
	if two {
		new, err = revisionTree(top, b, rel, filepath.Join(tmp, "new"), p)
	} else {
		new, err = Load(p)
	}
	if err != nil {
		return nil, nil, cleanup, err
	}
	return old, new, cleanup, nil
}

// git runs git with args in dir and returns its output; the error is
// git's first line.
func git(dir string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command("git", append([]string{"-c", "core.fsmonitor=false", "-C", dir}, args...)...)
	stdout := &limited{w: &out, n: maxArchive}
	cmd.Stdout, cmd.Stderr = stdout, &limited{w: &errb, n: 4096}
	if err := cmd.Run(); err != nil {
		if stdout.over {
			// git stopped on the closed pipe: say why it was closed
			return "", errTooLarge
		}
		msg := strings.TrimSpace(errb.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		sub := args[0]
		for i := 0; i < len(args); i++ {
			if args[i] == "-c" {
				i++
				continue
			}
			sub = args[i]
			break
		}
		return "", fmt.Errorf("git %s: %s", sub, msg)
	}
	return out.String(), nil
}

// limited writes at most n bytes and fails after, noting it in over.
type limited struct {
	w    io.Writer
	n    int
	over bool
}

var errTooLarge = errors.New("the revision's tree is larger than 64 MiB")

func (l *limited) Write(p []byte) (int, error) {
	if len(p) > l.n {
		l.over = true
		return 0, errTooLarge
	}
	l.n -= len(p)
	return l.w.Write(p)
}

// noFilters returns the options that turn off every filter driver the
// user's git configuration defines (git-lfs's, most often): git archive
// runs a driver's smudge or process command on every file the revision's
// own .gitattributes assigns it to, so a tree from a pull request could
// run it, and git-lfs would fetch from the server the tree's .lfsconfig
// names. An empty command is no filter; required=false keeps git from
// failing the file. The revision's files are read as committed.
func noFilters(top string) []string {
	out, _ := git(top, "config", "-z", "--name-only", "--get-regexp", `^filter\.`)
	var args []string
	seen := map[string]bool{}
	for _, name := range strings.Split(out, "\x00") {
		name = strings.TrimPrefix(name, "filter.")
		i := strings.LastIndexByte(name, '.')
		if i <= 0 || seen[name[:i]] {
			continue
		}
		d := name[:i]
		seen[d] = true
		args = append(args, "-c", "filter."+d+".smudge=", "-c", "filter."+d+".process=", "-c", "filter."+d+".required=false")
	}
	return args
}

// revisionTree writes path rel of revision rev into dir and loads it.
func revisionTree(top, rev, rel, dir, shown string) (*Tree, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\r\n") {
		return nil, fmt.Errorf("--git: %q is not a revision", rev)
	}
	if _, err := git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("--git: %q is not a revision of %s", rev, top)
	}
	args := append(noFilters(top), "archive", "--format=tar", rev)
	if rel != "." {
		args = append(args, "--", filepath.ToSlash(rel))
	}
	tarball, err := git(top, args...)
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("--git: %s: %v", rev, err)
	} else if err != nil {
		return nil, fmt.Errorf("--git: %s has no %s: %v", rev, shown, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := extract(strings.NewReader(tarball), dir); err != nil {
		return nil, fmt.Errorf("--git: reading %s: %v", rev, err)
	}
	t, err := Load(filepath.Join(dir, rel))
	if err != nil {
		return nil, err
	}
	t.Name = rev + ":" + filepath.ToSlash(rel)
	t.Base = shown
	if fi, err := os.Stat(shown); err == nil && !fi.IsDir() {
		t.Base = filepath.Dir(shown)
	}
	return t, nil
}

// extract writes a tar stream's files, directories and links below dir
// through an os.Root: an entry that names a path outside, or goes through
// a link out of it, fails instead of writing there.
func extract(r io.Reader, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("the entry %q is outside the tree", h.Name)
		}
		if d := path.Dir(name); d != "." {
			if err := root.MkdirAll(d, 0o700); err != nil {
				return err
			}
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			// kept as written: the loader reads nothing a link names
			// outside the tree
			if err := root.Symlink(h.Linkname, name); err != nil {
				return err
			}
		}
	}
}
