package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/atomicfile"
	"github.com/nginxtune/nginxtune/internal/outbuf"

	"github.com/nginxtune/nginxtune/knowledge"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/config"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/parser"
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

// liveDirs are where nginx packages keep the configuration a running nginx
// reads; linting one of them asks the installed nginx for its version.
var liveDirs = []string{"/etc/nginx", "/usr/local/nginx/conf", "/usr/local/etc/nginx", "/opt/homebrew/etc/nginx"}

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
	listVar(fl, &f.formats, "format", "f", []string{"text"}, false, "output format: "+strings.Join(report.Formats, ", ")+"; FORMAT=FILE writes it to FILE instead of standard output; repeatable, one run writes them all")
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

// lintSettings are the flags and the config file merged.
type lintSettings struct {
	cfg    engine.Config
	failOn finding.Severity
	opt    parser.Options
	roots  []string
	stderr io.Writer
	// failOnFromFile is set when the threshold came from a settings file
	failOnFromFile bool
	// liveHost is set when host facts are read from this machine as the
	// rules ask for them: what could not be read is said after the run
	liveHost bool
	// versionDone is closed once the installed nginx's version is known
	// (see needVersion)
	versionDone chan struct{}
	// nginx is the installed nginx, asked once for the version and the
	// host facts both
	nginx *nginxcheck.Installed
	// gcOff is set while the garbage collector is off, until the first
	// tree is loaded (see load)
	gcOff bool
	// notShown counts the findings past engine.MaxFindings: a bound passed
	notShown int
	// versionFrom says where the nginx version came from, for the summary
	// (rules.Assumed); dumpVersion is the installed nginx's, taken for an
	// nginx -T dump of its files when no version was given
	versionFrom string
	dumpVersion rules.Version
}

// needVersion settles the nginx version the rules lint for: the one the
// installed nginx reports when no flag, configuration or facts file named
// one. Asking nginx (from the cache of nginx -V, or nginx itself) runs while
// the tree is read; the rules wait for it here.
func (s *lintSettings) needVersion() {
	if s.versionDone != nil {
		<-s.versionDone
	}
}

// load is parser.Load for lint: once the first tree is read, the garbage
// collector, off while it was (see lintGC), is turned on.
func (s *lintSettings) load(p string, opt parser.Options) (*parser.Tree, error) {
	t, err := parser.Load(p, opt)
	if s.gcOff {
		debug.SetGCPercent(lintGCPercent)
		s.gcOff = false
	}
	return t, err
}

// settingsFile reads the settings file named with --config, else the
// .nginxtune.yaml found for the first path (config.Find), saying on w which
// one it passed over as another user's; nil when there is none.
func settingsFile(w io.Writer, configPath string, noConfig bool, first string) (*config.File, error) {
	var file *config.File
	var err error
	switch {
	case configPath != "":
		file, err = config.Load(configPath)
	case !noConfig && first != "-":
		p, ignored := config.Find(first)
		if ignored != "" {
			fmt.Fprintf(w, "nginxtune: %s\n", report.Escape(ignored))
		}
		if p != "" {
			file, err = config.LoadFound(p)
		}
	}
	if err != nil {
		return nil, failf(ExitError, "%v", err)
	}
	return file, nil
}

