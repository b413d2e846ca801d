package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// WriteAll writes every change or none: a file changed since it was read
// stops the batch while staging, and no file is written, the first
// included; a batch that stages whole is written whole.
func TestWriteAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.conf"), filepath.Join(dir, "b.conf")
	os.WriteFile(a, []byte("a\n"), 0o644)
	os.WriteFile(b, []byte("b\n"), 0o644)
	changes := []Change{
		{Path: a, Name: "a.conf", Key: keyOf(t, a), Old: []byte("a\n"), New: []byte("A\n")},
		{Path: b, Name: "b.conf", Key: keyOf(t, b), Old: []byte("b\n"), New: []byte("B\n")},
	}
	os.WriteFile(b, []byte("b changed by someone else\n"), 0o644)
	var written []int
	err := WriteAll(changes, func(i int) { written = append(written, i) })
	var we *WriteError
	if !errors.As(err, &we) || !we.Staging || !errors.Is(err, ErrSwapped) || len(written) != 0 {
		t.Fatalf("err %v, written %v", err, written)
	}
	if got, _ := os.ReadFile(a); string(got) != "a\n" {
		t.Errorf("a.conf was written: %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("staged files left behind: %v", entries)
	}
	changes[1].Old = []byte("b changed by someone else\n")
	if err := WriteAll(changes, func(i int) { written = append(written, i) }); err != nil || len(written) != 2 {
		t.Fatalf("err %v, written %v", err, written)
	}
	for p, want := range map[string]string{a: "A\n", b: "B\n"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
}
