package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireNeovim skips without nvim, except in CI, where deps.sh installs it.
func requireNeovim(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nvim is not installed; scripts/deps.sh installs neovim")
		}
		t.Skip("nvim is not installed")
	}
	return p
}

// Neovim's built-in LSP client (Debian's 0.7) starts nginxtune lsp, opens a
// site file of a tree, and receives the finding at its line: the file is
// linted inside the nginx.conf that includes it. Then it completes as a user
// does (omnifunc, in insert mode) after "http://", "$connection_up" and
// "@fall": each completion carries the edit of the word typed, so the line
// reads "http://app", where Neovim wrote "http://http://app" (it inserts a
// label after its own idea of a word) and offered no variable at all.
func TestNeovimClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nginxtune and runs neovim")
	}
	nvim := requireNeovim(t)
	bin := filepath.Join(t.TempDir(), "nginxtune")
	if out, err := runCmd(t, root, "go", "build", "-o", bin, "./cmd/nginxtune"); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "fixtures/lsp"))); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "sites", "app.conf")
	out := filepath.Join(t.TempDir(), "diagnostics.txt")
	completed := filepath.Join(t.TempDir(), "completed.txt")
	init := filepath.Join(t.TempDir(), "init.lua")
	// completion runs in insert mode, which starts once this script has
	// run: each step is a timer of the main loop
	lua := `
local client = vim.lsp.start_client({ name = "nginxtune", cmd = { ` + luaString(bin) + `, "lsp" }, root_dir = ` + luaString(dir) + ` })
vim.cmd("edit " .. vim.fn.fnameescape(` + luaString(site) + `))
vim.lsp.buf_attach_client(0, client)
vim.wait(20000, function()
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if d.message:find("sendfil", 1, true) then return true end
  end
  return false
end, 50)
local lines = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(lines, string.format("%d|%d|%s", d.lnum, d.severity, d.message))
end
vim.fn.writefile(lines, ` + luaString(out) + `)
vim.bo.omnifunc = "v:lua.vim.lsp.omnifunc"
local cases = { "        proxy_pass http://", "        proxy_set_header X $connection_up", "        try_files $uri @fall" }
local done = {}
local function key(k) vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(k, true, false, true), "n", false) end
local function complete(i)
  if i > #cases then
    vim.fn.writefile(done, ` + luaString(completed) + `)
    vim.lsp.stop_client(client)
    vim.wait(2000, function() return vim.lsp.client_is_stopped(client) end, 50)
    vim.cmd("qa!")
    return
  end
  -- line 6 holds proxy_pass: what the user types replaces it
  vim.api.nvim_buf_set_lines(0, 5, 6, false, { cases[i] })
  vim.api.nvim_win_set_cursor(0, { 6, #cases[i] })
  key("a<C-x><C-o>")
  local tries = 0
  local function poll()
    tries = tries + 1
    if #vim.fn.complete_info({ "items" }).items == 0 and tries < 200 then
      vim.defer_fn(poll, 50)
      return
    end
    key("<C-y><Esc>")
    vim.defer_fn(function()
      table.insert(done, vim.api.nvim_buf_get_lines(0, 5, 6, false)[1])
      complete(i + 1)
    end, 50)
  end
  vim.defer_fn(poll, 50)
end
complete(1)
`
	os.WriteFile(init, []byte(lua), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-u", init)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	combined, err := cmd.CombinedOutput()
	// neovim and the server it started are gone either way
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if ctx.Err() != nil {
		t.Fatalf("neovim did not finish within 60 s: %s", combined)
	}
	if err != nil {
		t.Fatalf("neovim: %v\n%s", err, combined)
	}
	b, _ := os.ReadFile(out)
	got := string(b)
	t.Logf("neovim's diagnostics:\n%s", got)
	// line 16 (15 from zero): unknown directive, an error (1): no version
	// nginxtune knows has it; line 6:
	// the keepalive finding that only the whole tree gives
	if !strings.Contains(got, `15|1|unknown directive "sendfil"`) || !strings.Contains(got, "5|2|upstream \"app\" keeps idle connections") {
		t.Errorf("neovim's diagnostics:\n%s\nneovim said: %s", got, combined)
	}
	b, _ = os.ReadFile(completed)
	want := "        proxy_pass http://app\n        proxy_set_header X $connection_upgrade\n        try_files $uri @fallback\n"
	if string(b) != want {
		t.Errorf("lines after neovim's completion:\n%s\nwant:\n%s", b, want)
	}
}

func luaString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// The server's --nginx-version and --facts (the VS Code extension's
// settings) are checked when it starts: a bad one is a one-line error and
// exit 2 before any message is read, not a failure at every file it lints.
func TestLSPFlagsCheckedAtStart(t *testing.T) {
	for _, args := range [][]string{{"--nginx-version", "1.x"}, {"--facts", filepath.Join(t.TempDir(), "missing.yaml")}} {
		_, errOut, code := runCLI(t, "", append([]string{"lsp"}, args...)...)
		if code != ExitError || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, args[0]) {
			t.Errorf("lsp %v: exit %d, %q", args, code, errOut)
		}
	}
}