func settings(c *cobra.Command, f *lintFlags, first string) (*lintSettings, error) {
	s := &lintSettings{cfg: engine.Config{Disabled: map[string]bool{}, Severity: map[string]finding.Severity{}}, failOn: finding.Warning,
		nginx: &nginxcheck.Installed{}}
	file, err := settingsFile(c.ErrOrStderr(), f.configPath, f.noConfig, first)
	if err != nil {
		return nil, err
	}
	enable := f.enable
	if file != nil {
		s.cfg.Version = file.NginxVersion
		s.versionFrom = "from " + relPath(file.Path)
		for _, id := range file.Disable {
			s.cfg.Disabled[id] = true
		}
		for id, sev := range file.Severity {
			s.cfg.Severity[id] = sev
		}
		if len(enable) == 0 {
			enable = file.Enable
		}
		if file.FailOn != "" {
			s.failOn, _ = config.ParseFailOn(file.FailOn)
			s.failOnFromFile = true
		}
		for from, to := range file.Maps {
			s.opt.Maps = append(s.opt.Maps, parser.PathMap{From: filepath.Clean(from), To: to})
		}
		sort.Slice(s.opt.Maps, func(i, j int) bool { return len(s.opt.Maps[i].From) > len(s.opt.Maps[j].From) })
		s.opt.Prefix = file.Prefix
		s.opt.Extra = file.Directives
		s.cfg.Extra = map[string]bool{}
		for _, d := range file.Directives {
			s.cfg.Extra[d] = true
		}
		s.roots = file.Roots
		for _, o := range file.Overrides {
			match, err := engine.GlobMatcher(file.Dir, o.Paths)
			if err != nil {
				return nil, failf(ExitError, "%s: overrides: %v", file.Path, err)
			}
			ro := engine.Override{Match: match, Disabled: map[string]bool{}, Severity: o.Severity}
			for _, id := range o.Disable {
				ro.Disabled[id] = true
			}
			s.cfg.Overrides = append(s.cfg.Overrides, ro)
		}
	}
	// rule ids and category:NAME, expanded
	cliEnable, err := rules.Select(f.enable)
	if err != nil {
		return nil, failf(ExitError, "--enable: %v", err)
	}
	cliDisable, err := rules.Select(f.disable)
	if err != nil {
		return nil, failf(ExitError, "--disable: %v", err)
	}
	if len(f.enable) > 0 {
		enable = cliEnable
	}
	if len(enable) > 0 {
		on := map[string]bool{}
		for _, id := range enable {
			on[id] = true
		}
		// a settings file's enable list keeps what nginx refuses on too
		fromFile := len(f.enable) == 0
		for _, r := range rules.All {
			if !on[r.ID] && !rules.LoaderRule(r.ID) && !(fromFile && rules.NginxRefuses(r.ID)) {
				s.cfg.Disabled[r.ID] = true
			}
		}
	}
	// the command line wins over the file: a rule it enables runs even
	// when the file disables it, and one it disables never runs
	for _, id := range cliEnable {
		delete(s.cfg.Disabled, id)
	}
	for _, id := range cliDisable {
		s.cfg.Disabled[id] = true
	}
	if f.failOn != "" {
		sev, err := config.ParseFailOn(f.failOn)
		if err != nil {
			return nil, failf(ExitError, "--fail-on: %v", err)
		}
		s.failOn = sev
		s.failOnFromFile = false
	}
	if f.nginxVersion != "" {
		v, err := knowledge.ParseVersion(f.nginxVersion)
		if err != nil {
			return nil, failf(ExitError, "--nginx-version: %v", err)
		}
		s.cfg.Version = v
		s.versionFrom = "given with --nginx-version"
	}
	switch {
	case f.factsFile != "":
		hf, err := host.LoadFile(f.factsFile)
		if err != nil {
			return nil, failf(ExitError, "--facts: %v", err)
		}
		s.cfg.Host = host.Given(hf)
	case f.host || (isLive(first) && !f.noHost):
		// read group by group as rules ask (host.Source): a hook run on a
		// site file reads a sysctl or two, not every fact
		s.cfg.Host = host.Lazily(&host.Reader{Root: "/", Nginx: s.nginx.V})
		s.liveHost = true
	}
	if !s.cfg.Version.Known() {
		hostFacts := s.cfg.Host
		settle := func() {
			if hostFacts != nil && hostFacts.NginxVersion().Known() {
				if v, err := knowledge.ParseVersion(hostFacts.NginxVersion().Value); err == nil {
					s.cfg.Version = v
					s.versionFrom = "the installed nginx"
					if f.factsFile != "" {
						s.versionFrom = "from the facts in " + relPath(f.factsFile)
					}
					return
				}
			}
			s.cfg.Version = liveVersion(first, s.nginx)
			s.versionFrom = "the installed nginx"
		}
		// Only running nginx -V (its answer not in the cache) is worth
		// doing while the tree is read: otherwise the answer is a file
		// read, and a goroutine would cost a hook's short run more (a
		// second thread's memory: ~40 page faults) than it saves.
		if (s.liveHost || isLive(first)) && !s.nginx.Answered() {
			s.versionDone = make(chan struct{})
			go func() {
				defer close(s.versionDone)
				settle()
			}()
		} else {
			settle()
		}
	}
	if f.load.prefix != "" {
		s.opt.Prefix = f.load.prefix
	}
	for _, m := range f.load.maps {
		pm, err := parser.ParsePathMap(m)
		if err != nil {
			return nil, failf(ExitError, "--map: %v", err)
		}
		s.opt.Maps = append([]parser.PathMap{pm}, s.opt.Maps...)
	}
	s.opt.Stdin = c.InOrStdin()
	s.opt.Live = isLive(first)
	s.opt.AllowOutside = f.allowOutside
	s.stderr = c.ErrOrStderr()
	return s, nil
}

