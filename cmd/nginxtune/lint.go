package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/atomicfile"
	"github.com/nginxtune/nginxtune/internal/outbuf"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/loader"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/lint"
	"github.com/nginxtune/nginxtune/report"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
)

type lintFlags struct {
	load         loadFlags
	formats      []string
	failOn       string
	nginxVersion string
	configPath   string
	noConfig     bool
	disable      []string
	enable       []string
	fix          bool
	color        string
	host         bool
	noHost       bool
	factsFile    string
	changed      bool
	roots        []string
	allowOutside []string
	force        bool
	nginxTest    bool
}

func newLintCmd() *cobra.Command {
	var f lintFlags
	c := &cobra.Command{
		Use:   "lint [PATH...]",
		Short: "Find what nginx -t would refuse, security holes and lost speed, at file:line",
		Long: `Lint nginx configuration trees: each PATH is a main file, a directory, an "nginx -T"
output file or "-" (default /etc/nginx). Findings are reported at their file:line:col
with what to write instead; "nginxtune explain RULE" tells more.

Settings come from flags, then from .nginxtune.yaml (found in the linted path's
directory or above it, or named with --config). The nginx version to lint for comes
from --nginx-version, the config file, or "nginx -v" when the linted tree is the
live one (/etc/nginx and the like).

Suppress a finding with "# nginxtune:disable RULE -- reason" on the line before a
directive (it covers the directive and its block) or at the end of its line, or
"# nginxtune:disable-file RULE -- reason" for a whole file.

Host-aware rules (host-*) compare the configuration with the machine: with --host
(the default for the live tree) they read this one, with --facts FILE the facts
saved on another with "nginxtune facts".

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it,
2 could not run (bad flag or config file, unreadable path, a file nginx cannot parse,
a tree not read whole), 3 internal error.`,
		RunE: func(c *cobra.Command, args []string) error { return runLint(c, args, &f) },
	}
	f.load.register(c)
	fl := c.Flags()
	listVar(fl, &f.formats, "format", "f", []string{"text"}, false, "output format: "+strings.Join(report.Formats(), ", ")+"; FORMAT=FILE writes it to FILE instead of standard output; repeatable, one run writes them all")
	fl.StringVar(&f.failOn, "fail-on", "", "lowest severity that makes the exit code 1: error, warning, info or none (default warning)")
	fl.StringVar(&f.nginxVersion, "nginx-version", "", "nginx version to lint for, e.g. 1.22.1 (default: from the config file or the installed nginx when linting the live tree)")
	fl.StringVar(&f.configPath, "config", "", "settings file (default: .nginxtune.yaml in the linted path's directory or above)")
	fl.BoolVar(&f.noConfig, "no-config", false, "do not read .nginxtune.yaml")
	listVar(fl, &f.disable, "disable", "", nil, true, "rules not to run: ids or category:NAME (security, performance, correctness, host, input); comma-separated or repeated")
	listVar(fl, &f.enable, "enable", "", nil, true, "run only these rules (and the ones reporting unreadable input): ids or category:NAME")
	fl.BoolVar(&f.fix, "fix", false, "apply the fixes that findings carry to the files, then report what is left")
	fl.StringVar(&f.color, "color", "auto", "colour in text output: auto, always or never")
	fl.BoolVar(&f.host, "host", false, "check the configuration against this machine (on by default for the live /etc/nginx)")
	fl.BoolVar(&f.noHost, "no-host", false, "do not read this machine's facts, even for the live tree")
	fl.StringVar(&f.factsFile, "facts", "", "check against the host facts in FILE (saved with nginxtune facts)")
	fl.BoolVar(&f.changed, "changed", false, "the PATHs are changed files (as pre-commit passes them): lint the trees that include them, report findings in them only")
	fl.BoolVar(&f.force, "force", false, "with --fix: also rewrite read-only files")
	fl.BoolVar(&f.nginxTest, "nginx-test", false, "with --fix: check the fixed tree with the installed nginx -t even when it is not the live /etc/nginx. nginx -t loads the modules the configuration names, runs its perl, njs and Lua code and creates its log, pid and temp paths: give it only for a tree you trust, never for a pull request's")
	listVar(fl, &f.allowOutside, "allow-outside", "", nil, false, "a directory outside the linted tree that includes may read (repeatable); by default only the live /etc/nginx reads outside its directory")
	listVar(fl, &f.roots, "root", "", nil, false, "with --changed: a main file the changed files are included from (default: the nearest nginx.conf above each, or roots: in .nginxtune.yaml)")
	return c
}

