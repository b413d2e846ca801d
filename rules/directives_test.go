package rules

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

var langRuleIDs = map[string]bool{"unknown-directive": true, "directive-context": true, "directive-args": true, "directive-duplicate": true, "syntax": true}

// Each broken fixture makes the real nginx -t (Debian's 1.22.1) fail with the
// message its header names; nginxtune, linting for 1.22.1, reports a
// language rule at the line nginx names (nginx names the line a statement
// ends on; a finding covers its statement's lines). A file with a syntax
// error is judged up to it: what nginx refuses before it is reported too.
func TestDirectiveFixturesAgainstNginx(t *testing.T) {
	bin := nginxtest.Require(t)
	eachNginxTFixture(t, "../fixtures/nginx-t/*.conf", 8, func(t *testing.T, p string, _, want []byte) {
		dir := t.TempDir()
		os.CopyFS(dir, os.DirFS(filepath.Dir(p)))
		os.Rename(filepath.Join(dir, filepath.Base(p)), filepath.Join(dir, "main.conf"))
		nginxtest.WriteSelfSigned(t, dir)
		res := nginxtest.Run(t, bin, dir, filepath.Join(dir, "main.conf"))
		if res.OK || !strings.Contains(res.Output, string(want)) {
			t.Fatalf("nginx -t did not fail with %q: %s", want, res.Output)
		}
		tr, err := loader.Load(filepath.Join(dir, "main.conf"), loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range Run(tr, engine.Config{Version: knowledge.MustVersion("1.22.1")}) {
			if !langRuleIDs[d.Rule] && !NginxRefuses(d.Rule) || d.Severity != finding.Error {
				continue
			}
			// nginx stops at its first error: a syntax error after
			// it is one nginx never reached (nginxtune reports both)
			if d.Rule == "syntax" && filepath.Base(d.File) == filepath.Base(res.File) && d.Line > res.Line {
				continue
			}
			// some refusals name no place ("unknown "x" variable")
			if res.File == "" || filepath.Base(d.File) == filepath.Base(res.File) && d.Line <= res.Line && res.Line <= max(d.EndLine, d.Line) {
				found = true
			} else {
				t.Errorf("%s:%d [%s] %s: nginx names %s:%d", filepath.Base(d.File), d.Line, d.Rule, d.Message, filepath.Base(res.File), res.Line)
			}
		}
		if !found {
			t.Errorf("nginx -t: %s (%s:%d); nginxtune reports nothing there", res.Message, filepath.Base(res.File), res.Line)
		}
	})
}

// The same configuration is valid for one version and not another.
func TestDirectiveVersions(t *testing.T) {
	src := "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        http2 on;\n        max_headers 100;\n    }\n}\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "nginx.conf")
	os.WriteFile(p, []byte(src), 0o644)
	tr, _ := loader.Load(p, loader.Options{})
	only := func(v string) []string {
		var out []string
		for _, d := range Run(tr, engine.Config{Version: knowledge.MustVersion(v)}) {
			if d.Rule == "unknown-directive" {
				out = append(out, strings.Fields(d.Message)[2])
			}
		}
		return out
	}
	if got := strings.Join(only("1.22.1"), " "); got != `"http2"` {
		t.Errorf("1.22.1: %s", got)
	}
	if got := strings.Join(only("1.26.3"), " "); got != `"max_headers"` {
		t.Errorf("1.26.3 (max_headers is Debian's 1.22.1 patch): %s", got)
	}
	if got := only("1.24.0"); len(got) != 0 {
		t.Errorf("1.24.0 lies between the table's versions: nothing is certain, got %v", got)
	}
}

// The committed table is what the generator makes of the sources, where
// they are present (make directives fetches them).
func TestDirectiveTableUpToDate(t *testing.T) {
	src := "../.sources"
	if _, err := os.Stat(filepath.Join(src, "nginx-1.22")); err != nil {
		t.Skip("no sources in .sources (make directives fetches them)")
	}
	gen := t.TempDir() + "/directives.tsv"
	out, err := runGo(t, "run", "../knowledge/gen", src)
	if err != nil {
		t.Fatalf("generator: %v", err)
	}
	os.WriteFile(gen, out, 0o644)
	want, _ := os.ReadFile("../knowledge/directives.tsv")
	if string(want) != string(out) {
		t.Errorf("knowledge/directives.tsv differs from a regeneration: run make directives")
	}
}

func runGo(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	return cmd.Output()
}

// A fragment read alone (a server block, an upstream) has a context
// nginxtune guesses, but what nginx refuses wherever it is included is
// still reported at nginx's line: each fixture of fixtures/nginx-t/fragment
// makes the real nginx -t fail when http includes it (a server, with "#
// nginx-t-in: server"), and nginxtune,
// linting the file by itself, reports an error at the line nginx names.
func TestFragmentAloneAgainstNginx(t *testing.T) {
	nginxtest.Require(t)
	eachNginxTFixture(t, "../fixtures/nginx-t/fragment/*.conf", 3, func(t *testing.T, p string, src, want []byte) {
		main := "events {}\nhttp {\n    include fragment.conf;\n}\n"
		if bytes.Contains(src, []byte("\n# nginx-t-in: server\n")) {
			main = "events {}\nhttp {\n    server {\n        include fragment.conf;\n    }\n}\n"
		}
		res := nginxtest.Test(t, map[string][]byte{
			"main.conf":     []byte(main),
			"fragment.conf": src,
		}, "main.conf")
		if res.OK || !strings.Contains(res.Output, string(want)) || filepath.Base(res.File) != "fragment.conf" {
			t.Fatalf("nginx -t did not fail with %q in the fragment: %s", want, res.Output)
		}
		tr, err := loader.Load(p, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range Run(tr, engine.Config{Version: knowledge.MustVersion("1.22.1")}) {
			if NginxRefuses(d.Rule) && d.Severity == finding.Error && d.Line <= res.Line && res.Line <= max(d.EndLine, d.Line) {
				found = true
			}
		}
		if !found {
			t.Errorf("nginx -t: %s (line %d); nginxtune, reading the fragment alone, reports no error there", res.Message, res.Line)
		}
	})
}

// eachNginxTFixture runs fn on each fixture glob finds (at least least of
// them), with the message its "# nginx-t:" header says nginx -t fails with.
func eachNginxTFixture(t *testing.T, glob string, least int, fn func(t *testing.T, p string, src, want []byte)) {
	paths, _ := filepath.Glob(glob)
	if len(paths) < least {
		t.Fatalf("only %d fixtures", len(paths))
	}
	head := regexp.MustCompile(`(?m)^# nginx-t: (.*)$`)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			src, _ := os.ReadFile(p)
			want := head.FindSubmatch(src)
			if want == nil {
				t.Fatal("no # nginx-t: header")
			}
			fn(t, p, src, want[1])
		})
	}
}

