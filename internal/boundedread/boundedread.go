// Package boundedread reads the small files nginxtune takes beside a
// configuration (settings, host facts, profiles, php-fpm pools) as
// untrusted input: regular files only, of bounded size, and, where asked,
// not through a link out of their directory.
package boundedread

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// File reads a small regular file (settings, facts, a profile): not
// a FIFO, a device or /dev/zero behind a link, and at most max bytes. When
// within is set the file's real path must lie in that directory: a file
// found beside an untrusted configuration may not be a link to one
// elsewhere. Errors name the path and never quote the content.
func File(path string, max int64, within string) ([]byte, error) {
	if within != "" {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, err
		}
		dir, err := filepath.EvalSymlinks(within)
		if err != nil {
			return nil, err
		}
		if !Within(real, dir) {
			return nil, fmt.Errorf("%s: a link to a file outside %s; not read", path, within)
		}
	}
	// open first, without waiting (a FIFO does not block a non-blocking
	// open for reading), then ask what was opened
	fh, err := os.OpenFile(path, os.O_RDONLY|ONonblock, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file; not read", path)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s: larger than %d KiB; not read", path, max>>10)
	}
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d KiB; not read", path, max>>10)
	}
	return b, nil
}

// Within reports whether the clean path p is dir or lies below it (both
// with their links already resolved, as the caller needs them).
func Within(p, dir string) bool {
	return dir != "" && (p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/"))
}

// Small reads a file of at most max bytes with plain system calls: no
// stat, so it reads what the kernel's own files (/proc, /sys) hold, whose
// size stat gives as 0, and no os.File, whose registration with the
// network poller (fcntl calls and an epoll_ctl that fails for a regular
// file) costs more than reading a line of /proc. Opened without waiting,
// so a FIFO in place of the file does not block. A file longer than max is
// an error.
func Small(path string, max int) ([]byte, error) {
	fd, err := IgnoringEINTR(func() (int, error) {
		return syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|ONonblock, 0)
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	b, err := ReadFD(fd, make([]byte, 0, min(max+1, 512)), max)
	if errors.Is(err, ErrTooLong) {
		return nil, fmt.Errorf("%s: larger than %d bytes; not read", path, max)
	}
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return b, nil
}

// ErrTooLong is ReadFD's answer for a file longer than its limit.
var ErrTooLong = errors.New("longer than the limit")

// ReadFD reads fd to its end into b (from len(b), growing it), stopping
// with ErrTooLong once more than max bytes are in b. Errors of read are
// returned as they are, for the caller to name the path.
func ReadFD(fd int, b []byte, max int) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			if len(b) > max {
				return nil, ErrTooLong
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := IgnoringEINTR(func() (int, error) { return syscall.Read(fd, b[len(b):cap(b)]) })
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		b = b[:len(b)+n]
	}
	if len(b) > max {
		return nil, ErrTooLong
	}
	return b, nil
}

// IgnoringEINTR retries a system call a signal interrupted.
func IgnoringEINTR(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
