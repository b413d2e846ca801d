// Package atomicfile writes files so that a failure leaves the old file
// whole and a file swapped under nginxtune is never written through.
package atomicfile

// Rewriting a file that was read. A fixed file is named by the real
// path the loader read it at; between that read and the write, whoever can
// write to the tree (a pull request's checkout, a second process) could swap
// the file, or a directory above it, for a link to a file outside. So every
// access goes through a descriptor of the file's directory, opened without
// following a link and checked to still be that directory, and the file is
// checked to be the one read (device and inode) before it is read, replaced
// or rewritten. The new content is renamed into place inside that
// directory: a rename replaces a link that appeared meanwhile, never what
// it points to.

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/nginxtune/nginxtune/internal/boundedread"
)

// ErrSwapped says a file or directory is no longer the one that was read.
var ErrSwapped = errors.New("changed while nginxtune was reading it (replaced, or a link put in its place); nothing written, run again")

// Key is a file's device and inode (zero for a file not from the file system).
type Key struct{ Dev, Ino uint64 }

// openDir opens the directory at the real path dir without following a
// link in its place, and checks that the directory opened is still at dir
// (no component of the path was swapped for a link since it was resolved).
func openDir(dir string) (int, error) {
	fd, err := boundedread.IgnoringEINTR(func() (int, error) {
		return syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	})
	if err != nil {
		if err == syscall.ELOOP || err == syscall.ENOTDIR {
			return -1, fmt.Errorf("%s: %w", dir, ErrSwapped)
		}
		return -1, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	got, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("%s: cannot check the directory is the one read (/proc is needed): %v", dir, err)
	}
	if got != filepath.Clean(dir) {
		syscall.Close(fd)
		return -1, fmt.Errorf("%s: %w", dir, ErrSwapped)
	}
	return fd, nil
}

// statAt is fstatat without following a link (golang.org/x/sys/unix: the
// syscall package has no fstatat here).
func statAt(dirfd int, name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	return st, err
}

// checkSame reports ErrSwapped unless st is a regular file with the key
// (a zero key, for a file not from the file system, checks the type only).
func checkSame(name string, st unix.Stat_t, key Key) error {
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s: %w", name, ErrSwapped)
	}
	if key != (Key{}) && (uint64(st.Dev) != key.Dev || st.Ino != key.Ino) {
		return fmt.Errorf("%s: %w", name, ErrSwapped)
	}
	return nil
}