// options are the flags as the lint library takes them.
func (f *lintFlags) options(c *cobra.Command) lint.Options {
	return lint.Options{Prefix: f.load.prefix, Maps: f.load.maps, FailOn: f.failOn, NginxVersion: f.nginxVersion,
		ConfigPath: f.configPath, NoConfig: f.noConfig, Disable: f.disable, Enable: f.enable,
		Host: f.host, NoHost: f.noHost, FactsFile: f.factsFile, Changed: f.changed, Roots: f.roots,
		AllowOutside: f.allowOutside, Fix: f.fix, Force: f.force, NginxTest: f.nginxTest,
		Stdin: c.InOrStdin(), Stderr: c.ErrOrStderr()}
}

func runLint(c *cobra.Command, args []string, f *lintFlags) error {
	if len(args) == 0 && f.changed {
		return nil // no changed files: nothing to lint
	}
	if len(args) == 0 {
		args = []string{"/etc/nginx"}
	}
	s, err := lint.Resolve(f.options(c), args[0])
	if err != nil {
		return failf(ExitError, "%v", err)
	}
	defer s.TuneGC()()
	outputs, err := parseOutputs(f.formats)
	if err != nil {
		return err
	}
	color, err := useColor(f.color, outputs, c.OutOrStdout())
	if err != nil {
		return err
	}
	if f.fix {
		unlock, err := lint.LockDirs(args)
		if err != nil {
			return failf(ExitError, "--fix: %v", err)
		}
		defer unlock()
	}
	res, err := s.Lint(args)
	if err != nil {
		return failf(ExitError, "%v", err)
	}
	sayLinted(c.ErrOrStderr(), s, res.Trees)
	if f.fix {
		if err := runFix(c.ErrOrStderr(), s, args, res); err != nil {
			return err
		}
	}
	if err := writeReports(c.OutOrStdout(), outputs, res.Diags, s, color); err != nil {
		return err
	}
	sayRead(c.ErrOrStderr(), res.Trees, len(res.Diags), s)
	return lintExit(c.ErrOrStderr(), s, res)
}

// useColor reads --color for the format that goes to standard output.
func useColor(flag string, outputs []output, stdout io.Writer) (bool, error) {
	stdoutFormat := ""
	for _, o := range outputs {
		if o.path == "" {
			stdoutFormat = o.format
		}
	}
	switch flag {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return stdoutFormat == "text" && isTerminal(stdout) && os.Getenv("NO_COLOR") == "", nil
	}
	return false, failf(ExitError, "--color %q: want auto, always or never", flag)
}

// sayLinted tells what the run could not read: host facts, files outside
// the linted directory, files of the tree.
func sayLinted(w io.Writer, s *lint.Settings, trees []*loader.Tree) {
	if s.LiveHost {
		sayProblems(w, s.Config.Host.Problems())
	}
	sayOutside(w, trees)
	for _, t := range trees {
		for _, p := range t.Unreadable {
			fmt.Fprintf(w, "nginxtune: %s could not be read: the tree was not linted whole (exit %d whatever --fail-on says)\n", untrusted.Escape(relPath(p)), ExitError)
		}
	}
}

// runFix applies the fixes (lint.Settings.Fix) and says what it did.
func runFix(w io.Writer, s *lint.Settings, args []string, res *lint.Result) error {
	done, err := s.Fix(args, res)
	switch {
	case errors.Is(err, rules.ErrFixBroke):
		return failf(ExitInternal, "%v", err)
	case err != nil:
		return failf(ExitError, "%v", err)
	}
	fmt.Fprintf(w, "nginxtune: applied %d fix%s in %d file%s\n", done.Fixes, pluralES(done.Fixes), done.Files, pluralS(done.Files))
	if done.Files > 0 && !done.NginxChecked {
		fmt.Fprintln(w, "nginxtune: the fixed tree was checked by reading it again, not with nginx -t: nginx -t runs code a configuration names, and this is not the live tree (--nginx-test runs it on a tree you trust)")
	}
	return nil
}

// writeReports writes every --format.
func writeReports(stdout io.Writer, outputs []output, diags []finding.Diagnostic, s *lint.Settings, color bool) error {
	show := relPath
	if wd, err := os.Getwd(); err == nil {
		show = relPathIn(wd)
	}
	m := report.Meta{NginxVersion: s.Config.Version.String(), Path: show}
	for _, o := range outputs {
		if o.format == "json" || o.format == "sarif" {
			// the build information read and formatted: JSON and SARIF
			// name the tool's version, text and GitHub's commands do not
			m.ToolVersion = versionString()
		}
		if o.format == "sarif" && m.Rules == nil {
			// every rule's documentation, rendered: SARIF's alone (a fifth
			// of a pre-commit run's CPU when it was made for every format)
			m.Rules = reportRules()
		}
	}
	for _, o := range outputs {
		if o.path != "" {
			if err := writeReportFile(o, diags, m); err != nil {
				return err
			}
			continue
		}
		// buffered: 20,000 findings are then a few writes, not 20,000,
		// and a run that prints a line allocates a line's buffer
		out := outbuf.New(stdout)
		err := report.Write(out, o.format, diags, m, color && o.format == "text")
		if ferr := out.Flush(); err == nil {
			err = ferr
		}
		if err != nil {
			return failf(ExitError, "writing output: %v", err)
		}
	}
	return nil
}

