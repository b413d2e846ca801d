package atomicfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func keyOf(t *testing.T, p string) Key {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return Key{uint64(st.Dev), st.Ino}
}

func write(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o640); err != nil {
		t.Fatal(err)
	}
}

func same(t *testing.T, p string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes (%.20q...), want the %d bytes %.20q...", p, len(got), got, len(want), want)
	}
}

// leftovers fails on a staged copy left beside the files.
func leftovers(t *testing.T, dir string) {
	t.Helper()
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if strings.Contains(e.Name(), ".nginxtune-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func stageCommit(name string, key Key, data []byte) error {
	st, err := Stage(name, key, data)
	if err != nil {
		return err
	}
	_, err = st.Commit()
	return err
}

// A file with one name is replaced by a rename (a new inode, same mode); a
// hard-linked file is rewritten in place, so every name sees the new
// content; a file swapped since it was read is not written.
func TestStageCommit(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.conf")
	write(t, one, []byte("old\n"))
	k := keyOf(t, one)
	if err := stageCommit(one, k, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	same(t, one, []byte("new\n"))
	if fi, _ := os.Stat(one); fi.Mode().Perm() != 0o640 || keyOf(t, one) == k {
		t.Errorf("renamed file: mode %v, same inode %v", fi.Mode(), keyOf(t, one) == k)
	}

	linked, other := filepath.Join(dir, "linked.conf"), filepath.Join(dir, "other.conf")
	write(t, linked, []byte("a long old content\n"))
	os.Link(linked, other)
	k = keyOf(t, linked)
	for _, data := range []string{"short\n", "a content longer than the old one was\n", ""} {
		if err := stageCommit(linked, k, []byte(data)); err != nil {
			t.Fatal(err)
		}
		same(t, other, []byte(data))
	}
	if keyOf(t, linked) != k {
		t.Error("the hard link was split")
	}

	swapped := filepath.Join(dir, "swapped.conf")
	write(t, swapped, []byte("old\n"))
	k = keyOf(t, swapped)
	os.Rename(swapped, swapped+".kept") // kept: its inode is not reused
	write(t, swapped, []byte("somebody else's\n"))
	if err := stageCommit(swapped, k, []byte("new\n")); !errors.Is(err, ErrSwapped) {
		t.Errorf("swapped: %v, want ErrSwapped", err)
	}
	same(t, swapped, []byte("somebody else's\n"))
	os.Remove(swapped + ".kept")
	leftovers(t, dir)
}

// child runs a test's part in a subprocess (under ulimit -f, or in a
// mount namespace of its own) when the parent asked for it.
func child(t *testing.T, name string) (dir string, ok bool) {
	if os.Getenv("ATOMICFILE_CHILD") != name {
		return "", false
	}
	return os.Getenv("ATOMICFILE_DIR"), true
}

// runChild runs the test named in a subprocess: bash -c script, with "$@" the
// test binary's command line.
func runChild(t *testing.T, name, dir, script string, extra ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"-c", script, "sh"}, extra...)
	args = append(args, os.Args[0], "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	// bash: its ulimit -f counts KiB (dash counts 512-byte blocks)
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD="+name, "ATOMICFILE_DIR="+dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The attack: `ln nginx.conf b; (ulimit -f 2; nginxtune fmt nginx.conf)`
// cut both names to 2,048 bytes. Under a real file size limit, in a
// subprocess, a hard-linked file is rewritten whole or not at all: new
// content past the limit fails with EFBIG (the process is not killed by
// SIGXFSZ) and both names keep the old bytes; so does a file already
// past the limit, and content within the limit is written.
func TestFileSizeLimitInPlace(t *testing.T) {
	type tc struct {
		name     string
		old, new []byte
		fits     bool
	}
	cases := []tc{
		{"grows-past", bytes.Repeat([]byte("o"), 1000), bytes.Repeat([]byte("n"), 5000), false},
		{"already-past", bytes.Repeat([]byte("o"), 3000), bytes.Repeat([]byte("n"), 2500), false},
		{"fits", bytes.Repeat([]byte("o"), 3000), bytes.Repeat([]byte("n"), 1500), true},
	}
	if dir, ok := child(t, t.Name()); ok {
		for _, c := range cases {
			p := filepath.Join(dir, c.name+".conf")
			err := stageCommit(p, keyOf(t, p), c.new)
			fmt.Printf("CASE %s: %v\n", c.name, err)
		}
		return
	}
	dir := t.TempDir()
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".conf")
		write(t, p, c.old)
		if err := os.Link(p, filepath.Join(dir, c.name+".link")); err != nil {
			t.Skip("no hard links here:", err)
		}
	}
	out, err := runChild(t, t.Name(), dir, `ulimit -f 2 && exec "$@"`)
	if err != nil {
		// killed by SIGXFSZ, or the test binary's own failure
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, c := range cases {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "CASE "+c.name+":") {
				line = l
			}
		}
		want := c.old
		if c.fits {
			want = c.new
			if !strings.HasSuffix(line, ": <nil>") {
				t.Errorf("%s: %q, want no error", c.name, line)
			}
		} else if !strings.Contains(line, "file too large") {
			t.Errorf("%s: %q, want EFBIG (file too large)", c.name, line)
		}
		same(t, filepath.Join(dir, c.name+".conf"), want)
		same(t, filepath.Join(dir, c.name+".link"), want)
	}
	leftovers(t, dir)
}

// The attack: on a full disk fmt left nginx.conf at 4,096 bytes. On a real
// small file system (a 64 KiB tmpfs, mounted in a mount namespace of the
// subprocess's own, so as root only), a hard-linked file whose new content
// does not fit keeps its old bytes under both names, and nothing is left
// beside it.
func TestFullDiskInPlace(t *testing.T) {
	if dir, ok := child(t, t.Name()); ok {
		p := filepath.Join(dir, "nginx.conf")
		old := bytes.Repeat([]byte("# old line\n"), 400)
		write(t, p, old)
		if err := os.Link(p, filepath.Join(dir, "b")); err != nil {
			t.Fatal(err)
		}
		data := bytes.Repeat([]byte("# new line\n"), 12000)
		err := stageCommit(p, keyOf(t, p), data)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("write: %v, want ENOSPC", err)
		}
		same(t, p, old)
		same(t, filepath.Join(dir, "b"), old)
		leftovers(t, dir)
		// the rewrite in place on its own, without Stage's staged copy
		// (a directory this process cannot write): the same
		dirfd, err := openDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Staged{Name: p, dirfd: dirfd, key: keyOf(t, p), data: data}.Commit()
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("in place: %v, want ENOSPC", err)
		}
		same(t, p, old)
		same(t, filepath.Join(dir, "b"), old)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	dir := t.TempDir()
	if out, err := exec.Command("unshare", "-m", "true").CombinedOutput(); err != nil {
		t.Skipf("no mount namespace here: %v %s", err, out)
	}
	out, err := runChild(t, t.Name(), dir, `dir=$1; shift; exec unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$0" && exec "$@"' "$dir" "$@"`, dir)
	if err != nil || !strings.Contains(out, "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
