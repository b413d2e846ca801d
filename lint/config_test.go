package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
)

func write(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, ConfigName)
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
	f, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.NginxVersion != knowledge.MustVersion("1.24.0") || f.FailOn != "error" || f.Disable[0] != "access-log-unbuffered" ||
		f.Severity["worker-processes"] != finding.Warning || f.Maps["/etc/nginx"] != filepath.Join(dir, "deploy/nginx") ||
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
		_, err := LoadConfig(p)
		if err == nil || !strings.Contains(err.Error(), ConfigName+c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

func TestFindUpward(t *testing.T) {
	for _, top := range []string{".git", "nginx.conf"} {
		dir := t.TempDir()
		write(t, dir, "fail-on: error\n")
		os.WriteFile(filepath.Join(dir, top), nil, 0o644)
		sub := filepath.Join(dir, "a", "b")
		os.MkdirAll(sub, 0o755)
		if p, ignored := FindConfig(sub); p != filepath.Join(dir, ConfigName) || ignored != "" {
			t.Errorf("Find below %s: %q %q", top, p, ignored)
		}
	}
}

// The attack: a .nginxtune.yaml that another user wrote in a shared
// directory above the checkout (fail-on: none) silenced lint. The search
// stops at the repository's top, or outside one at the linted tree (the
// nearest nginx.conf, else the linted directory), and never uses a file
// that another user owns or could replace.
func TestFindStaysInTheTree(t *testing.T) {
	shared := t.TempDir()
	write(t, shared, "fail-on: none\n")
	repo := filepath.Join(shared, "repo")
	sub := filepath.Join(repo, "sites")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(sub, 0o755)
	if p, _ := FindConfig(sub); p != "" {
		t.Errorf("above the repository: %q was used", p)
	}
	plain := filepath.Join(shared, "plain")
	os.MkdirAll(filepath.Join(plain, "conf.d"), 0o755)
	if p, _ := FindConfig(plain); p != "" {
		t.Errorf("above the linted directory: %q was used", p)
	}
	os.WriteFile(filepath.Join(plain, "nginx.conf"), nil, 0o644)
	if p, _ := FindConfig(filepath.Join(plain, "conf.d")); p != "" {
		t.Errorf("above the tree's nginx.conf: %q was used", p)
	}

	// in a directory every user can write (not sticky): ignored, said
	open := filepath.Join(repo, "open")
	os.MkdirAll(open, 0o755)
	os.Chmod(open, 0o777)
	write(t, open, "fail-on: none\n")
	if p, ignored := FindConfig(open); p != "" || !strings.Contains(ignored, "writable by every user") {
		t.Errorf("world-writable directory: %q, %q", p, ignored)
	}
	// sticky: others cannot replace the user's own file
	os.Chmod(open, 0o777|os.ModeSticky)
	if p, ignored := FindConfig(open); p == "" || ignored != "" {
		t.Errorf("sticky directory: %q, %q", p, ignored)
	}
	if os.Geteuid() != 0 {
		t.Skip("files of another user need root to make")
	}
	// another user's file, even in the repository's sticky directory
	os.Chown(filepath.Join(open, ConfigName), 65534, 65534)
	if p, ignored := FindConfig(open); p != "" || !strings.Contains(ignored, "owned by uid 65534") {
		t.Errorf("another user's file: %q, %q", p, ignored)
	}
	// the user's file in a directory another user owns
	os.Chown(filepath.Join(open, ConfigName), 0, 0)
	os.Chmod(open, 0o755)
	os.Chown(open, 65534, 65534)
	if p, ignored := FindConfig(open); p != "" || !strings.Contains(ignored, "directory is owned by uid 65534") {
		t.Errorf("another user's directory: %q, %q", p, ignored)
	}
}

// A settings file beside the configuration is written by whoever wrote the
// tree: a message about one of its keys or values quotes at most 64 bytes
// of it (the errors quoted a 100 KB value whole, on one line).
func TestSettingsErrorsQuoteClipped(t *testing.T) {
	long := strings.Repeat("q", 100000)
	for _, text := range []string{
		"disable: [" + long + "]",
		"enable: [category:" + long + "]",
		"severity: {server-tokens: " + long + "}",
		"nginx-version: " + long,
		"fail-on: " + long,
		"prefix: ../" + long,
		"roots: [../" + long + "]",
		"map: {/a: ../" + long + "}",
		"fmt: {" + long[:1000] + ": 1}",
		long[:1000] + ": 1",
		"overrides: [{paths: [/" + long + "], disable: [server-tokens]}]",
		"overrides: [{paths: [a], disable: [" + long + "]}]",
		"overrides: [{paths: [a], severity: {server-tokens: " + long + "}}]",
		"? " + long + "\n: 1\n? " + long + "\n: 2", // an explicit key has no length limit
		"a: *" + long, // yaml quotes an unknown anchor
	} {
		_, err := LoadFoundConfig(write(t, t.TempDir(), text+"\n"))
		if err == nil || strings.Contains(err.Error(), long[:65]) || len(err.Error()) > 400 {
			t.Errorf("%.40s: want an error quoting at most 64 bytes, got %d bytes: %.300v", text, len(fmt.Sprint(err)), err)
		}
	}
}
