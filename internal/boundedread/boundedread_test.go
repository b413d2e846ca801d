package boundedread

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSmall(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// sizes around the first buffer and the limit
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 10000} {
		want := bytes.Repeat([]byte("x"), n)
		got, err := Small(write("f", want), 10000)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes: got %d bytes, %v", n, len(got), err)
		}
	}
	if _, err := Small(write("big", make([]byte, 10001)), 10000); err == nil || !strings.Contains(err.Error(), "larger than 10000 bytes") {
		t.Errorf("a file past the limit: %v", err)
	}
	if _, err := Small(filepath.Join(dir, "missing"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	// the kernel's files: stat says 0 bytes, reading gives the line
	if b, err := Small("/proc/sys/net/core/somaxconn", 64); err != nil || len(bytes.TrimSpace(b)) == 0 {
		t.Errorf("/proc/sys/net/core/somaxconn: %q, %v", b, err)
	}
	// a FIFO with no writer: answered at once, not waited on
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Small(fifo, 100); done <- err }()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang guard: a FIFO read waits forever
		t.Fatal("Small waited on a FIFO")
	}
	// a directory is an error, not an empty file
	if _, err := Small(dir, 100); err == nil {
		t.Error("a directory read as a file")
	}
}
