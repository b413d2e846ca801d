package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// README's sample output is what its first command prints, byte for byte.
func TestREADMESampleOutput(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "README's first command prints:\n\n```\n")
	if i < 0 {
		t.Fatal("README has no sample output block")
	}
	s = s[i+len("README's first command prints:\n\n```\n"):]
	want := s[:strings.Index(s, "```\n")]
	if !strings.Contains(string(b), "go run ./cmd/nginxtune lint fixtures/mission/proxy-variant.conf") {
		t.Fatal("README's first command changed: update this test")
	}
	t.Chdir(root)
	// what a terminal shows: the report, then the summary on stderr
	out, errOut, code := runCLI(t, "", "lint", "fixtures/mission/proxy-variant.conf")
	if code != ExitFindings {
		t.Errorf("exit %d", code)
	}
	if out += errOut; out != want {
		t.Errorf("README's sample differs from the real output:\n%s", out)
	}
}
