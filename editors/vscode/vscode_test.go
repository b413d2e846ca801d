// Package vscode holds the test of nginxtune's VS Code extension (the
// extension itself is JavaScript, beside this file).
package vscode

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// need skips when a tool of the test is missing, except in CI, where
// scripts/deps.sh installs it.
func need(t *testing.T, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s; scripts/deps.sh installs it", what)
	}
	t.Skip(what)
}

// group starts cmd in a process group of its own, ended with the test.
func group(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
}

// output is what a process printed, read while it runs.
type output struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// waitLine reads r until a line matches re and returns its first group;
// the rest of r is read on (into log) so the process never blocks.
func waitLine(t *testing.T, r io.Reader, re *regexp.Regexp, log *output, what string) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(r)
		s.Buffer(nil, 1<<20)
		sent := false
		for s.Scan() {
			log.mu.Lock()
			log.b.WriteString(s.Text() + "\n")
			log.mu.Unlock()
			if m := re.FindStringSubmatch(s.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case v, ok := <-found:
		if !ok {
			t.Fatalf("%s ended before it was ready:\n%s", what, log)
		}
		return v
	case <-time.After(90 * time.Second):
		t.Fatalf("%s not ready within 90 s:\n%s", what, log)
	}
	return ""
}

// nodeModules skips (fails in CI) without node and the extension's modules,
// and gives node's path.
func nodeModules(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	need(t, err == nil, "node is not installed")
	_, err = os.Stat(filepath.Join("node_modules", ".nginxtune-deps"))
	need(t, err == nil, "editors/vscode/node_modules is not installed (scripts/deps-vscode.sh)")
	return node
}

// The grammar, tokenized by VS Code's own TextMate engine: comments,
// directives and block directives, variables ($x and ${x} inside strings),
// both quotes, numbers and sizes, on/off, location's modifiers (=, ^~, ~,
// ~*) with the regular expression after ~, a named location, if's regular
// expression. extension.js looks its program up in PATH's absolute
// directories only and refuses a relative nginxtune.path, and passes the
// settings as lsp's flags (test/unit.js).
func TestVSCodeGrammarAndSettings(t *testing.T) {
	node := nodeModules(t)
	cmd := exec.Command(node, filepath.Join("test", "unit.js"))
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("test/unit.js: %v\n%s", err, out)
	}
}

