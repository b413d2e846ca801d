package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The in-place rewrite fails at each of its steps in turn (a fault
// injected where a full disk, the file size limit or an I/O error would
// strike): every time, both names of the hard-linked file hold the old
// bytes, and a failure to write them back is said (ErrNotRestored).
func TestInPlaceFailureLeavesOldContent(t *testing.T) {
	realWrite, realAlloc := writeAt, fallocate
	t.Cleanup(func() { writeAt, fallocate = realWrite, realAlloc })
	old := bytes.Repeat([]byte("old content\n"), 300)
	type fault struct {
		name        string
		data        []byte
		noFallocate bool
		// fail reports whether the write at off (its nth) fails, after
		// writing half its bytes
		fail         func(n int, off int64) bool
		notRestored  bool
		allocFailure bool
	}
	longer, shorter := bytes.Repeat([]byte("new\n"), 4000), []byte("new\n")
	faults := []fault{
		{name: "allocation", data: longer, allocFailure: true},
		{name: "tail", data: longer, noFallocate: true, fail: func(n int, off int64) bool { return off > 0 }},
		{name: "overwrite-longer", data: longer, fail: func(n int, off int64) bool { return off == 0 && n == 2 }},
		{name: "overwrite-shorter", data: shorter, fail: func(n int, off int64) bool { return n == 1 }},
		{name: "restore-too", data: shorter, fail: func(n int, off int64) bool { return true }, notRestored: true},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			p, link := filepath.Join(dir, "nginx.conf"), filepath.Join(dir, "b")
			write(t, p, old)
			os.Link(p, link)
			n := 0
			writeAt = func(fd int, b []byte, off int64) error {
				n++
				if f.fail != nil && f.fail(n, off) {
					realWrite(fd, b[:len(b)/2], off)
					return syscall.ENOSPC
				}
				return realWrite(fd, b, off)
			}
			fallocate = func(fd int, mode uint32, off, size int64) error {
				switch {
				case f.allocFailure:
					return syscall.ENOSPC
				case f.noFallocate:
					return syscall.EOPNOTSUPP
				}
				return realAlloc(fd, mode, off, size)
			}
			err := stageCommit(p, keyOf(t, p), f.data)
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("%v, want ENOSPC", err)
			}
			if errors.Is(err, ErrNotRestored) != f.notRestored {
				t.Errorf("%v: ErrNotRestored %v, want %v", err, !f.notRestored, f.notRestored)
			}
			if !f.notRestored {
				same(t, p, old)
				same(t, link, old)
			}
			leftovers(t, dir)
		})
	}
}
