package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/knowledge"

	"github.com/nginxtune/nginxtune/rules"
)

func write(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, Name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, `nginx-version: 1.24.0
fail-on: error
disable: [access-log-unbuffered]
enable: [upstream-keepalive]
severity:
  worker-processes: warning
map:
  /etc/nginx: deploy/nginx
prefix: deploy/nginx
directives: [my_directive]
roots: [deploy/nginx/nginx.conf]
`)
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.NginxVersion != knowledge.MustVersion("1.24.0") || f.FailOn != "error" || f.Disable[0] != "access-log-unbuffered" ||
		f.Severity["worker-processes"] != rules.Warning || f.Maps["/etc/nginx"] != filepath.Join(dir, "deploy/nginx") ||
		f.Prefix != filepath.Join(dir, "deploy/nginx") || f.Directives[0] != "my_directive" || f.Roots[0] != filepath.Join(dir, "deploy/nginx/nginx.conf") {
		t.Errorf("loaded %+v", f)
	}
}

func TestErrorsNameFileAndLine(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"disable: [gzip-comp-level]\nfail_on: error\n", ":2: unknown key \"fail_on\""},
		{"disable: [no-such-rule]\n", ":1: disable: \"no-such-rule\" is not a rule"},
		{"severity:\n  gzip-comp-level: loud\n", ":2: severity of gzip-comp-level"},
		{"nginx-version: one\n", ":1: nginx version"},
		{"fail-on: sometimes\n", ":1: fail-on"},
		{"map:\n  etc/nginx: x\n", ":2: map: \"etc/nginx\" is not an absolute path"},
		{"disable: gzip-comp-level\n", ":1: disable: want a list"},
		{"- a\n", ":1: want a mapping"},
		{"disable: [gzip-comp-level]\nfail-on: error\ndisable: [server-tokens]\n", ":3: \"disable\" is set twice (first at line 1)"},
		{"severity:\n  gzip-comp-level: info\n  gzip-comp-level: error\n", ":3: \"gzip-comp-level\" is set twice (first at line 2)"},
		{"fmt:\n  indent: 0\n", ":2: fmt: indent"},
	} {
		p := write(t, t.TempDir(), c.text)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), Name+c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

func TestFindUpward(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "fail-on: error\n")
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	if p, ok := Find(sub); !ok || p != filepath.Join(dir, Name) {
		t.Errorf("Find: %q %v", p, ok)
	}
}
