package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// runnerCommands returns the lines of out that the GitHub Actions runner
// reads as workflow commands, as actions/runner parses a step's output
// (ActionCommand.TryParseV2, then the legacy TryParse): a line, ended by
// "\n", "\r" or "\r\n", whose start after blanks (char.IsWhiteSpace, as
// unicode.IsSpace) is "::", or that holds "##[" anywhere. Its reader drops
// a byte order mark at the start of the stream.
func runnerCommands(out string) []string {
	var cmds []string
	out = strings.TrimPrefix(out, "\ufeff")
	for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") || strings.Contains(line, "##[") {
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// An annotation of --format github: the only commands any output may hold.
var ownAnnotation = regexp.MustCompile(`^::(error|warning|notice) file=[^,:]*,line=[0-9]+,col=[0-9]+,title=nginxtune [a-z0-9-]+::[^\r]*$`)

// hostileTree writes a tree whose file names, strings, Lua block and
// include name hold workflow commands, a right-to-left override and a C1
// control, and returns it and the names of its files.
func hostileTree(t *testing.T) (dir, forged, bidi string) {
	t.Helper()
	dir = t.TempDir()
	forged = "::error file=README.md,line=1::X.conf"
	bidi = "a\u202egnp.conf"
	files := map[string]string{
		// a finding (gzip_comp_level), a layout fmt changes, a multi-line
		// string whose lines become a diff's context, messages (lint's,
		// parse's) that quote an argument holding "##["
		forged: "server {\n listen 80;\n  gzip_comp_level 9;\n  return 200 \"a\n::error file=README.md,line=1::CTX\n  \t::warning::TAB\nb ##[error]mid\";\n" +
			"  add_header X-A \"##[warning]w\u009b\";\n  proxy_buffering \"##[error]x\";\n  include /nonexist/##[error].conf;\n}\n",
		bidi: "server {\n listen 81;\n  gzip_comp_level 9;\n  location / {\n   content_by_lua_block {\n::error file=README.md,line=1::LUA\n    ngx.say(\"##[error]x\")\n   }\n  }\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Skip(err)
		}
	}
	return dir, forged, bidi
}

// No output of any subcommand runs a GitHub Actions workflow command: a
// file named "::error file=README.md,line=1::X.conf" at the start of a
// line of lint's text, the pre-commit hooks (lint --changed, fmt --changed
// --check --diff), fmt --check, fmt's diffs (context lines from a
// multi-line string and a Lua block), route, parse, and the errors main
// prints; "##[" nowhere. The runner's own parsing (runnerCommands) finds
// no command but --format github's annotations, one per finding. Every
// output, JSON included, carries no raw right-to-left override or C1
// control, and JSON reads back the exact file name.
func TestOutputRunsNoWorkflowCommand(t *testing.T) {
	dir, forged, bidi := hostileTree(t)
	t.Chdir(dir)
	lint := []string{"lint", "--no-config", "--no-host"}
	// each run, and what shows that the hostile bytes reached its output
	// (neutralised)
	// (the Lua block's lines move with their block: its forged line is a
	// removed line of the diff, "-" first, not a context line)
	const line, ctx, lua, mid = `\x3a:error file=README.md,line=1::X.conf`, ` \x3a:error file=README.md,line=1::CTX`, "\n-::error file=README.md,line=1::LUA", `#\x23[error]`
	runs := []struct {
		args  []string
		shows []string
	}{
		{append(lint, "."), []string{"\n" + line + ":3:"}},
		{append(lint, "-f", "json", "."), []string{`#\u0023[error]x\"`}},
		{append(lint, "-f", "sarif", "."), []string{`#\u0023[error]x\"`}},
		{append(lint, "-f", "github", "."), nil},
		{append(lint, "--changed", forged, bidi), []string{"\n" + line + ":3:"}},
		{append(lint, forged+"missing"), []string{line + "missing"}},
		{[]string{"fmt", "--check", "."}, []string{"\n" + line + ": would reformat"}},
		{[]string{"fmt", "--check", "--diff", "--indent", "4", "."}, []string{ctx, lua, " \t" + `\x3a:warning::TAB`, mid}},
		{[]string{"fmt", "--changed", "--check", "--diff", forged, bidi}, []string{ctx, lua}},
		{[]string{"fmt", "--diff", "-"}, []string{ctx}},
		{[]string{"parse", "."}, []string{`#\u0023[error]`, `#\x23[error].conf`}},
		{[]string{"parse", "-f", "crossplane", "."}, []string{`#\u0023[error]`}},
		{[]string{"parse", forged}, []string{`#\x23[error].conf`}},
		{[]string{"route", forged, "http://x/##[error]p\u202e"}, []string{mid}},
		{[]string{"route", "-f", "json", forged, "http://x/##[error]p\u202e"}, []string{`#\u0023[error]p\u202e`}},
		{[]string{"route", "-f", "json", bidi, "/::error::p"}, []string{`"/::error::p"`}},
		{[]string{"::error file=README.md,line=1::unknown"}, []string{"unknown command"}},
		{[]string{"fmt", "."}, []string{"formatted " + line}}, // last: it rewrites the tree
	}
	for _, run := range runs {
		args := run.args
		stdin := ""
		if args[len(args)-1] == "-" {
			src, _ := os.ReadFile(forged)
			stdin = string(src)
		}
		out, errOut, _ := runCLI(t, stdin, args...)
		all := out + errOut
		for _, s := range run.shows {
			if !strings.Contains("\n"+all, s) {
				t.Errorf("%q: no %q in the output:\n%s", args, s, all)
			}
		}
		cmds := runnerCommands(all)
		if len(args) > 4 && args[4] == "github" {
			var own []string
			for _, c := range cmds {
				if !ownAnnotation.MatchString(c) {
					own = append(own, c)
				}
			}
			if len(cmds) == 0 || len(cmds) != strings.Count(out, "\n") {
				t.Errorf("%q: %d annotations for %d lines", args, len(cmds), strings.Count(out, "\n"))
			}
			cmds = own
		}
		for _, c := range cmds {
			t.Errorf("%q: the runner reads a workflow command: %q", args, c)
		}
		if strings.ContainsAny(all, "\u202e\u009b") {
			t.Errorf("%q: a raw right-to-left override or C1 control in the output", args)
		}
		if len(args) > 4 && args[4] == "json" {
			var rep struct{ Findings []struct{ File string } }
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			names := map[string]bool{}
			for _, f := range rep.Findings {
				names[f.File] = true
			}
			if !names[forged] || !names[bidi] {
				t.Errorf("%q: JSON does not read back the files' names: %v", args, names)
			}
		}
	}
}