// isLive reports whether path is in the configuration directory of a live
// installation.
func isLive(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, d := range liveDirs {
		if abs == d || strings.HasPrefix(abs, d+"/") {
			return true
		}
	}
	return false
}

// allLive reports whether every linted path is in a live installation's
// configuration directory: the tree this machine's nginx already runs.
func allLive(paths []string) bool {
	for _, p := range paths {
		if p == "-" || !isLive(p) {
			return false
		}
	}
	return len(paths) > 0
}

// liveVersion asks the installed nginx for its version when path is the
// configuration directory of a live installation.
func liveVersion(path string, nginx *nginxcheck.Installed) rules.Version {
	if !isLive(path) {
		return rules.Version{}
	}
	v, err := knowledge.ParseVersion(nginx.Version())
	if err != nil {
		return rules.Version{}
	}
	return v
}

// lintOnce loads every path and runs the rules. broken is set when a file
// could not be parsed to its end.
func lintOnce(paths []string, s *lintSettings) (diags []finding.Diagnostic, broken bool, trees []*parser.Tree, err error) {
	for _, p := range paths {
		t, err := s.load(p, s.opt)
		if err != nil {
			return nil, false, nil, failf(ExitError, "%v", err)
		}
		for _, f := range t.Files {
			broken = broken || f.Broken
		}
		broken = broken || len(t.Unreadable) > 0
		s.needVersion()
		cfg := s.cfg
		if !cfg.Version.Known() && t.Dump && len(t.Roots) > 0 {
			// "nginx -T | nginxtune lint -" on the server: the dump names
			// the installed nginx's files
			if v := liveVersion(t.Roots[0].Path, s.nginx); v.Known() {
				cfg.Version = v
				s.dumpVersion = v
				fmt.Fprintf(s.stderr, "nginxtune: linting for nginx %s, the installed nginx (the dump reads %s); give --nginx-version if it comes from another machine\n", v, report.Escape(t.Roots[0].Path))
			}
		}
		trees = append(trees, t)
		found, notShown := rules.RunCounted(t, cfg)
		s.notShown += notShown
		diags = append(diags, found...)
	}
	return diags, broken, trees, nil
}

// lintGCPercent is the garbage collector's GOGC for lint once the tree is
// loaded: the heap may grow to three times what is live between
// collections, not two. A lint's heap only grows (the tree, then the
// findings) and the process ends after one pass, so each collection
// mostly marks what stays: on the 20,000-server trees of make bench-lint
// this makes six collections four and the run 7 % shorter, for 13 % more
// peak memory (still a fifth of what nginx -t takes for the same tree, so
// a tree too large for this is far too large for nginx).
//
// While the first tree is read the collector is off: nearly everything
// loading allocates is the tree itself, which stays, so the two or three
// collections it made found next to nothing to free, and took a core
// from the parsers for 50-100 ms on those trees. The tree's size is
// bounded (parser.MaxTreeBytes, the visit bounds), and so is what loading
// leaves behind. GOGC in the environment is left to decide.
const lintGCPercent = 200

