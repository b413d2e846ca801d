package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// A Change is a new content for a file that was read: its path, its key
// and the bytes read (checked again before it is replaced), the name it
// is shown by and its new bytes.
type Change struct {
	Path, Name string
	Key        Key
	Old, New   []byte
}

// WriteError says why WriteAll stopped: the file it failed on, whether
// that file was left as it was (Damaged when even restoring it failed), how
// many files were written before it and which were not.
type WriteError struct {
	Err      error
	Name     string
	Damaged  bool
	Written  int
	Total    int
	NotWrite []string
	Staging  bool // the failure came while staging: nothing was written
}

func (e *WriteError) Error() string {
	if e.Staging {
		return fmt.Sprintf("%v (nothing formatted; not written: %s)", e.Err, strings.Join(e.NotWrite, ", "))
	}
	left := "left as it was"
	if e.Damaged {
		left = "DAMAGED"
	}
	return fmt.Sprintf("%v (%s %s; %d of %d files formatted before it; not written: %s)", e.Err, e.Name, left, e.Written, e.Total, strings.Join(e.NotWrite, ", "))
}

func (e *WriteError) Unwrap() error { return e.Err }

// StageUnchanged stages data for the file name (Stage) once it is checked
// to be the file that was read (key) holding the bytes that were read
// (old): a file replaced or changed since is ErrSwapped, nothing staged.
func StageUnchanged(name string, key Key, old, data []byte) (Staged, error) {
	now, err := ReadVerified(name, key)
	if err != nil {
		return Staged{}, err
	}
	if !bytes.Equal(now, old) {
		return Staged{}, fmt.Errorf("%s: %w", name, ErrSwapped)
	}
	return Stage(name, key, data)
}

// WriteAll puts the changes in place, all or nothing as far as the file
// system allows: every file is staged beside its place (checked to be the
// file that was read, unchanged) before any is replaced, and a failure
// while replacing leaves the file it failed on as it was. done is called
// with the index of each file written.
func WriteAll(changes []Change, done func(int)) error {
	names := make([]string, len(changes))
	for i, c := range changes {
		names[i] = c.Name
	}
	var staged []Staged
	for _, c := range changes {
		st, err := StageUnchanged(c.Path, c.Key, c.Old, c.New)
		if err != nil {
			for _, s := range staged {
				s.Discard()
			}
			return &WriteError{Err: err, Staging: true, NotWrite: names}
		}
		staged = append(staged, st)
	}
	for i, st := range staged {
		if _, err := st.Commit(); err != nil {
			for _, s := range staged[i+1:] {
				s.Discard()
			}
			return &WriteError{Err: err, Name: names[i], Damaged: errors.Is(err, ErrNotRestored), Written: i, Total: len(staged), NotWrite: names[i:]}
		}
		if done != nil {
			done(i)
		}
	}
	return nil
}
