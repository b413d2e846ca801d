package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func runCmd(t *testing.T, dir string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "PRE_COMMIT_COLOR=never")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s %v timed out", name, args)
	}
	return string(out), err
}

// mustRun returns a check of runCmd's answer that stops the test on an
// error, with the command's output.
func mustRun(t *testing.T) func(out string, err error) string {
	return func(out string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out
	}
}

const appClean = `upstream app {
    server 127.0.0.1:8080;
    keepalive 32;
}
server {
    listen 80;
    location / {
        proxy_pass http://app;
    }
}
`

const appStraight = `upstream app {
    server 127.0.0.1:8080;
    keepalive 32;
}
server {
    listen 80;
    location / {
        proxy_pass http://app;
    }
    location /reports/ {
        proxy_pass http://127.0.0.1:9000;
    }
}
`

// The real pre-commit runs this checkout's hook on a repository whose
// nginx.conf includes the changed file: a proxy_pass without keepalive is
// reported at its file:line and blocks the commit; a clean change passes.
func TestPreCommitHook(t *testing.T) {
	requirePreCommit(t)
	repo := t.TempDir()
	must := mustRun(t)
	must(runCmd(t, repo, "git", "init", "-q", "-b", "main"))
	os.MkdirAll(filepath.Join(repo, "deploy/nginx/conf.d"), 0o755)
	os.WriteFile(filepath.Join(repo, "deploy/nginx/nginx.conf"), []byte("# nginxtune:disable-file worker-processes\nworker_processes auto;\nevents {}\nhttp {\n    include conf.d/*.conf;\n}\n"), 0o644)
	app := filepath.Join(repo, "deploy/nginx/conf.d/app.conf")
	os.WriteFile(app, []byte(appClean), 0o644)
	os.WriteFile(filepath.Join(repo, ".nginxtune.yaml"), []byte("nginx-version: 1.30.0\n"), 0o644)
	must(runCmd(t, repo, "git", "add", "-A"))
	must(runCmd(t, repo, "git", "commit", "-q", "-m", "clean config"))

	// try-repo uses the checkout as it is, uncommitted changes included
	os.WriteFile(app, []byte(appStraight), 0o644)
	out, err := runCmd(t, repo, "pre-commit", "try-repo", root, "nginxtune", "--files", "deploy/nginx/conf.d/app.conf")
	if err == nil || !strings.Contains(out, "deploy/nginx/conf.d/app.conf:11:20: warning: proxy_pass to the address 127.0.0.1:9000") {
		t.Fatalf("try-repo did not report the finding at conf.d/app.conf:11:20 (err %v):\n%s", err, out)
	}
	os.WriteFile(app, []byte(appClean+"# a comment\n"), 0o644)
	if out, err := runCmd(t, repo, "pre-commit", "try-repo", root, "nginxtune", "--files", "deploy/nginx/conf.d/app.conf"); err != nil {
		t.Fatalf("a clean change was blocked:\n%s", out)
	}

	// installed as a hook at the checkout's HEAD, it blocks the commit
	head := strings.TrimSpace(must(runCmd(t, root, "git", "rev-parse", "HEAD")))
	os.WriteFile(filepath.Join(repo, ".pre-commit-config.yaml"), []byte("repos:\n- repo: "+root+"\n  rev: "+head+"\n  hooks:\n  - id: nginxtune\n"), 0o644)
	must(runCmd(t, repo, "git", "add", ".pre-commit-config.yaml", "deploy"))
	must(runCmd(t, repo, "git", "commit", "-q", "-m", "hook config", "--no-verify"))
	must(runCmd(t, repo, "pre-commit", "install"))
	os.WriteFile(app, []byte(appStraight), 0o644)
	must(runCmd(t, repo, "git", "add", "-A"))
	runCmd(t, repo, "pre-commit", "run", "nginxtune", "--files", "deploy/nginx/conf.d/app.conf") // builds the hook
	start := time.Now()
	out, _ = runCmd(t, repo, "pre-commit", "run", "nginxtune", "--files", "deploy/nginx/conf.d/app.conf")
	t.Logf("installed hook on a warm cache, pre-commit included: %v", time.Since(start))
	if !strings.Contains(out, "conf.d/app.conf:11:20") {
		t.Fatalf("pre-commit run did not report the finding:\n%s", out)
	}
	out, err = runCmd(t, repo, "git", "commit", "-m", "straight proxy_pass")
	if err == nil || !strings.Contains(out, "conf.d/app.conf:11:20") {
		t.Fatalf("the commit was not blocked (err %v):\n%s", err, out)
	}
	os.WriteFile(app, []byte(appClean), 0o644)
	must(runCmd(t, repo, "git", "add", "-A"))
	if out, err := runCmd(t, repo, "git", "commit", "-m", "clean again"); err != nil {
		t.Fatalf("a clean commit was blocked:\n%s", out)
	}
}

