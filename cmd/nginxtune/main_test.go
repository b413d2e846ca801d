package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// repoRoot is where tests run the command from, so paths in output are
// relative and the same on every machine.
func repoRoot(t *testing.T) string { return root }

// root is computed when the package loads, before any test changes directory.
var root = func() string {
	r, err := filepath.Abs("../..")
	if err != nil {
		panic(err)
	}
	return r
}()

func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	buildDetails = false
	version = "0.0.0-test"
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join(repoRoot(t), "cmd/nginxtune/testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/nginxtune -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test ./cmd/nginxtune -update to accept):\n%s", name, got)
	}
}

func TestLintFormatsGolden(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, format := range []string{"text", "json", "sarif", "github"} {
		out, errOut, code := runCLI(t, "", "lint", "--no-config", "--format", format, "--nginx-version", "1.31.6", "fixtures/mission/proxy-variant.conf")
		if code != ExitFindings {
			t.Errorf("%s: exit %d, want %d; stderr %s", format, code, ExitFindings, errOut)
		}
		if format == "json" || format == "sarif" {
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Errorf("%s output is not JSON: %v", format, err)
			}
		}
		golden(t, "proxy-variant."+format, out)
	}
}

func TestExitCodes(t *testing.T) {
	t.Chdir(repoRoot(t))
	dir := t.TempDir()
	badCfg := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badCfg, []byte("disable: [gzip-comp-level]\nfail_on: error\n"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"clean", []string{"lint", "--no-config", "--nginx-version", "1.30.0", "fixtures/rules/proxy-keepalive-headers-1.30.conf"}, ExitOK, ""},
		{"findings", []string{"lint", "--no-config", "fixtures/rules/gzip.conf"}, ExitFindings, ""},
		{"info only passes by default", []string{"lint", "--no-config", "--enable", "access-log-unbuffered", "fixtures/rules/misc.conf"}, ExitOK, ""},
		{"info fails with --fail-on info", []string{"lint", "--no-config", "--fail-on", "info", "--enable", "access-log-unbuffered", "fixtures/rules/misc.conf"}, ExitFindings, ""},
		{"fail-on none", []string{"lint", "--no-config", "--fail-on", "none", "fixtures/rules/gzip.conf"}, ExitOK, ""},
		{"broken file", []string{"lint", "--no-config", "fixtures/parser/syntax/unclosed-block.conf"}, ExitError, ""},
		{"missing path", []string{"lint", "--no-config", "fixtures/nope.conf"}, ExitError, "fixtures/nope.conf: no such file or directory"},
		{"bad flag", []string{"lint", "--no-such-flag"}, ExitError, "unknown flag"},
		{"bad rule", []string{"lint", "--no-config", "--disable", "nope", "fixtures/rules/gzip.conf"}, ExitError, `"nope" is not a rule`},
		{"bad version", []string{"lint", "--no-config", "--nginx-version", "one", "fixtures/rules/gzip.conf"}, ExitError, "--nginx-version"},
		{"bad config key", []string{"lint", "--config", badCfg, "fixtures/rules/gzip.conf"}, ExitError, "bad.yaml:2: unknown key \"fail_on\""},
		{"explain unknown", []string{"explain", "nope"}, ExitError, "not a rule"},
		{"parse broken", []string{"parse", "fixtures/parser/syntax/unbalanced-close.conf"}, ExitError, "unbalanced-close.conf:6:1: error: unexpected \"}\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, "", c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, errOut)
			}
			if c.err != "" && !strings.Contains(errOut, c.err) {
				t.Errorf("stderr %q does not contain %q", errOut, c.err)
			}
			if c.code == ExitError && c.err != "" && strings.Count(strings.TrimSpace(errOut), "\n") > 0 && c.name != "parse broken" {
				t.Errorf("error is not one line: %q", errOut)
			}
		})
	}
}

func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	conf, _ := os.ReadFile(filepath.Join(repoRoot(t), "fixtures/rules/gzip.conf"))
	os.WriteFile(filepath.Join(dir, "nginx.conf"), conf, 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, ".nginxtune.yaml"), []byte("nginx-version: 1.30.0\ndisable: [gzip-compressed-types, server-tokens]\nseverity:\n  gzip-comp-level: error\n"), 0o644)
	out, errOut, code := runCLI(t, "", "lint", "--format", "json", filepath.Join(dir, "nginx.conf"))
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		NginxVersion string `json:"nginx_version"`
		Findings     []struct{ Rule, Severity string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.NginxVersion != "1.30.0" || len(r.Findings) != 1 || r.Findings[0].Rule != "gzip-comp-level" || r.Findings[0].Severity != "error" {
		t.Errorf("config not applied: %+v", r)
	}
}