// lintExit is the run's exit: 2 past nginxtune's bound of findings or on a
// tree not read whole, 1 on findings that fail the run (lint.Settings.Fails).
func lintExit(w io.Writer, s *lint.Settings, res *lint.Result) error {
	if n := s.NotShown(); n > 0 {
		fmt.Fprintf(w, "nginxtune: %d more findings not shown: nginxtune reports at most %d per run (exit %d whatever --fail-on says)\n", n, engine.MaxFindings, ExitError)
		return &exitError{code: ExitError}
	}
	if res.Broken {
		return &exitError{code: ExitError}
	}
	if s.Fails(res.Diags) {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// sayRead says what the run read and found, and for which nginx
// (report.Summary): a clean lint says something too.
func sayRead(w io.Writer, trees []*loader.Tree, findings int, s *lint.Settings) {
	files, directives := 0, 0
	seen := map[string]bool{}
	for _, t := range trees {
		for _, f := range t.Files {
			if !seen[f.Path] {
				seen[f.Path] = true
				files++
			}
		}
		directives += t.Statements()
	}
	fmt.Fprintln(w, untrusted.Escape(report.Summary(files, directives, findings, s.Assumed())))
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// sayOutside tells, once per lint, which files were read from outside the
// linted directory: linting a copy of a server's tree must not silently
// read this machine's /etc/nginx.
func sayOutside(w io.Writer, trees []*loader.Tree) {
	seen := map[string]bool{}
	var files []string
	dir := ""
	for _, t := range trees {
		for _, p := range t.Outside {
			if !seen[p] {
				seen[p] = true
				files = append(files, p)
				if dir == "" {
					dir = t.Dir
				}
			}
		}
	}
	if len(files) == 0 {
		return
	}
	list := files
	more := ""
	if len(list) > 3 {
		list, more = list[:3], fmt.Sprintf(" and %d more", len(files)-3)
	}
	for i := range list {
		list[i] = untrusted.Escape(list[i])
	}
	fmt.Fprintf(w, "nginxtune: read %d file%s from outside %s: %s%s (linting a copy of a server's files? --map %s=DIR reads the copy's)\n",
		len(files), pluralS(len(files)), untrusted.Escape(relPath(dir)), strings.Join(list, ", "), more, untrusted.Escape(filepath.Dir(files[0])))
}

// output is one --format: a format and the file it goes to ("" for
// standard output).
type output struct{ format, path string }

// parseOutputs reads --format values: "sarif", or "sarif=out.sarif". At most
// one goes to standard output, and no two to one file.
func parseOutputs(values []string) ([]output, error) {
	var out []output
	toStdout, files := 0, map[string]bool{}
	for _, v := range values {
		name, path, hasPath := strings.Cut(v, "=")
		if !report.IsFormat(name) {
			return nil, failf(ExitError, "--format %q: want %s, optionally =FILE", v, strings.Join(report.Formats(), ", "))
		}
		switch {
		case hasPath && path == "":
			return nil, failf(ExitError, "--format %q: no file after =", v)
		case hasPath:
			abs, err := filepath.Abs(path)
			if err != nil {
				return nil, failf(ExitError, "--format %q: %v", v, err)
			}
			if files[abs] {
				return nil, failf(ExitError, "--format %q: %s is written by another --format", v, path)
			}
			files[abs] = true
		default:
			if toStdout++; toStdout > 1 {
				return nil, failf(ExitError, "--format: only one format can go to standard output; give the others a file (--format sarif=out.sarif)")
			}
		}
		out = append(out, output{name, path})
	}
	return out, nil
}

// writeReportFile writes one report to its file: a temporary file beside
// it renamed into place, so that a failed run leaves the old report whole.
func writeReportFile(o output, diags []finding.Diagnostic, m report.Meta) error {
	err := atomicfile.Write(o.path, 0o644, func(w io.Writer) error { return report.Write(w, o.format, diags, m, false) })
	if err != nil {
		return failf(ExitError, "--format %s=%s: %v", o.format, o.path, err)
	}
	return nil
}

// reportRules describes every rule for the output formats (SARIF's rule
// metadata): report knows findings and the engine's categories, not the rules.
func reportRules() []report.Rule {
	out := make([]report.Rule, 0, len(rules.All))
	for _, r := range rules.All {
		out = append(out, report.Rule{ID: r.ID, Title: r.Title, Why: r.Why, Fix: r.Fix, Markdown: r.Markdown(),
			Severity: r.Severity, Category: r.Category})
	}
	return out
}
