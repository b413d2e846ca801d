package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// man writes a page for the program and for every command it shows in
// --help, though the command named first is otherwise the only one built,
// and each page's SEE ALSO names the others.
func TestManPagesEveryCommand(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := runCLI(t, "", "man", "--dir", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := []string{"nginxtune.1"}
	for _, c := range commands {
		if c.name != "man" {
			want = append(want, "nginxtune-"+c.name+".1")
		}
	}
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("no page %s: %v", name, err)
			continue
		}
		if !strings.Contains(string(b), `\fBnginxtune\-lint\fR(1)`) && name != "nginxtune-lint.1" {
			t.Errorf("%s does not name nginxtune-lint in SEE ALSO", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nginxtune-man.1")); err == nil {
		t.Error("the hidden man command has a page")
	}
}