// The hook on a Debian layout kept in git: a change to
// sites-available/default (enabled through a link) is reported there and
// blocks the commit; documentation and Ansible files beside the
// configuration never do.
func TestPreCommitDebianLayout(t *testing.T) {
	requirePreCommit(t)
	repo := t.TempDir()
	debianTree(t, repo)
	os.WriteFile(filepath.Join(repo, ".nginxtune.yaml"), []byte("nginx-version: 1.22.1\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "debian layout"}} {
		if out, err := runCmd(t, repo, "git", args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := runCmd(t, repo, "pre-commit", "try-repo", root, "nginxtune", "--files",
		"etc/nginx/sites-available/default", "etc/nginx/README.md", "roles/nginx/tasks/main.yml")
	if err == nil || !strings.Contains(out, "etc/nginx/sites-available/default:9:20: warning: proxy_pass to the address 127.0.0.1:3000") {
		t.Fatalf("the change to sites-available/default passed (err %v):\n%s", err, out)
	}
	if strings.Contains(out, "README") || strings.Contains(out, "main.yml") {
		t.Errorf("files that are not configuration reached the hook:\n%s", out)
	}
	out, err = runCmd(t, repo, "pre-commit", "try-repo", root, "nginxtune", "--files",
		"etc/nginx/README.md", "roles/nginx/tasks/main.yml", "etc/nginx/notes")
	if err != nil {
		t.Fatalf("files that are not nginx configuration failed the commit:\n%s", out)
	}
}

// requirePreCommit skips a test that needs pre-commit and this checkout's
// git history, or fails it in CI, where both must be there.
func requirePreCommit(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the hook with pre-commit")
	}
	if _, err := exec.LookPath("pre-commit"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("pre-commit is not installed; .ci/run installs it")
		}
		t.Skip("pre-commit is not installed")
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("the checkout is not a git repository")
	}
}

// The hook's file selection (.pre-commit-hooks.yaml's files, exclude and
// types), run by the real pre-commit as a local hook around a built
// binary: the commit that enables a Debian site is a new symlink and is
// checked; RHEL's default.d is checked; another program's *.conf reaches
// the hook and is skipped by it, never failed.
func TestPreCommitSelection(t *testing.T) {
	requirePreCommit(t)
	var manifest []map[string]any
	b, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &manifest); err != nil || len(manifest) != 3 || manifest[0]["id"] != "nginxtune" || manifest[1]["id"] != "nginxtune-fmt" || manifest[2]["id"] != "nginxtune-diff" {
		t.Fatalf("manifest: %v %v", err, manifest)
	}
	// the diff hook runs when asked only (TestPreCommitDiffHook): the
	// selection is the two that run on every commit
	if st, _ := manifest[2]["stages"].([]any); len(st) != 1 || st[0] != "manual" {
		t.Fatalf("the diff hook's stages: %v", manifest[2]["stages"])
	}
	manifest = manifest[:2]
	bin := filepath.Join(t.TempDir(), "nginxtune")
	if out, err := runCmd(t, root, "go", "build", "-o", bin, "./cmd/nginxtune"); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var hooks []any
	for _, hook := range manifest {
		hook["language"] = "system"
		hook["entry"] = bin + " " + strings.TrimPrefix(hook["entry"].(string), "nginxtune ")
		hooks = append(hooks, hook)
	}
	cfg, _ := yaml.Marshal(map[string]any{"repos": []any{map[string]any{"repo": "local", "hooks": hooks}}})

	repo := t.TempDir()
	etc := debianTree(t, repo)
	os.WriteFile(filepath.Join(repo, ".nginxtune.yaml"), []byte("nginx-version: 1.22.1\n"), 0o644)
	os.WriteFile(filepath.Join(repo, ".pre-commit-config.yaml"), cfg, 0o644)
	// RHEL: default.d is included inside the default server
	rhel := filepath.Join(repo, "rhel")
	os.MkdirAll(filepath.Join(rhel, "default.d"), 0o755)
	os.WriteFile(filepath.Join(rhel, "nginx.conf"), []byte("events {}\nhttp {\n    server {\n        listen 80 default_server;\n        include default.d/*.conf;\n    }\n}\n"), 0o644)
	os.WriteFile(filepath.Join(rhel, "default.d/php.conf"), []byte("location ~ \\.php$ {\n    fastcgi_pass unix:/run/php-fpm/www.sock;\n}\n"), 0o644)
	os.MkdirAll(filepath.Join(repo, "supervisor"), 0o755)
	os.WriteFile(filepath.Join(repo, "supervisor/supervisord.conf"), []byte("[supervisord]\nnodaemon=true\n"), 0o644)
	newSite := "server {\n    listen 8080;\n    location / { proxy_pass http://127.0.0.1:5000; }\n}\n"
	os.WriteFile(filepath.Join(etc, "sites-available/new"), []byte(newSite), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "layouts"}} {
		if out, err := runCmd(t, repo, "git", args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// enabling the site: the only changed file is the link
	os.Symlink("../sites-available/new", filepath.Join(etc, "sites-enabled/new"))
	runCmd(t, repo, "git", "add", "-A")
	out, err := runCmd(t, repo, "pre-commit", "run", "nginxtune", "--files", "etc/nginx/sites-enabled/new")
	if err == nil || !strings.Contains(out, "sites-available/new:3:29: warning: proxy_pass to the address 127.0.0.1:5000") {
		t.Errorf("the commit enabling a site was not checked (err %v):\n%s", err, out)
	}
	// RHEL's default.d: a broken file fails the hook
	os.WriteFile(filepath.Join(rhel, "default.d/php.conf"), []byte("location ~ \\.php$ {\n    fastcgi_pass;\n}\n"), 0o644)
	out, err = runCmd(t, repo, "pre-commit", "run", "nginxtune", "--files", "rhel/default.d/php.conf")
	if err == nil || !strings.Contains(out, "default.d/php.conf:2:5: error") {
		t.Errorf("a broken default.d file passed (err %v):\n%s", err, out)
	}
	// another program's *.conf reaches the hook, which skips it
	out, err = runCmd(t, repo, "pre-commit", "run", "nginxtune", "--files", "supervisor/supervisord.conf")
	if err != nil || !strings.Contains(out, "skipped supervisor/supervisord.conf") && !strings.Contains(out, "Passed") {
		t.Errorf("supervisord.conf failed the hook (err %v):\n%s", err, out)
	}

	// the fmt hook: the new site's one-line location fails it with the
	// diff; a formatted file and another program's *.conf pass
	out, err = runCmd(t, repo, "pre-commit", "run", "nginxtune-fmt", "--files", "etc/nginx/sites-enabled/new")
	if err == nil || !strings.Contains(out, "+    location / {") {
		t.Errorf("the fmt hook passed an unformatted site (err %v):\n%s", err, out)
	}
	os.WriteFile(filepath.Join(rhel, "default.d/php.conf"), []byte("location ~ \\.php$ {\n    fastcgi_pass unix:/run/php-fpm/www.sock;\n}\n"), 0o644)
	for _, f := range []string{"rhel/default.d/php.conf", "supervisor/supervisord.conf"} {
		if out, err := runCmd(t, repo, "pre-commit", "run", "nginxtune-fmt", "--files", f); err != nil {
			t.Errorf("the fmt hook failed %s:\n%s", f, out)
		}
	}
}

// The diff hook, run when asked (the manual stage), says which requests
// the working tree answers differently from HEAD: a proxy_pass given a
// trailing slash changes the URI the backend gets.
func TestPreCommitDiffHook(t *testing.T) {
	requirePreCommit(t)
	repo := t.TempDir()
	must := mustRun(t)
	conf := "events {}\nhttp {\n    server {\n        listen 80;\n        server_name app.test;\n        location /api/ {\n            proxy_pass http://127.0.0.1:9000%s;\n        }\n    }\n}\n"
	must(runCmd(t, repo, "git", "init", "-q", "-b", "main"))
	os.WriteFile(filepath.Join(repo, "nginx.conf"), []byte(fmt.Sprintf(conf, "")), 0o644)
	must(runCmd(t, repo, "git", "add", "-A"))
	must(runCmd(t, repo, "git", "commit", "-q", "-m", "proxy"))
	// not run at commit time
	if out, _ := runCmd(t, repo, "pre-commit", "try-repo", root, "nginxtune-diff", "--all-files"); !strings.Contains(out, "No hook with id `nginxtune-diff` in stage") {
		t.Fatalf("the diff hook ran at the commit stage:\n%s", out)
	}
	os.WriteFile(filepath.Join(repo, "nginx.conf"), []byte(fmt.Sprintf(conf, "/")), 0o644)
	out, err := runCmd(t, repo, "pre-commit", "try-repo", root, "nginxtune-diff", "--all-files", "--hook-stage", "manual")
	if err == nil || !strings.Contains(out, "/api/") || !strings.Contains(out, "nginx.conf:7") {
		t.Fatalf("the manual diff hook did not report the changed request at nginx.conf:7 (err %v):\n%s", err, out)
	}
	os.WriteFile(filepath.Join(repo, "nginx.conf"), []byte(fmt.Sprintf(conf, "")+"# a comment\n"), 0o644)
	if out, err := runCmd(t, repo, "pre-commit", "try-repo", root, "nginxtune-diff", "--all-files", "--hook-stage", "manual"); err != nil || !strings.Contains(out, "no change in behaviour") {
		t.Fatalf("a change that moves no answer (err %v):\n%s", err, out)
	}
}

// internal/startup sets the runtime up before any other package of the
// command allocates: its initialisation comes right after the runtime's few
// dependencies, before yaml's (which compiles expressions on a deep stack)
// and every other package of nginxtune's (GODEBUG=inittrace=1 prints each
// package's initialisation in the order run).
func TestHookStartupRunsFirst(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "nginxtune")
	if out, err := runCmd(t, root, "go", "build", "-o", bin, "./cmd/nginxtune"); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	var order []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	at := -1
	for i, p := range order {
		if p == "github.com/nginxtune/nginxtune/internal/startup" {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("internal/startup is not initialised: %v", order)
	}
	for _, p := range order[:at] {
		if strings.HasPrefix(p, "github.com/") || strings.HasPrefix(p, "go.yaml.in/") || strings.HasPrefix(p, "regexp") || strings.HasPrefix(p, "unicode") {
			t.Errorf("%s is initialised before internal/startup: %v", p, order[:at+1])
		}
	}
	if at > 8 {
		t.Errorf("internal/startup is initialised %dth, after %v", at+1, order[:at])
	}
}