// --fix applies the fixes, and the fixed configuration passes a real nginx -t.
func TestFix(t *testing.T) {
	for _, c := range []struct{ fixture, version string }{
		{"fixtures/mission/proxy-variant.conf", "1.31.6"},
		{"fixtures/mission/proxy-variant-1.22.conf", "1.22.1"},
		{"fixtures/rules/gzip.conf", "1.30.0"},
	} {
		t.Run(filepath.Base(c.fixture), func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(repoRoot(t), c.fixture))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			p := filepath.Join(dir, "nginx.conf")
			os.WriteFile(p, src, 0o640)
			_, errOut, _ := runCLI(t, "", "lint", "--no-config", "--fix", "--nginx-version", c.version, p)
			if !strings.Contains(errOut, "applied") {
				t.Fatalf("no fixes applied: %s", errOut)
			}
			fixed, _ := os.ReadFile(p)
			golden(t, "fixed-"+filepath.Base(c.fixture), string(fixed))
			if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
				t.Errorf("mode changed to %v", st.Mode().Perm())
			}
			if c.version == "1.22.1" {
				if res := nginxtest.CheckTree(t, p); !res.OK {
					t.Errorf("fixed file fails nginx -t: %s", res.Output)
				}
			}
			// a second run has nothing left to fix
			_, errOut, _ = runCLI(t, "", "lint", "--no-config", "--fix", "--nginx-version", c.version, p)
			if !strings.Contains(errOut, "applied 0 fixes") {
				t.Errorf("second --fix run: %s", errOut)
			}
		})
	}
}