// ReadVerified reads the file at the real path name if it is still the
// file with key.
func ReadVerified(name string, key Key) ([]byte, error) {
	dirfd, err := openDir(filepath.Dir(name))
	if err != nil {
		return nil, err
	}
	defer syscall.Close(dirfd)
	fd, err := boundedread.IgnoringEINTR(func() (int, error) {
		return syscall.Openat(dirfd, filepath.Base(name), syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	})
	if err != nil {
		if err == syscall.ELOOP {
			return nil, fmt.Errorf("%s: %w", name, ErrSwapped)
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if err := checkSame(name, st, key); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// Staged is a fix written beside its file, waiting to be renamed in.
type Staged struct {
	Name  string // the real path
	dirfd int    // its directory, verified
	tmp   string // the staged file's name in dirfd; "": rewrite in place (hard links, or an owner that cannot be kept)
	key   Key
	data  []byte
}

// Stage writes data beside name (a real path, the file with key) with its
// mode, owner and group, through its verified directory. Where the file
// will be rewritten in place instead (it has hard links, or its owner
// cannot be given to a new file), the staged copy proves that the file
// system has room for the new content and that it is within this
// process's file size limit (ulimit -f), and is removed: a full disk or
// the limit fails here, before the file is touched.
func Stage(name string, key Key, data []byte) (Staged, error) {
	dirfd, err := openDir(filepath.Dir(name))
	if err != nil {
		return Staged{}, err
	}
	st := Staged{Name: name, dirfd: dirfd, key: key, data: data}
	fail := func(err error) (Staged, error) {
		if st.tmp != "" {
			syscall.Unlinkat(dirfd, st.tmp)
		}
		syscall.Close(dirfd)
		return Staged{}, err
	}
	base := filepath.Base(name)
	cur, err := statAt(dirfd, base)
	if err != nil {
		return fail(&os.PathError{Op: "stat", Path: name, Err: err})
	}
	if err := checkSame(name, cur, key); err != nil {
		return fail(err)
	}
	// a rename would split hard links: rewrite in place
	inPlace := cur.Nlink > 1
	// O_EXCL below refuses a name that exists anyway
	tmp := hiddenName(base)
	fd, err := boundedread.IgnoringEINTR(func() (int, error) {
		return syscall.Openat(dirfd, tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	})
	if err != nil {
		if inPlace && (err == syscall.EACCES || err == syscall.EPERM) {
			// a linked file in a directory this process cannot
			// write: no proof, Commit's in-place protocol still
			// leaves the file whole or rewritten
			return st, nil
		}
		return fail(&os.PathError{Op: "create", Path: filepath.Join(filepath.Dir(name), tmp), Err: err})
	}
	st.tmp = tmp
	f := os.NewFile(uintptr(fd), tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil && !inPlace {
		err = f.Chmod(os.FileMode(cur.Mode & 0o7777))
	}
	if err == nil && !inPlace && (int(cur.Uid) != os.Geteuid() || int(cur.Gid) != os.Getegid()) {
		// keep the owner, or else rewrite in place
		inPlace = f.Chown(int(cur.Uid), int(cur.Gid)) != nil
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(&os.PathError{Op: "write", Path: name, Err: unwrap(err)})
	}
	if inPlace {
		syscall.Unlinkat(dirfd, st.tmp)
		st.tmp = ""
	}
	return st, nil
}

// hiddenName is the name of a staged copy of the file base, beside it:
// hidden, and unguessable ahead (math/rand/v2's generator is seeded from
// the kernel's randomness at start, without linking crypto/rand into every
// command).
func hiddenName(base string) string {
	var rnd [8]byte
	binary.LittleEndian.PutUint64(rnd[:], rand.Uint64())
	return "." + base + ".nginxtune-" + hex.EncodeToString(rnd[:6])
}

// unwrap returns the system call's error of an *os.PathError, so that a
// message names the file being written rather than the staged copy.
func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Commit puts a staged file in place: a rename inside the verified
// directory, or a rewrite in place of the verified file where the rename
// would lose an owner or a hard link (rewriteInPlace: all or nothing as
// well). It returns the key of the file now in place. On an error the file
// holds what it held before.
func (st Staged) Commit() (Key, error) {
	defer syscall.Close(st.dirfd)
	base := filepath.Base(st.Name)
	if st.tmp != "" {
		// the file must still be the one read: a rename would replace a
		// link put in its place, but a file replaced meanwhile holds what
		// somebody else wrote
		cur, err := statAt(st.dirfd, base)
		if err == nil {
			err = checkSame(st.Name, cur, st.key)
		}
		if err == nil {
			err = syscall.Renameat(st.dirfd, st.tmp, st.dirfd, base)
		}
		if err != nil {
			syscall.Unlinkat(st.dirfd, st.tmp)
			return Key{}, err
		}
		now, err := statAt(st.dirfd, base)
		return Key{uint64(now.Dev), now.Ino}, err
	}
	fd, err := boundedread.IgnoringEINTR(func() (int, error) {
		return syscall.Openat(st.dirfd, base, syscall.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	})
	if err != nil {
		if err == syscall.ELOOP {
			return Key{}, fmt.Errorf("%s: %w", st.Name, ErrSwapped)
		}
		return Key{}, &os.PathError{Op: "open", Path: st.Name, Err: err}
	}
	defer syscall.Close(fd)
	var cur unix.Stat_t
	if err := unix.Fstat(fd, &cur); err != nil {
		return Key{}, err
	}
	if err := checkSame(st.Name, cur, st.key); err != nil {
		return Key{}, err
	}
	if err := rewriteInPlace(fd, st.data, cur.Size); err != nil {
		return Key{}, &os.PathError{Op: "write", Path: st.Name, Err: err}
	}
	return st.key, nil
}

// ErrNotRestored wraps the error of an in-place rewrite whose file could
// not be given its old content back.
var ErrNotRestored = errors.New("COULD NOT RESTORE its old content")

// rewriteInPlace replaces the content of the open file fd (size bytes
// long) with data, so that a failure leaves the old content: nothing is
// overwritten before every block the new content needs is had.
//
//  1. The old bytes are read and kept.
//  2. The file size limit (RLIMIT_FSIZE) is checked against the new size.
//  3. The blocks the new content needs are allocated (fallocate, where the
//     file system has it) and the part of the new content past the old
//     end is written there first: a full disk (ENOSPC) or the limit
//     (EFBIG; the Go runtime ignores SIGXFSZ, so the write fails instead
//     of the signal killing the process) fails here, and cutting the file
//     back to its old size leaves the old content whole.
//  4. Only then is the old content overwritten, over blocks that are the
//     file's already; a larger file is cut to the new size last.
//  5. Should step 4 still fail (an I/O error, a copy-on-write file system
//     out of room), the old bytes are written back; if even that fails the
//     error says so (ErrNotRestored).
func rewriteInPlace(fd int, data []byte, size int64) error {
	old, err := boundedread.ReadFD(fd, make([]byte, 0, size+1), int(size))
	if err != nil {
		return err
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_FSIZE, &lim) == nil && lim.Cur != unix.RLIM_INFINITY && uint64(len(data)) > lim.Cur {
		return syscall.EFBIG
	}
	n, o := int64(len(data)), int64(len(old))
	if n > 0 {
		if err := fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, 0, n); err != nil && err != syscall.EOPNOTSUPP && err != syscall.ENOSYS {
			unix.Ftruncate(fd, o) // frees what was allocated past the end
			return err
		}
	}
	if n > o {
		if err := writeAt(fd, data[o:], o); err != nil {
			unix.Ftruncate(fd, o)
			return err
		}
	}
	err = writeAt(fd, data[:min(n, o)], 0)
	if err == nil && n < o {
		err = unix.Ftruncate(fd, n)
	}
	if err == nil {
		err = unix.Fsync(fd)
	}
	if err != nil {
		rerr := writeAt(fd, old, 0)
		if rerr == nil {
			rerr = unix.Ftruncate(fd, o)
		}
		if rerr == nil {
			rerr = unix.Fsync(fd)
		}
		if rerr != nil {
			return fmt.Errorf("%w (%w: %v)", err, ErrNotRestored, rerr)
		}
	}
	return err
}

// writeAt writes all of b at off; a short write is an error (the file
// system's or the limit's). Tests replace it to inject a failure.
var writeAt = func(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := boundedread.IgnoringEINTR(func() (int, error) { return unix.Pwrite(fd, b, off) })
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}

// fallocate is unix.Fallocate; tests replace it.
var fallocate = unix.Fallocate

// Discard removes a staged file that will not be committed.
func (st Staged) Discard() {
	if st.tmp != "" {
		syscall.Unlinkat(st.dirfd, st.tmp)
	}
	syscall.Close(st.dirfd)
}

// Write replaces name with what fill writes: a hidden file beside it,
// synced, given mode, then renamed into place, so that a failure (fill's, a
// full disk) leaves the old file whole and nothing beside it.
func Write(name string, mode os.FileMode, fill func(io.Writer) error) error {
	tmp, err := temp(name, mode, fill)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func temp(name string, mode os.FileMode, fill func(io.Writer) error) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".nginxtune-*")
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(tmp, 64<<10)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// ReadOnly reports whether the file (a link followed) has no write
// permission for anyone: lint --fix and fmt leave it as it is unless told
// to rewrite it (--force), as an editor asks first.
func ReadOnly(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().Perm()&0o222 == 0
}