// lintGC sets the collector up for lint (see lintGCPercent) and returns
// what puts it back as it was (tests run lint in-process).
func lintGC(s *lintSettings) (restore func()) {
	// the setting is the process's: one lint at a time sets it (a second
	// one running alongside, as tests may, runs with what is set)
	if os.Getenv("GOGC") != "" || !gcTuned.CompareAndSwap(false, true) {
		return func() {}
	}
	prev := debug.SetGCPercent(-1)
	s.gcOff = true
	return func() {
		debug.SetGCPercent(prev)
		gcTuned.Store(false)
	}
}

var gcTuned atomic.Bool

func runLint(c *cobra.Command, args []string, f *lintFlags) error {
	if len(args) == 0 && f.changed {
		return nil // no changed files: nothing to lint
	}
	if len(args) == 0 {
		args = []string{"/etc/nginx"}
	}
	s, err := settings(c, f, args[0])
	if err != nil {
		return err
	}
	defer lintGC(s)()
	outputs, err := parseOutputs(f.formats)
	if err != nil {
		return err
	}
	stdoutFormat := ""
	for _, o := range outputs {
		if o.path == "" {
			stdoutFormat = o.format
		}
	}
	color := false
	switch f.color {
	case "always":
		color = true
	case "never":
	case "auto":
		color = stdoutFormat == "text" && isTerminal(c.OutOrStdout()) && os.Getenv("NO_COLOR") == ""
	default:
		return failf(ExitError, "--color %q: want auto, always or never", f.color)
	}
	if len(f.roots) > 0 {
		s.roots = f.roots
	}
	if f.fix {
		// one --fix at a time per configuration directory: a second run
		// waits, then reads what the first wrote
		locked := map[string]bool{}
		for _, a := range args {
			dir := a
			if fi, err := os.Stat(a); err != nil || !fi.IsDir() {
				dir = filepath.Dir(a)
			}
			if abs, err := filepath.Abs(dir); err == nil {
				dir = abs
			}
			if locked[dir] {
				continue
			}
			locked[dir] = true
			unlock, err := lockDir(dir)
			if err != nil {
				return failf(ExitError, "--fix: %v", err)
			}
			defer unlock()
		}
	}
	lint := func() ([]finding.Diagnostic, bool, []*parser.Tree, error) {
		if f.changed {
			return lintChanged(args, s)
		}
		// a fragment (a site, a snippet) that an nginx.conf above it
		// includes is linted inside that tree: the levels above decide
		// inheritance, upstreams and status pages
		if len(args) == 1 && !f.fix && len(s.roots) == 0 {
			if root := includedBy(args[0], s); root != "" {
				fmt.Fprintf(c.ErrOrStderr(), "nginxtune: %s is included by %s: linted inside that tree, findings in %s only\n", report.Escape(relPath(args[0])), report.Escape(relPath(root)), report.Escape(relPath(args[0])))
				return lintChanged(args, s)
			}
		}
		return lintOnce(args, s)
	}
	diags, broken, trees, err := lint()
	s.needVersion() // for the report, even when no tree was linted
	if err != nil {
		return err
	}
	if s.liveHost {
		sayProblems(c.ErrOrStderr(), s.cfg.Host.Problems())
	}
	sayOutside(c.ErrOrStderr(), trees)
	for _, t := range trees {
		for _, p := range t.Unreadable {
			fmt.Fprintf(c.ErrOrStderr(), "nginxtune: %s could not be read: the tree was not linted whole (exit %d whatever --fail-on says)\n", report.Escape(relPath(p)), ExitError)
		}
	}
	if f.fix {
		for _, t := range trees {
			if t.Dump || (len(t.Roots) > 0 && t.Roots[0].Path == "<stdin>") {
				return failf(ExitError, "--fix needs files on disk, not standard input or nginx -T output")
			}
		}
		// Fixes can make room for others (a new upstream, then its proxy
		// headers), so apply them in passes until none is left.
		total, changed := 0, map[string]atomicfile.Key{}
		// what every changed file held before, to roll back a fix that
		// leaves the configuration unreadable
		originals := map[string][]byte{}
		for _, t := range trees {
			for _, f := range t.Files {
				originals[f.Path] = f.Src
			}
		}
		// nginx -t of the tree as it is, for the check after the fixes; not
		// needed when no finding carries a fix. nginx -t runs what a
		// configuration names (load_module, perl_require, js_import,
		// init_by_lua) and creates its log and temp paths: only on a tree
		// the user trusts, the live one or one named with --nginx-test
		// (docs/security.md)
		trusted := f.nginxTest || allLive(args)
		var beforeOK nginxcheck.Result
		for _, d := range diags {
			if d.Fix != nil && trusted {
				beforeOK, _ = nginxTest(trees, s.cfg.Version)
				break
			}
		}
		session := rules.FixSession{
			Lint: lint,
			Apply: func(set engine.FixSet, trees []*parser.Tree) ([]string, error) {
				keys, err := applyFixes(set, trees, c.ErrOrStderr(), f.force)
				var written []string
				for name, k := range keys {
					changed[name] = k
					written = append(written, name)
				}
				sort.Strings(written)
				return written, err
			},
			Outside: func(file string) {
				fmt.Fprintf(c.ErrOrStderr(), "nginxtune: not fixed: %s is outside the linted tree\n", report.Escape(file))
			},
		}
		res, err := session.Run(diags, trees, broken)
		diags, broken, trees, total = res.Diags, res.Broken, res.Trees, res.Fixes
		switch {
		case errors.Is(err, rules.ErrFixBroke):
			return failf(ExitInternal, "the fixes left the configuration unreadable; restored %s (please report it)", restore(changed, originals))
		case err != nil && len(changed) > 0:
			return failf(ExitError, "%v; restored %s", err, restore(changed, originals))
		case err != nil:
			return failf(ExitError, "%v", err)
		}
		// what nginx itself says: a tree nginx -t accepted before must still
		// pass after the fixes, or they are taken back
		if len(changed) > 0 && beforeOK.OK {
			if after, checked := nginxTest(trees, s.cfg.Version); checked && !after.OK {
				return failf(ExitError, "nginx -t rejects the fixed configuration (%s); restored %s",
					report.Escape(parser.CutAt(after.Message, 200)), restore(changed, originals))
			}
		}
		fmt.Fprintf(c.ErrOrStderr(), "nginxtune: applied %d fix%s in %d file%s\n", total, pluralES(total), len(changed), pluralS(len(changed)))
		if len(changed) > 0 && !trusted {
			fmt.Fprintln(c.ErrOrStderr(), "nginxtune: the fixed tree was checked by reading it again, not with nginx -t: nginx -t runs code a configuration names, and this is not the live tree (--nginx-test runs it on a tree you trust)")
		}
	}
	show := relPath
	if wd, err := os.Getwd(); err == nil {
		show = relPathIn(wd)
	}
	m := report.Meta{ToolVersion: versionString(), NginxVersion: s.cfg.Version.String(), Path: show}
	for _, o := range outputs {
		if o.format == "sarif" {
			// every rule's documentation, rendered: SARIF's alone (a fifth
			// of a pre-commit run's CPU when it was made for every format)
			m.Rules = reportRules()
			break
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
		out := outbuf.New(c.OutOrStdout())
		err = report.Write(out, o.format, diags, m, color && o.format == "text")
		if ferr := out.Flush(); err == nil {
			err = ferr
		}
		if err != nil {
			return failf(ExitError, "writing output: %v", err)
		}
	}
	sayRead(c.ErrOrStderr(), trees, len(diags), s)
	if s.notShown > 0 {
		fmt.Fprintf(c.ErrOrStderr(), "nginxtune: %d more findings not shown: nginxtune reports at most %d per run (exit %d whatever --fail-on says)\n", s.notShown, engine.MaxFindings, ExitError)
		return &exitError{code: ExitError}
	}
	if broken {
		return &exitError{code: ExitError}
	}
	for _, d := range diags {
		// a settings file's fail-on cannot pass a configuration nginx
		// refuses to load; --fail-on on the command line can
		if d.Severity >= s.failOn || s.failOnFromFile && d.Severity == finding.Error && rules.NginxRefuses(d.Rule) {
			return &exitError{code: ExitFindings}
		}
	}
	return nil
}

// sayRead says what the run read and found, and for which nginx
// (report.Summary): a clean lint says something too.
func sayRead(w io.Writer, trees []*parser.Tree, findings int, s *lintSettings) {
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
	v, from := s.cfg.Version, s.versionFrom
	if !v.Known() && s.dumpVersion.Known() {
		v, from = s.dumpVersion, "the installed nginx"
	}
	fmt.Fprintln(w, report.Escape(report.Summary(files, directives, findings, rules.Assumed(v, from))))
}

func validFormat(f string) bool {
	for _, x := range report.Formats {
		if x == f {
			return true
		}
	}
	return false
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

// applyFixes applies the edits of every fix, skipping a fix whose edits
// overlap one already taken (or that creates what another already does) or
// that would write outside the linted trees, and writes each changed file
// atomically. Edits are applied to the text they were computed from: a file
// that changed since it was read is an error. Linear in the edits of a file
// (after sorting), so a fix of a 20,000-server file is not quadratic.
// written names the files now in place, with the identity of each (what
// restore checks before writing the original back), also on an error.
func applyFixes(set engine.FixSet, trees []*parser.Tree, w io.Writer, force bool) (written map[string]atomicfile.Key, err error) {
	source := map[string]*parser.File{}
	for _, t := range trees {
		for _, f := range t.Files {
			source[f.Path] = f
		}
	}
	names := make([]string, 0, len(set.Edits))
	for name := range set.Edits {
		names = append(names, name)
	}
	sort.Strings(names)
	keyOf := func(name string) atomicfile.Key { return atomicfile.Key{Dev: source[name].Dev, Ino: source[name].Ino} }
	outs := map[string][]byte{}
	for _, name := range names {
		// read again through the file that was read: a link put in its
		// place since is not followed (fixwrite.go)
		src, err := atomicfile.ReadVerified(name, keyOf(name))
		if err != nil {
			return nil, fmt.Errorf("%s; nothing written", report.Escape(err.Error()))
		}
		if !bytes.Equal(src, source[name].Src) {
			return nil, fmt.Errorf("%s changed while nginxtune was reading it; nothing written, run again", report.Escape(name))
		}
		out, err := engine.ApplyEdits(src, set.Edits[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %v; nothing written", report.Escape(name), err)
		}
		if !bytes.Equal(out, src) {
			outs[name] = out
		}
	}
	if beforeFixWrite != nil {
		beforeFixWrite()
	}
	// All or nothing: every new file is written and synced beside its
	// original first; only then are they renamed into place. A failure while
	// staging (a full disk) leaves every original as it was.
	var staged []atomicfile.Staged
	cleanup := func() {
		for _, st := range staged {
			st.Discard()
		}
	}
	for _, name := range names {
		data, ok := outs[name]
		if !ok {
			continue
		}
		if atomicfile.ReadOnly(name) && !force {
			fmt.Fprintf(w, "nginxtune: not fixed: %s is read-only (--force rewrites it, keeping its mode)\n", report.Escape(name))
			continue
		}
		st, err := atomicfile.Stage(name, keyOf(name), data)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s; nothing written (not written: %s)", report.Escape(err.Error()), report.Escape(strings.Join(slices.Sorted(maps.Keys(outs)), ", ")))
		}
		staged = append(staged, st)
	}
	written = map[string]atomicfile.Key{}
	var done []string
	for i, st := range staged {
		key, err := st.Commit()
		if err != nil {
			var rest []string
			for _, r := range staged[i:] {
				rest = append(rest, r.Name)
				if r.Name != st.Name {
					r.Discard()
				}
			}
			return written, fmt.Errorf("%s (not written: %s; files already fixed: %s)", report.Escape(err.Error()), report.Escape(strings.Join(rest, ", ")), report.Escape(strings.Join(done, ", ")))
		}
		done = append(done, st.Name)
		written[st.Name] = key
	}
	return written, nil
}

// beforeFixWrite, when set (by tests), runs between --fix's reading of the
// files and its writing of them: where a swap of a file for a link would
// have to happen.
var beforeFixWrite func()

// sayOutside tells, once per lint, which files were read from outside the
// linted directory: linting a copy of a server's tree must not silently
// read this machine's /etc/nginx.
func sayOutside(w io.Writer, trees []*parser.Tree) {
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
		list[i] = report.Escape(list[i])
	}
	fmt.Fprintf(w, "nginxtune: read %d file%s from outside %s: %s%s (linting a copy of a server's files? --map %s=DIR reads the copy's)\n",
		len(files), pluralS(len(files)), report.Escape(relPath(dir)), strings.Join(list, ", "), more, report.Escape(filepath.Dir(files[0])))
}

// lockDir takes an exclusive advisory lock on a directory until unlock is
// called.
func lockDir(dir string) (unlock func(), err error) {
	fd, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(fd.Fd()), syscall.LOCK_EX); err != nil {
		fd.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(fd.Fd()), syscall.LOCK_UN)
		fd.Close()
	}, nil
}

