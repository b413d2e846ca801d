package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// The attacks on gen --into and --out with a tree somebody else wrote: its
// main file, its links, its file names and the values of a profile.

// rhelTree writes a RHEL-like tree (conf.d and default.d) with files on top.
func rhelTree(t *testing.T, files map[string]string) string {
	t.Helper()
	etc := filepath.Join(t.TempDir(), "nginx")
	all := map[string]string{"nginx.conf": rhelNginxConf, "conf.d/.keep": "", "default.d/.keep": ""}
	for k, v := range files {
		all[k] = v
	}
	writeTree(t, etc, all)
	return etc
}

// With --tune-main the tree's nginx.conf is the tree's, not gen's: nginx -t
// never reads it unless the tree is the live one or --nginx-test is given.
// Its error_log (and any load_module) would otherwise be created (loaded)
// by nginx -t as root; with --nginx-test it is, which shows the check can
// fail.
func TestGenTuneMainRunsNoNginxOnUntrustedTree(t *testing.T) {
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("verification runs as root")
	}
	outside := t.TempDir()
	marker := filepath.Join(outside, "error.log")
	etc := rhelTree(t, map[string]string{"nginx.conf": strings.Replace(rhelNginxConf, "error_log /var/log/nginx/error.log;", "error_log "+marker+";", 1)})
	args := append([]string{"gen", "--profile", "static", "--server-name", "new.example", "--into", etc, "--tune-main"}, genSizing...)
	_, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("nginx -t read the untrusted tree's nginx.conf and created %s:\n%s", marker, errOut)
	}
	if !strings.Contains(errOut, "nginx -t checks gen's files only") || !strings.Contains(errOut, "verified with nginx -t") {
		t.Errorf("the run does not say what nginx -t checked: %s", errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(etc, "nginx.conf")); !strings.Contains(string(b), "worker_processes 2;") {
		t.Errorf("--tune-main did not set the numbers:\n%s", b)
	}
	// with --nginx-test the tree's nginx.conf is read (so the test above can fail)
	_, errOut, code = runCLI(t, "", append(args, "--nginx-test")...)
	if code != 0 {
		t.Fatalf("--nginx-test: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("--nginx-test did not run nginx -t over the tree's nginx.conf: %v\n%s", err, errOut)
	}
}

// A tree that defines $connection_upgrade already gets no second map, and
// nginx -t of gen's files alone (the tree untrusted) has a stand-in for
// the tree's: the site uses the variable.
func TestGenIntoTreeWithUpgradeMap(t *testing.T) {
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("verification runs as root")
	}
	etc := rhelTree(t, map[string]string{"conf.d/ws.conf": "map $http_upgrade $connection_upgrade {\n    default upgrade;\n    '' close;\n}\n"})
	_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "node", "--server-name", "app.example", "--upstream", "127.0.0.1:3000", "--into", etc}, genSizing...)...)
	if code != 0 || !strings.Contains(errOut, "verified with nginx -t") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(etc, "conf.d/00-nginxtune-connection-upgrade.conf")); err == nil {
		t.Errorf("a second $connection_upgrade map was written")
	}
	if b, _ := os.ReadFile(filepath.Join(etc, "conf.d/app.example.conf")); !strings.Contains(string(b), "$connection_upgrade is defined at conf.d/ws.conf:1") {
		t.Errorf("the site does not say where the map is:\n%s", b)
	}
}

