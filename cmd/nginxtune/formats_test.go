package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One run writes several formats: each to its file, one to standard
// output, every one the same as when it is asked for alone.
func TestSeveralFormats(t *testing.T) {
	t.Chdir(repoRoot(t))
	dir := t.TempDir()
	sarif, json := filepath.Join(dir, "out.sarif"), filepath.Join(dir, "out.json")
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.31.6",
		"--format", "sarif="+sarif, "--format", "github", "--format", "json="+json, "fixtures/mission/proxy-variant.conf")
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for name, got := range map[string]string{"github": out, "sarif": read(t, sarif), "json": read(t, json)} {
		want, err := os.ReadFile(filepath.Join("cmd/nginxtune/testdata", "proxy-variant."+name))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("--format %s in a run of several differs from the golden file", name)
		}
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--format", "json", "--format", "text"}, "only one format can go to standard output"},
		{[]string{"--format", "json=" + json, "--format", "sarif=" + json}, "written by another --format"},
		{[]string{"--format", "xml=" + json}, `want text, json, sarif, github`},
		{[]string{"--format", "json="}, "no file after ="},
		{[]string{"--format", "json=" + filepath.Join(dir, "missing", "x.json")}, "no such file or directory"},
	} {
		args := append([]string{"lint", "--no-config"}, append(c.args, "fixtures/mission/proxy-variant.conf")...)
		_, errOut, code := runCLI(t, "", args...)
		if code != ExitError || !strings.Contains(errOut, c.err) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, ExitError, c.err)
		}
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