// A mistyped command is answered on one line, its suggestion included:
// cobra's "Did you mean this?" is not escaped into \x0a\x09.
func TestUnknownCommandOneLine(t *testing.T) {
	_, errOut, code := runCLI(t, "", "fmtt")
	if code != ExitError || errOut != "nginxtune: unknown command \"fmtt\" for \"nginxtune\" (did you mean fmt?)\n" {
		t.Errorf("exit %d: %q", code, errOut)
	}
}

// fmt --diff is a patch: on tab-indented files (Debian's), a file with
// CRLF line endings and one without a last line ending, git apply and
// patch -p1 take it and leave each file as fmt writes it.
func TestFmtDiffIsAPatch(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	files := map[string]string{
		"nginx.conf":  "user www-data;\nevents {\n\tworker_connections 768;\n}\nhttp {\n\tsendfile on;\n\tinclude sites/*;\n}\n",
		"sites/tab":   "server {\n\tlisten 80 default_server;\n\tlocation / {\n\t\ttry_files $uri $uri/ =404;\n\t}\n}\n",
		"sites/crlf":  "server {\r\n\tlisten 81;\r\n\tserver_name \"tab\there\";\r\n}\r\n",
		"sites/noeol": "server {\n\tlisten 82;\n}",
	}
	write := func(dir string) {
		for name, body := range files {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := t.TempDir()
	write(want)
	t.Chdir(want)
	// each file is indented anew (a file keeps its own tabs unless told)
	diff, errOut, code := runCLI(t, "", "fmt", "--indent", "4", "--diff", ".")
	if code != ExitFindings || strings.Count(diff, "--- a/") != len(files) {
		t.Fatalf("fmt --diff: exit %d, %s%s", code, diff, errOut)
	}
	if _, errOut, code := runCLI(t, "", "fmt", "--indent", "4", "."); code != ExitOK {
		t.Fatalf("fmt: exit %d: %s", code, errOut)
	}
	patchFile := filepath.Join(t.TempDir(), "fmt.diff")
	os.WriteFile(patchFile, []byte(diff), 0o644)
	tools := [][]string{{git, "apply", "--check", patchFile}, {git, "apply", patchFile}}
	if patch, err := exec.LookPath("patch"); err == nil {
		tools = append(tools, []string{patch, "-p1", "--dry-run", "-i", patchFile}, []string{patch, "-p1", "-i", patchFile})
	}
	for i := 0; i < len(tools); i += 2 {
		dir := t.TempDir()
		write(dir)
		if tools[i][0] == git {
			// a repository of its own: git apply outside one, below a
			// checkout, would apply to the checkout's paths
			if out, err := runCmd(t, dir, git, "init", "-q"); err != nil {
				t.Fatal(out)
			}
		}
		for _, cmd := range tools[i : i+2] {
			if out, err := runCmd(t, dir, cmd[0], cmd[1:]...); err != nil {
				t.Fatalf("%s: %v\n%s\nthe diff:\n%s", strings.Join(cmd[1:], " "), err, out, diff)
			}
		}
		for name := range files {
			got, _ := os.ReadFile(filepath.Join(dir, name))
			formatted, _ := os.ReadFile(filepath.Join(want, name))
			if string(got) != string(formatted) {
				t.Errorf("%s: %s gives %q, fmt writes %q", filepath.Base(tools[i][0]), name, got, formatted)
			}
		}
	}
}
