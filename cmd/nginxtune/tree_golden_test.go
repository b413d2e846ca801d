package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"
)

// TestLintGoldenMidTree pins the output of a mid-size tree (the benchmark's
// generator, 60 servers over 6 files): the include files are read and
// parsed in parallel and the rules run in parallel, and neither may change
// a byte of what is printed, in any run.
func TestLintGoldenMidTree(t *testing.T) {
	dir := t.TempDir()
	main, _ := gentree.Write(t, dir, 60, 6)
	var first string
	for i := 0; i < 5; i++ {
		out, errOut, code := runCLI(t, "", "lint", "--nginx-version", "1.22.1", "--format", "json", main)
		if code != ExitFindings {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		out = strings.ReplaceAll(out, filepath.ToSlash(dir), "TREE")
		if i == 0 {
			first = out
			golden(t, "gentree-60.json", out)
		} else if out != first {
			t.Fatalf("run %d printed something else than run 1", i+1)
		}
	}
}