// restore writes back what the changed files held, and names them: each
// only while it is still the file --fix wrote.
func restore(changed map[string]atomicfile.Key, originals map[string][]byte) string {
	var restored, failed []string
	for name, key := range changed {
		old, ok := originals[name]
		if !ok {
			continue
		}
		st, err := atomicfile.Stage(name, key, old)
		if err == nil {
			_, err = st.Commit()
		}
		if err != nil {
			// said, never dropped: the user must know which file still
			// holds the fix
			failed = append(failed, fmt.Sprintf("%s (%v)", relPath(name), err))
			continue
		}
		restored = append(restored, relPath(name))
	}
	sort.Strings(restored)
	sort.Strings(failed)
	out := strings.Join(restored, ", ")
	if len(failed) > 0 {
		if out != "" {
			out += "; "
		}
		out += "COULD NOT RESTORE " + strings.Join(failed, ", ")
	}
	return out
}

// nginxTest runs nginx -t on a copy of the tree in a temporary prefix.
// checked is false when it could not: no nginx, another version than the
// one linted for, or a copy that could not be written (then nothing is
// said against the fixes).
func nginxTest(trees []*parser.Tree, target rules.Version) (res nginxcheck.Result, checked bool) {
	bin := nginxcheck.Binary()
	if bin == "" || len(trees) != 1 || trees[0].Dump || len(trees[0].Roots) != 1 || trees[0].Dir == "" {
		return res, false
	}
	if target.Known() {
		iv, err := knowledge.ParseVersion(nginxcheck.Version(bin))
		if err != nil || iv.Major != target.Major || iv.Minor != target.Minor {
			return res, false
		}
	}
	t := trees[0]
	dir, err := os.MkdirTemp("", "nginxtune-fix-")
	if err != nil {
		return res, false
	}
	defer os.RemoveAll(dir)
	for _, f := range t.Files {
		rel, err := filepath.Rel(t.Dir, f.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return res, false
		}
		if err := os.WriteFile(p, f.Src, 0o644); err != nil {
			return res, false
		}
	}
	nginxcheck.StockFiles(dir)
	if err := nginxcheck.WriteSelfSigned(dir); err != nil {
		return res, false
	}
	rel, err := filepath.Rel(t.Dir, t.Roots[0].Path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return res, false
	}
	return nginxcheck.Run(bin, dir, filepath.Join(dir, rel)), true
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
		if !validFormat(name) {
			return nil, failf(ExitError, "--format %q: want %s, optionally =FILE", v, strings.Join(report.Formats, ", "))
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
// metadata): report knows findings, not rules.
func reportRules() []report.Rule {
	out := make([]report.Rule, 0, len(rules.All))
	for _, r := range rules.All {
		out = append(out, report.Rule{ID: r.ID, Title: r.Title, Why: r.Why, Fix: r.Fix, Markdown: r.Markdown(),
			Severity: r.Severity, Category: string(r.Category)})
	}
	return out
}