// gen's own check copies the tree: a link in it (to a directory outside,
// absolute, or relative and inside the tree only where the tree is, not
// where the copy is) is never written through, with --diff or without.
func TestGenCheckCopyNoWriteThroughLinks(t *testing.T) {
	const victimText = "server { return 200 VICTIM; }\n"
	for _, kind := range []string{"absolute", "relative"} {
		t.Run(kind, func(t *testing.T) {
			base := t.TempDir()
			tmpdir := filepath.Join(base, "tmpd")
			os.MkdirAll(tmpdir, 0o755)
			t.Setenv("TMPDIR", tmpdir)
			tree := filepath.Join(base, "x", "tree")
			os.MkdirAll(filepath.Join(tree, "real-sites"), 0o755)
			var victim string
			if kind == "absolute" {
				victim = filepath.Join(base, "victim")
				os.Symlink(victim, filepath.Join(tree, "sites"))
			} else {
				// inside the tree where it is; in a copy under TMPDIR it
				// names TMPDIR/tree/real-sites
				victim = filepath.Join(tmpdir, "tree", "real-sites")
				os.Symlink("../tree/real-sites", filepath.Join(tree, "sites"))
			}
			os.MkdirAll(victim, 0o755)
			os.WriteFile(filepath.Join(victim, "a.example.conf"), []byte(victimText), 0o644)
			for _, extra := range [][]string{{"--diff"}, nil, {"--force"}} {
				args := append([]string{"gen", "--profile", "static", "--server-name", "a.example", "--out", tree}, genSizing...)
				_, errOut, _ := runCLI(t, "", append(args, extra...)...)
				if b, _ := os.ReadFile(filepath.Join(victim, "a.example.conf")); string(b) != victimText {
					t.Fatalf("%v: written through the link to %s:\n%s\n%s", extra, victim, b, errOut)
				}
				if entries, _ := os.ReadDir(victim); len(entries) != 1 {
					t.Errorf("%v: files written beside the victim: %v\n%s", extra, entries, errOut)
				}
			}
		})
	}
}

// --tune-main edits the file that holds each directive: worker_connections
// in an included events.conf changes there, and nginx.conf keeps every
// byte but the numbers it holds (an edit meant for events.conf applied at
// its offset in nginx.conf rewrote a comment).
func TestGenTuneMainIncludedFile(t *testing.T) {
	dir := t.TempDir()
	etc := debianTree(t, dir)
	conf := strings.Replace(debianNginxConf, "events {\n    worker_connections 768;\n}", "# OPS-1234: events are in events.conf, see the runbook\nevents { include events.conf; }", 1)
	os.WriteFile(filepath.Join(etc, "nginx.conf"), []byte(conf), 0o644)
	os.WriteFile(filepath.Join(etc, "events.conf"), []byte("worker_connections 768;\n"), 0o644)
	args := append([]string{"gen", "--profile", "static", "--server-name", "new.example", "--into", etc, "--tune-main", "--verify=false"}, genSizing...)
	// --diff shows the change in the file that holds the number, and writes nothing
	out, errOut, code := runCLI(t, "", append(args, "--diff")...)
	if code != 0 || !strings.Contains(out, filepath.Join(etc, "events.conf")+" (nginxtune gen --tune-main)") || !strings.Contains(out, "\n-worker_connections 768;\n+worker_connections ") {
		t.Errorf("--diff: exit %d:\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(etc, "events.conf")); string(b) != "worker_connections 768;\n" {
		t.Errorf("--diff wrote events.conf: %q", b)
	}
	_, errOut, code = runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	events, _ := os.ReadFile(filepath.Join(etc, "events.conf"))
	m := regexp.MustCompile(`^worker_connections (\d+);\n$`).FindStringSubmatch(string(events))
	if m == nil || m[1] == "768" {
		t.Errorf("events.conf: %q, want worker_connections set there", events)
	}
	b, _ := os.ReadFile(filepath.Join(etc, "nginx.conf"))
	want := strings.Replace(conf, "worker_processes auto;", "worker_processes 2;\nworker_rlimit_nofile ", 1)
	got := regexp.MustCompile(`worker_rlimit_nofile \d+;`).ReplaceAllString(string(b), "worker_rlimit_nofile ")
	if got != want {
		t.Errorf("nginx.conf changed beyond its own numbers:\n%s", b)
	}
	if !strings.Contains(errOut, "events.conf:1: worker_connections 768 ->") {
		t.Errorf("the run does not say which file it set: %s", errOut)
	}
}

// An include gen cannot read (outside the tree) where the worker numbers
// may be set: --tune-main refuses, naming it, and writes nothing (it
// skipped worker_connections, exit 0, unsaid).
func TestGenTuneMainUnreadInclude(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "events.conf"), []byte("worker_connections 768;\n"), 0o644)
	for _, inc := range []string{filepath.Join(outside, "events.conf"), "../../" + filepath.Base(outside) + "/events.conf"} {
		etc := debianTree(t, t.TempDir())
		conf := strings.Replace(debianNginxConf, "events {\n    worker_connections 768;\n}", "events { include "+inc+"; }", 1)
		os.WriteFile(filepath.Join(etc, "nginx.conf"), []byte(conf), 0o644)
		_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--server-name", "new.example", "--into", etc, "--tune-main", "--verify=false"}, genSizing...)...)
		if code != ExitError || !strings.Contains(errOut, "include "+inc+" is not read") {
			t.Errorf("include %s: exit %d: %s", inc, code, errOut)
		}
		if b, _ := os.ReadFile(filepath.Join(etc, "nginx.conf")); string(b) != conf {
			t.Errorf("include %s: nginx.conf written:\n%s", inc, b)
		}
		if _, err := os.Stat(filepath.Join(etc, "sites-available", "new.example.conf")); err == nil {
			t.Errorf("include %s: the site was written", inc)
		}
	}
}

