package atomicfile

import (
	"os"
	"path/filepath"
)

// TempIn is Temp inside root: data, synced and with mode, in a new hidden
// file beside name (relative to root), created through root, so that no
// link on the way leads out of it (os.Root), for a root.Rename onto name
// once every file of a change is staged. It returns the hidden file's name
// relative to root; nothing is left behind on failure.
func TempIn(root *os.Root, name string, data []byte, mode os.FileMode) (string, error) {
	// O_EXCL refuses a name that exists, a link included
	tmp := filepath.Join(filepath.Dir(name), hiddenName(filepath.Base(name)))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// LinkIn is TempIn for a symbolic link to target: a new hidden link
// beside name (relative to root), under a fresh name (symlinkat refuses
// one that exists), for a root.Rename onto name. It returns the link's
// name relative to root.
func LinkIn(root *os.Root, name, target string) (string, error) {
	tmp := filepath.Join(filepath.Dir(name), hiddenName(filepath.Base(name)))
	if err := root.Symlink(target, tmp); err != nil {
		return "", err
	}
	return tmp, nil
}
