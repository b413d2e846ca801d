package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	must := func(out string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out
	}
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