func TestParseCrossplane(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, errOut, code := runCLI(t, "", "parse", "--format", "crossplane", "fixtures/trees/glob")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		Status string
		Errors []any
		Config []struct {
			File   string
			Status string
			Parsed []struct {
				Directive string
				Line      int
				Args      []string
				Includes  []int
				Block     *[]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.Status != "ok" || len(p.Config) != 5 || p.Config[0].Parsed[0].Directive != "events" || p.Config[0].Parsed[0].Block == nil {
		t.Errorf("unexpected payload: %s", out[:min(len(out), 400)])
	}
}

func TestVersionFlag(t *testing.T) {
	out, _, code := runCLI(t, "", "--version")
	if code != 0 || !strings.Contains(out, "0.0.0-test") {
		t.Errorf("--version: %q (exit %d)", out, code)
	}
}

func TestLintWithFactsFile(t *testing.T) {
	t.Chdir(repoRoot(t))
	facts := filepath.Join(t.TempDir(), "prod.yaml")
	os.WriteFile(facts, []byte("cpu_online: 64\ncpu_quota: 2\nnofile: {soft: 1024, hard: 524288}\n"), 0o644)
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.30.0", "--facts", facts, "--format", "json", "fixtures/rules/worker-fd-limit.conf")
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{`"rule": "host-workers"`, `"rule": "host-fd-limit"`, "prod.yaml"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"rule": "worker-fd-limit"`) {
		t.Error("worker-fd-limit reported although host facts give the real limit")
	}
}

func TestFactsCommand(t *testing.T) {
	out, _, code := runCLI(t, "", "facts", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var f map[string]struct {
		Value  any
		Source string
	}
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	if f["cpu_online"].Source == "" || f["mem_total"].Source == "" {
		t.Errorf("facts: %s", out)
	}
}

func TestGenOut(t *testing.T) {
	dir := t.TempDir()
	args := []string{"gen", "--profile", "proxy", "--upstream", "127.0.0.1:9000", "--server-name", "app.example", "--cpus", "2", "--memory", "4GiB", "--nofile", "1024:524288", "--nginx-version", "1.22.1", "--out", dir}
	_, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []string{"nginx.conf", "sites/app.example.conf", "sysctl.d/60-nginxtune.conf", "systemd/nginx.service.d/nginxtune.conf"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	site, _ := os.ReadFile(filepath.Join(dir, "sites/app.example.conf"))
	if !strings.Contains(string(site), "server 127.0.0.1:9000;") || !strings.Contains(string(site), "proxy_http_version 1.1;") {
		t.Errorf("site file:\n%s", site)
	}
	// the same output again is not a conflict
	if _, errOut, code := runCLI(t, "", args...); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errOut)
	}
	// a user's edit is never overwritten without --force
	conf := filepath.Join(dir, "nginx.conf")
	os.WriteFile(conf, []byte("# mine\n"), 0o600)
	_, errOut, code = runCLI(t, "", args...)
	if code != ExitError || !strings.Contains(errOut, "exists and differs") {
		t.Errorf("overwrite without --force: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(conf); string(b) != "# mine\n" {
		t.Error("the user's file was changed")
	}
	out, _, code := runCLI(t, "", append(args, "--diff")...)
	if code != 0 || !strings.Contains(out, "-# mine") || !strings.Contains(out, "+worker_processes 2;") {
		t.Errorf("--diff: exit %d:\n%s", code, out)
	}
	if _, errOut, code := runCLI(t, "", append(args, "--force")...); code != 0 {
		t.Errorf("--force: exit %d: %s", code, errOut)
	}
	// the generated tree lints clean at warning and above
	if out, errOut, code := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.22.1", conf); code != 0 {
		t.Errorf("lint of generated tree: exit %d\n%s%s", code, out, errOut)
	}
}

func TestGenErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"gen"}, "--profile is required"},
		{[]string{"gen", "--profile", "nope"}, `unknown profile "nope"`},
		{[]string{"gen", "--profile", "static", "--upstream", "a:1"}, "has no backend"},
		{[]string{"gen", "--profile", "static", "--tls", "onlycert"}, "want CERT,KEY"},
		{[]string{"gen", "--profile", "static", "--acme"}, "--acme needs --server-name"},
		{[]string{"gen", "--profile", "static", "--memory", "lots", "--cpus", "2"}, "size"},
		{[]string{"gen", "--profile", "static", "--diff"}, "--diff needs --out"},
		{[]string{"gen", "--profile", "static", "--cpus", "0", "--memory", "1GiB"}, "--cpus 0: want 1 to 65536"},
		{[]string{"gen", "--profile", "static", "--tls", "/nonexistent/cert.pem,/nonexistent/key.pem"}, "nginx cannot start without it"},
		{[]string{"gen", "--profile", "static", "--fpm-max-children", "5"}, "go with a php profile"},
		{[]string{"gen", "--profile", "php", "--fpm-max-children", "-1"}, "want 1 to 100000"},
		{[]string{"gen", "--profile", "php", "--fpm-pool", "/nonexistent/www.conf"}, "--fpm-pool"},
	} {
		_, errOut, code := runCLI(t, "", c.args...)
		if code != ExitError || !strings.Contains(errOut, c.err) || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.err)
		}
	}
}

// lint --changed reports the findings of the changed files only, read
// through the nginx.conf that includes them; a changed snippet that nothing
// includes is linted on its own.
func TestLintChanged(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("nginx/conf.d", 0o755)
	os.MkdirAll("snippets", 0o755)
	os.WriteFile("nginx/nginx.conf", []byte("events {}\nhttp {\n    gzip_comp_level 9;\n    proxy_http_version 1.1;\n    proxy_set_header Connection \"\";\n    include conf.d/*.conf;\n}\n"), 0o644)
	os.WriteFile("nginx/conf.d/a.conf", []byte("upstream app { server 127.0.0.1:8080; keepalive 8; }\nserver {\n    listen 80;\n    location / { proxy_pass http://app; }\n}\n"), 0o644)
	os.WriteFile("nginx/conf.d/b.conf", []byte("server {\n    listen 81;\n    location / { proxy_pass http://127.0.0.1:9000; }\n}\n"), 0o644)
	os.WriteFile("snippets/loose.conf", []byte("location /x {\n    proxy_pass http://10.0.0.1:80;\n}\n"), 0o644)
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.24.0", "--changed", "nginx/conf.d/a.conf", "nginx/conf.d/b.conf", "snippets/loose.conf")
	if code != ExitFindings {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	// a.conf is clean only because nginx.conf sets the proxy headers: the
	// tree was read through the main file
	for _, want := range []string{"nginx/conf.d/b.conf:3:29: warning: proxy_pass to the address 127.0.0.1:9000", "snippets/loose.conf:2:16: warning: proxy_pass to the address 10.0.0.1:80"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"a.conf", "gzip_comp_level"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("reported %q outside the changed files or wrongly:\n%s", unwanted, out)
		}
	}
}

// Two servers proxying to the same address get one upstream block, and the
// result passes nginx -t.
func TestFixSharedUpstream(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "nginx.conf")
	os.WriteFile(p, []byte(`events {}
http {
    server {
        listen 127.0.0.1:8081;
        location / { proxy_pass http://127.0.0.1:9000; }
    }
    server {
        listen 127.0.0.1:8082;
        location /api/ {
            proxy_set_header Host $host;
            proxy_pass http://127.0.0.1:9000/v2/;
        }
    }
}
`), 0o644)
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--fix", "--nginx-version", "1.22.1", "--enable", "upstream-keepalive,proxy-keepalive-headers", p)
	if code != ExitOK {
		t.Fatalf("exit %d after --fix:\n%s%s", code, out, errOut)
	}
	fixed, _ := os.ReadFile(p)
	if n := strings.Count(string(fixed), "upstream backend_127_0_0_1_9000 {"); n != 1 {
		t.Errorf("%d upstream blocks:\n%s", n, fixed)
	}
	if !strings.Contains(string(fixed), "proxy_pass http://backend_127_0_0_1_9000/v2/;") || !strings.Contains(string(fixed), "proxy_set_header Host $host;\n            proxy_set_header Connection \"\";") {
		t.Errorf("fixed file:\n%s", fixed)
	}
	if res := nginxtest.CheckTree(t, p); !res.OK {
		t.Errorf("nginx -t: %s", res.Output)
	}
}

// newRoot builds only the subcommand named first; its name in the list
// must be the command's own, or every run builds them all again.
func TestCommandNames(t *testing.T) {
	for _, c := range commands {
		if got := c.make().Name(); got != c.name {
			t.Errorf("commands lists %q for the command %q", c.name, got)
		}
	}
}
