package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A lint says what it read and for which nginx, once, on standard error:
// a clean run too (it printed nothing at all), and without a version how
// the rules judged and how to give one. What every nginx refuses is an
// error without a version, so --fail-on error fails a typo (it passed: a
// warning "up to nginx 1.30.4"). Standard output keeps the formats alone.
func TestLintSummary(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.conf")
	os.WriteFile(clean, []byte("events {}\nhttp {\n    server_tokens off;\n}\n"), 0o644)
	typo := filepath.Join(dir, "typo.conf")
	os.WriteFile(typo, []byte("events {}\nhttp {\n    server_tokens off;\n    server {\n        locaton / { }\n    }\n}\n"), 0o644)

	out, errOut, code := runCLI(t, "", "lint", "--no-config", clean)
	if code != ExitOK || out != "" {
		t.Errorf("clean lint: exit %d, stdout %q; want 0 and nothing", code, out)
	}
	if want := "nginxtune: 1 file, 3 directives, no findings (no nginx version given, so judged by every version nginxtune knows"; !strings.HasPrefix(errOut, want) ||
		strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "set one with --nginx-version") {
		t.Errorf("clean lint said %q, want one line %q... naming --nginx-version", errOut, want)
	}

	_, errOut, _ = runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.22.1", clean)
	if want := "nginxtune: 1 file, 3 directives, no findings (nginx 1.22.1, given with --nginx-version)\n"; errOut != want {
		t.Errorf("with a version: %q, want %q", errOut, want)
	}

	out, errOut, code = runCLI(t, "", "lint", "--no-config", "--fail-on", "error", typo)
	if code != ExitFindings {
		t.Errorf("--fail-on error on a typo every nginx refuses: exit %d, want %d\n%s%s", code, ExitFindings, out, errOut)
	}
	if n := strings.Count(out+errOut, "--nginx-version"); n != 1 {
		t.Errorf("how to give the version is said %d times, want once (the summary):\n%s%s", n, out, errOut)
	}

	out, errOut, _ = runCLI(t, "", "lint", "--no-config", "--format", "json", typo)
	var report map[string]any
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Errorf("--format json: stdout is not JSON alone: %v\n%s", err, out)
	}
	if !strings.HasPrefix(errOut, "nginxtune: 1 file, 5 directives, 3 findings (") {
		t.Errorf("--format json: stderr %q, want the summary", errOut)
	}

	// the settings file the summary names is the tree's: its name is
	// escaped like every byte from the tree
	evil := filepath.Join(dir, "::error::x\x1b[31m\u202e")
	os.MkdirAll(evil, 0o755)
	os.WriteFile(filepath.Join(evil, "nginx.conf"), []byte("events {}\nhttp {\n    server_tokens off;\n}\n"), 0o644)
	os.WriteFile(filepath.Join(evil, ".nginxtune.yaml"), []byte("nginx-version: 1.22.1\n"), 0o644)
	_, errOut, _ = runCLI(t, "", "lint", filepath.Join(evil, "nginx.conf"))
	if !strings.Contains(errOut, "(nginx 1.22.1, from ") || strings.ContainsAny(errOut, "\x1b\u202e") {
		t.Errorf("the summary names the settings file unescaped, or not at all: %q", errOut)
	}
}
