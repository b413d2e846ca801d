package main

import (
	"encoding/json"
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

// SARIF tags each rule with its category; a security rule carries GitHub's
// "security" tag and a security-severity, so code scanning can tell ssrf
// from gzip-comp-level.
func TestSARIFCategories(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, _, _ := runCLI(t, "", "lint", "--no-config", "--format", "sarif", "fixtures/mission/proxy-variant.conf")
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID         string `json:"id"`
						Properties struct {
							Tags             []string `json:"tags"`
							SecuritySeverity string   `json:"security-severity"`
						} `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	sev := map[string]string{}
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		got[r.ID] = r.Properties.Tags
		sev[r.ID] = r.Properties.SecuritySeverity
	}
	if strings.Join(got["ssrf"], ",") != "nginx,security" || sev["ssrf"] != "8.0" {
		t.Errorf("ssrf: %v %q", got["ssrf"], sev["ssrf"])
	}
	if strings.Join(got["gzip-comp-level"], ",") != "nginx,performance" || sev["gzip-comp-level"] != "" {
		t.Errorf("gzip-comp-level: %v %q", got["gzip-comp-level"], sev["gzip-comp-level"])
	}
	// --enable category:security runs the security rules only
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--enable", "category:security", "fixtures/mission/proxy-variant.conf")
	if code == ExitError || strings.Contains(out, "[upstream-keepalive]") {
		t.Errorf("category:security ran a performance rule (exit %d):\n%s%s", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "", "lint", "--enable", "category:speed", "fixtures/mission/proxy-variant.conf"); code != ExitError || !strings.Contains(errOut, "category:security") {
		t.Errorf("an unknown category: exit %d %q", code, errOut)
	}
}