// The manifest: the extension's version is the program's; nginxtune.path
// is machine-scoped (VS Code ignores a workspace's value: TestVSCodeExtension
// shows it) and nginxtune.facts is among the settings an untrusted
// workspace cannot give (VS Code's Restricted Mode).
func TestVSCodeManifest(t *testing.T) {
	var pkg struct {
		Version      string
		Capabilities struct {
			UntrustedWorkspaces struct {
				Supported                any
				RestrictedConfigurations []string
			}
		}
		Contributes struct {
			Configuration struct {
				Properties map[string]struct{ Scope string }
			}
		}
	}
	b, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	v, err := os.ReadFile(filepath.Join("..", "..", "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	if pkg.Version != strings.TrimSpace(string(v)) {
		t.Errorf("editors/vscode/package.json's version %s, VERSION %s", pkg.Version, v)
	}
	if s := pkg.Contributes.Configuration.Properties["nginxtune.path"].Scope; s != "machine" {
		t.Errorf("nginxtune.path's scope %q, want machine", s)
	}
	u := pkg.Capabilities.UntrustedWorkspaces
	if u.Supported != "limited" || strings.Join(u.RestrictedConfigurations, " ") != "nginxtune.facts" {
		t.Errorf("untrustedWorkspaces: %+v, want limited with nginxtune.facts restricted", u)
	}
}

// VS Code (code-server, VS Code's server with its workbench in a browser)
// with the extension installed from the .vsix that `make vsix` builds, in
// headless Chromium: the site file of a tree under nginx/ opens as the nginx
// language and is highlighted by the extension's grammar; the diagnostics
// of the whole tree arrive (the upstream keepalive finding needs the
// nginx.conf that includes the file), linted for the nginx version of the
// user's settings (1.24.0: the keepalive message has no "applies to nginx
// before" clause); hover on proxy_pass shows the directive; the quick fix
// removes "tcp_nodelay off;"; Format Document re-indents what was written
// out of place; the saved file is nginxtune fmt's layout; nginx.conf, opened
// then, is linted with the workspace's nginxtune.facts (a relative path: the
// facts' open-file limit appears in a finding). The workspace's
// own .vscode/settings.json names a program of the tree as nginxtune.path:
// it never runs (the setting is the user's alone).
func TestVSCodeExtension(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nginxtune and the .vsix, runs code-server and Chromium")
	}
	node := nodeModules(t)
	_, err := os.Stat("/usr/bin/chromium")
	need(t, err == nil, "chromium is not installed")
	ext, _ := filepath.Abs(".")
	root := filepath.Join(ext, "..", "..")

	tmp := t.TempDir()
	dir := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// everything the programs write goes under tmp
	env := append(os.Environ(), "HOME="+dir("home"), "XDG_CONFIG_HOME="+dir("config"), "XDG_DATA_HOME="+dir("data"),
		"XDG_CACHE_HOME="+dir("cache"), "TMPDIR="+dir("tmp"))
	run := func(dir string, name string, args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}

	bin := filepath.Join(dir("bin"), "nginxtune")
	run(root, "go", "build", "-o", bin, "./cmd/nginxtune")
	vsix := filepath.Join(tmp, "nginxtune.vsix")
	run(ext, node, "node_modules/@vscode/vsce/vsce", "package", "--skip-license", "--out", vsix)

	// the workspace: fixtures/lsp as nginx/, a site file written out of
	// place, and settings of the workspace that name a program of its own
	ws := dir("ws")
	tree := filepath.Join(ws, "nginx")
	if err := os.CopyFS(tree, os.DirFS(filepath.Join(root, "fixtures", "lsp"))); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(tree, "sites", "app.conf")
	b, err := os.ReadFile(site)
	if err != nil {
		t.Fatal(err)
	}
	messy := strings.Replace(strings.Replace(string(b), "        return 404;", "  return 404;", 1), "    sendfil on;", "sendfil on;", 1)
	if messy == string(b) {
		t.Fatal("fixtures/lsp/sites/app.conf changed: the test writes its return and sendfil lines out of place")
	}
	write := func(p, s string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(site, messy, 0o644)
	marker := filepath.Join(tmp, "ran")
	write(filepath.Join(ws, "evil"), "#!/bin/sh\necho ran > "+marker+"\nexec "+bin+" \"$@\"\n", 0o755)
	// the workspace's facts file, relative to the folder: a soft open-file
	// limit of 300 that nginx.conf's worker_connections 512 exceeds
	write(filepath.Join(ws, "facts.yaml"), "nofile:\n  value:\n    soft: 300\n    hard: 300\n  source: the test\n", 0o644)
	js, _ := json.Marshal(map[string]any{"nginxtune.path": filepath.Join(ws, "evil"), "nginxtune.facts": "facts.yaml"})
	write(filepath.Join(ws, ".vscode", "settings.json"), string(js), 0o644)

	// the user's settings: the program, the nginx version; a quiet workbench
	ud := dir("user-data")
	js, _ = json.Marshal(map[string]any{
		"nginxtune.path":                   bin,
		"nginxtune.nginxVersion":           "1.24.0",
		"security.workspace.trust.enabled": false,
		"workbench.startupEditor":          "none",
		"workbench.tips.enabled":           false,
		"telemetry.telemetryLevel":         "off",
		"extensions.autoCheckUpdates":      false,
		"extensions.autoUpdate":            false,
		"update.mode":                      "none",
		"editor.hover.delay":               100,
		"workbench.editor.enablePreview":   false,
		"files.autoSave":                   "off",
	})
	write(filepath.Join(ud, "User", "settings.json"), string(js), 0o644)

	cs := filepath.Join(ext, "node_modules", "code-server", "out", "node", "entry.js")
	common := []string{cs, "--user-data-dir", ud, "--extensions-dir", dir("extensions"), "--config", filepath.Join(tmp, "code-server.yaml")}
	run(ext, node, append(common, "--install-extension", vsix)...)

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	server := exec.Command(node, append(common, "--auth", "none", "--bind-addr", "127.0.0.1:0", "--disable-telemetry",
		"--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override", ws)...)
	server.Dir, server.Env = ext, env
	out, _ := server.StdoutPipe()
	server.Stderr = server.Stdout
	group(t, server)
	var serverLog output
	port := waitLine(t, out, regexp.MustCompile(`HTTP server listening on http://127\.0\.0\.1:(\d+)/`), &serverLog, "code-server")

	browser := exec.Command("/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+dir("chromium"),
		"--remote-debugging-port=0", "about:blank")
	browser.Env = env
	errs, _ := browser.StderrPipe()
	group(t, browser)
	var browserLog output
	cdp := waitLine(t, errs, regexp.MustCompile(`DevTools listening on (ws://\S+)`), &browserLog, "chromium")

	drive := exec.CommandContext(ctx, node, filepath.Join(ext, "test", "e2e.js"))
	drive.Dir = ext
	drive.Env = append(env, "NGINXTUNE_CDP="+cdp, "NGINXTUNE_URL=http://127.0.0.1:"+port+"/?folder="+ws, "NGINXTUNE_SHOT="+os.Getenv("NGINXTUNE_SHOT"))
	drive.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	drive.Cancel = func() error { return syscall.Kill(-drive.Process.Pid, syscall.SIGKILL) }
	var stderr strings.Builder
	drive.Stderr = &stderr
	stdout, err := drive.Output()
	if ctx.Err() != nil {
		t.Fatalf("the test did not finish within 300 s: %s\n%s", stdout, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	var saw struct {
		Language string
		Problems []string
		Tokens   map[string]string
		Hover    string
		Actions  []string
		Facts    string `json:"factsProblem"`
		Done     bool
	}
	if jerr := json.Unmarshal([]byte(lines[len(lines)-1]), &saw); jerr != nil || err != nil {
		t.Fatalf("driving VS Code: %v\n%s\n%s\ncode-server:\n%s\nchromium:\n%s", err, stdout, stderr.String(), serverLog.String(), browserLog.String())
	}
	t.Logf("VS Code showed: %+v", saw)

	if saw.Language != "nginx" {
		t.Errorf("language of nginx/sites/app.conf: %q, want nginx", saw.Language)
	}
	problems := strings.Join(saw.Problems, "\n")
	for _, want := range []string{`unknown directive "sendfil"`, `upstream "app" keeps idle connections`, "tcp_nodelay off"} {
		if !strings.Contains(problems, want) {
			t.Errorf("Problems panel lacks %q:\n%s", want, problems)
		}
	}
	if !strings.Contains(saw.Facts, "worker_connections 512") {
		t.Errorf("nginx.conf's finding from the facts file: %q", saw.Facts)
	}
	if strings.Contains(problems, "applies to nginx before") {
		t.Errorf("linted for every version, not nginxtune.nginxVersion 1.24.0:\n%s", problems)
	}
	// mtk1 is the theme's plain text
	for tok, class := range saw.Tokens {
		if class == "" || strings.Contains(" "+class+" ", " mtk1 ") {
			t.Errorf("token %q is not highlighted (class %q)", tok, class)
		}
	}
	if !strings.Contains(saw.Hover, "nginx.org") && !strings.Contains(saw.Hover, "ngx_http_proxy_module") {
		t.Errorf("hover on proxy_pass:\n%s", saw.Hover)
	}
	got, err := os.ReadFile(site)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(b), "tcp_nodelay off;", "tcp_nodelay on;", 1)
	if string(got) != want {
		t.Errorf("saved after the quick fix and Format Document:\n%s\nwant:\n%s", got, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the workspace's nginxtune.path ran")
	}
}