// --into . with --tune-main edits ./nginx.conf (it was refused as a link
// outside ".").
func TestGenTuneMainIntoDot(t *testing.T) {
	etc := debianTree(t, t.TempDir())
	t.Chdir(etc)
	_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--server-name", "new.example", "--into", ".", "--tune-main", "--verify=false"}, genSizing...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(etc, "nginx.conf")); !strings.Contains(string(b), "worker_processes 2;") {
		t.Errorf("nginx.conf not tuned:\n%s", b)
	}
}

// A file name of the tree that gen quotes (where $connection_upgrade is
// defined) cannot end the comment it is quoted in: the server block in the
// name never becomes a directive of the site gen writes.
func TestGenFileNameCannotInject(t *testing.T) {
	name := "ws\nserver { listen 8081; return 200 INJECTED; }\n#.conf"
	etc := rhelTree(t, map[string]string{"conf.d/" + name: "map $http_upgrade $connection_upgrade {\n    default upgrade;\n    '' close;\n}\n"})
	_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "node", "--server-name", "app.example", "--upstream", "127.0.0.1:3000", "--into", etc, "--verify=false"}, genSizing...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(etc, "conf.d/app.example.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "INJECTED") {
		t.Fatalf("the name is not quoted at all (the test shows nothing):\n%s", b)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "INJECTED") && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			t.Errorf("a line of the site file from a file name: %q", line)
		}
	}
}

// Values gen writes into the configuration carry no $ unless the key is
// meant to: a Content-Security-Policy with $uri would split the header
// (%0d%0a in the path), a profile's try_files with $http_x serves a file
// the client names. Refused with exit 2, nothing written.
func TestGenRefusesRequestVariables(t *testing.T) {
	out := t.TempDir()
	gen := func(args ...string) (string, int) {
		o, e, code := runCLI(t, "", append(append([]string{"gen", "--verify=false", "--out", out}, genSizing...), args...)...)
		return o + e, code
	}
	profile := func(tryFiles, index string) string {
		p := filepath.Join(t.TempDir(), "p.yaml")
		os.WriteFile(p, []byte("name: x\nkind: static\nroot: /srv\nindex: ["+index+"]\ntry_files: "+tryFiles+"\ngzip_types: [text/css]\nclient_max_body_size: 1m\nkeepalive_timeout: 30s\n"), 0o644)
		return p
	}
	for _, args := range [][]string{
		{"--profile", "static", "--csp", "default-src 'self' $uri"},
		{"--profile", "static", "--csp", "default-src 'self' ${uri}"},
		{"--profile-file", profile("$http_x =404", "index.html")},
		{"--profile-file", profile("$uri $http_x =404", "index.html")},
		{"--profile-file", profile("$uri$args =404", "index.html")},
		{"--profile-file", profile("$uri /index.php?$http_x", "index.html")},
		{"--profile-file", profile("$uri /$args", "index.html")},
		{"--profile-file", profile("$uri $1 =404", "index.html")},
		{"--profile-file", profile("$uri =404", "$http_x")},
	} {
		msg, code := gen(args...)
		if code != ExitError || strings.Contains(msg, "wrote") {
			t.Errorf("%q: exit %d, want 2 and nothing written:\n%s", args, code, msg)
		}
		if !strings.Contains(msg, "$") {
			t.Errorf("%q: the message does not name the variable: %s", args, msg)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("written: %v", entries)
	}
	// what the built-in profiles use still passes
	for _, tf := range []string{"$uri $uri/ =404", "$uri $uri/ /index.php?$query_string", "$uri /index.php?$args", "$uri $uri.html $uri/index.html @app", "$uri /index.php?q=$uri&$args"} {
		if msg, code := gen("--profile-file", profile(tf, "index.html"), "--diff"); code != ExitOK {
			t.Errorf("try_files %q refused: exit %d\n%s", tf, code, msg)
		}
	}
}