// hostWrites are the directives whose paths nginx -t creates or opens for
// writing (its first argument): log files, the pid and lock files, cache
// and temporary directories.
var hostWrites = regexp.MustCompile(`^(?:access_log|error_log|pid|lock_file|\w+_cache_path|\w+_temp_path)$`)

// Every fixture nginx -t checks (the broken ones of fixtures/nginx-t and
// those marked nginx-valid) names the places nginx -t writes relative to
// its prefix: a path of the host (/var/cache/nginx, which a fresh Debian
// lacks; /var/log/nginx; /run) would make the check depend on the machine
// and, unsealed, write there. The sealed run makes such a write fail; this
// says so before nginx runs, for a path nginx never reaches too (a broken
// fixture refused before its paths are made).
func TestNginxFixturesWriteInTheirPrefix(t *testing.T) {
	marked := regexp.MustCompile(`(?m)^# (?:nginxtune-test:.*\bnginx-valid\b|nginx-t: )`)
	checked := 0
	err := filepath.WalkDir("../fixtures", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".conf") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil || !marked.Match(b) {
			return err
		}
		checked++
		tr, err := loader.Load(p, loader.Options{})
		if err != nil {
			return err
		}
		tr.Walk(func(d *parser.Directive, _ *parser.Context) bool {
			if hostWrites.MatchString(d.Name) && len(d.Args) > 0 && d.File.Path == tr.Roots[0].Path {
				if a := d.Arg(0); strings.HasPrefix(a, "/") && a != "/dev/null" && a != "/dev/stderr" && a != "/dev/stdout" {
					t.Errorf("%s:%d: %s %s: nginx -t writes there; name it relative to the prefix", p, d.Line, d.Name, a)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d fixtures checked by nginx -t found: the walk is broken", checked)
	}
}
