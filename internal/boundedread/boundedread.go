// Package boundedread reads the small files nginxtune takes beside a
// configuration (settings, host facts, profiles, php-fpm pools) as
// untrusted input: regular files only, of bounded size, and, where asked,
// not through a link out of their directory.
package boundedread

import (
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
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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
