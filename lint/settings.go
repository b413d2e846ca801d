// Package lint is nginxtune lint as a library: the settings of a run (the
// command line's options and .nginxtune.yaml), the run over the trees,
// --fix's lock, stage, verify and roll-back, the changed files of a
// pre-commit hook, and which tree includes a file. The command line and the
// language server are its front ends: they pass options in, and print and
// map to exit codes what comes out.
package lint

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/format"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Options are what a run is asked for, as the command line's flags give
// them: plain values, "" or nil for a flag not given.
type Options struct {
	// Prefix and Maps (FROM=TO) are the loader's --prefix and --map.
	Prefix string
	Maps   []string
	// FailOn is the lowest severity that fails the run (error, warning,
	// info or none); "" takes the settings file's, else warning.
	FailOn       string
	NginxVersion string
	// ConfigPath names the settings file; else .nginxtune.yaml is looked
	// for beside the first linted path (FindConfig) unless NoConfig.
	ConfigPath string
	NoConfig   bool
	// Disable and Enable are rule ids and category:NAME.
	Disable, Enable []string
	// Host reads this machine's facts, NoHost never (even for the live
	// tree), FactsFile reads those saved by nginxtune facts.
	Host, NoHost bool
	FactsFile    string
	// Changed: the paths are changed files; the trees that include them are
	// linted, and findings kept in them only (lintChanged).
	Changed bool
	// Roots are the main files the changed files are included from.
	Roots        []string
	AllowOutside []string
	// Fix applies the findings' fixes (Settings.Fix); Force rewrites
	// read-only files too; NginxTest runs nginx -t on the fixed tree even
	// when it is not the live one.
	Fix, Force, NginxTest bool
	// Stdin is what "-" reads; Stderr receives the notices of a run (nil:
	// none are written).
	Stdin  io.Reader
	Stderr io.Writer
}

// Settings are the options and the settings file merged: what one run
// lints with.
type Settings struct {
	Config engine.Config
	FailOn finding.Severity
	// FailOnFromFile is set when the threshold came from a settings file.
	FailOnFromFile bool
	Loader         loader.Options
	Roots          []string
	// LiveHost is set when host facts are read from this machine as the
	// rules ask for them: what could not be read is said after the run.
	LiveHost bool

	opt    Options
	stderr io.Writer
	// versionDone is closed once the installed nginx's version is known
	// (see needVersion)
	versionDone chan struct{}
	// nginx is the installed nginx, asked once for the version and the
	// host facts both
	nginx *nginxcheck.Installed
	// gcOff is set while lint keeps the garbage collector off (TuneGC),
	// and gcLimit is the memory limit the trees loaded so far set instead
	// (see load)
	gcOff   bool
	gcLimit int64
	// notShown counts the findings past engine.MaxFindings: a bound passed
	notShown int
	// versionFrom says where the nginx version came from, for the summary
	// (rules.Assumed); dumpVersion is the installed nginx's, taken for an
	// nginx -T dump of its files when no version was given
	versionFrom string
	dumpVersion knowledge.Version
	// beforeWrite, when set (by tests), runs between --fix's reading of the
	// files and its writing of them: where a swap of a file for a link
	// would have to happen.
	beforeWrite func()
}

// Resolve merges the options with the settings file for a run whose first
// linted path is first ("-" for standard input). Notices (a settings file
// passed over as another user's) go to o.Stderr.
func Resolve(o Options, first string) (*Settings, error) {
	s := &Settings{Config: engine.Config{Disabled: map[string]bool{}, Severity: map[string]finding.Severity{}}, FailOn: finding.Warning,
		nginx: &nginxcheck.Installed{}, opt: o, stderr: o.Stderr}
	if s.stderr == nil {
		s.stderr = io.Discard
	}
	file, err := SettingsFile(s.stderr, o.ConfigPath, o.NoConfig, first)
	if err != nil {
		return nil, err
	}
	if file != nil {
		if err := s.fromFile(file); err != nil {
			return nil, err
		}
	}
	if err := s.selectRules(o, file); err != nil {
		return nil, err
	}
	if err := s.fromFlags(o); err != nil {
		return nil, err
	}
	if err := s.hostFacts(o, first); err != nil {
		return nil, err
	}
	if !s.Config.Version.Known() {
		s.askVersion(first)
	}
	if err := s.loaderFlags(o, first); err != nil {
		return nil, err
	}
	return s, nil
}

// SettingsFile reads the settings file named with configPath, else the
// .nginxtune.yaml found for the first path (FindConfig), saying on w which
// one it passed over as another user's; nil when there is none.
func SettingsFile(w io.Writer, configPath string, noConfig bool, first string) (*ConfigFile, error) {
	switch {
	case configPath != "":
		return LoadConfig(configPath)
	case !noConfig && first != "-":
		p, ignored := FindConfig(first)
		if ignored != "" {
			fmt.Fprintf(w, "nginxtune: %s\n", untrusted.Escape(ignored))
		}
		if p != "" {
			return LoadFoundConfig(p)
		}
	}
	return nil, nil
}

// fromFile takes the settings file's settings; the options given override
// them after (selectRules, fromFlags, loaderFlags).
func (s *Settings) fromFile(file *ConfigFile) error {
	s.Config.Version = file.NginxVersion
	s.versionFrom = "from " + RelPath(file.Path)
	for _, id := range file.Disable {
		s.Config.Disabled[id] = true
	}
	for id, sev := range file.Severity {
		s.Config.Severity[id] = sev
	}
	if file.FailOn != "" {
		s.FailOn, _ = ParseFailOn(file.FailOn)
		s.FailOnFromFile = true
	}
	for from, to := range file.Maps {
		s.Loader.Maps = append(s.Loader.Maps, loader.PathMap{From: filepath.Clean(from), To: to})
	}
	sort.Slice(s.Loader.Maps, func(i, j int) bool { return len(s.Loader.Maps[i].From) > len(s.Loader.Maps[j].From) })
	s.Loader.Prefix = file.Prefix
	s.Loader.Extra = file.Directives
	s.Config.Extra = map[string]bool{}
	for _, d := range file.Directives {
		s.Config.Extra[d] = true
	}
	s.Roots = file.Roots
	return s.overrides(file)
}

// overrides takes the settings file's overrides: settings for the files
// their globs match.
func (s *Settings) overrides(file *ConfigFile) error {
	for _, o := range file.Overrides {
		match, err := engine.GlobMatcher(file.Dir, o.Paths)
		if err != nil {
			return fmt.Errorf("%s: overrides: %v", file.Path, err)
		}
		ro := engine.Override{Match: match, Disabled: map[string]bool{}, Severity: o.Severity}
		for _, id := range o.Disable {
			ro.Disabled[id] = true
		}
		s.Config.Overrides = append(s.Config.Overrides, ro)
	}
	return nil
}

// selectRules settles which rules run: the options' enable list, else the
// settings file's, runs only those (and the rules that report unreadable
// input); the options win over the file: a rule they enable runs even when
// the file disables it, and one they disable never runs.
func (s *Settings) selectRules(o Options, file *ConfigFile) error {
	// rule ids and category:NAME, expanded
	cliEnable, err := rules.Select(o.Enable)
	if err != nil {
		return fmt.Errorf("--enable: %v", err)
	}
	cliDisable, err := rules.Select(o.Disable)
	if err != nil {
		return fmt.Errorf("--disable: %v", err)
	}
	enable, fromFile := cliEnable, false
	if len(o.Enable) == 0 && file != nil {
		enable, fromFile = file.Enable, true
	}
	if len(enable) > 0 {
		s.enableOnly(enable, fromFile)
	}
	for _, id := range cliEnable {
		delete(s.Config.Disabled, id)
	}
	for _, id := range cliDisable {
		s.Config.Disabled[id] = true
	}
	return nil
}

// enableOnly disables every rule but those of enable and the loader's; a
// settings file's list (fromFile) keeps what nginx refuses on too.
func (s *Settings) enableOnly(enable []string, fromFile bool) {
	on := map[string]bool{}
	for _, id := range enable {
		on[id] = true
	}
	for _, r := range rules.All {
		if !on[r.ID] && !rules.LoaderRule(r.ID) && !(fromFile && rules.NginxRefuses(r.ID)) {
			s.Config.Disabled[r.ID] = true
		}
	}
}

// fromFlags takes the failure threshold and the nginx version the options
// give.
func (s *Settings) fromFlags(o Options) error {
	if o.FailOn != "" {
		sev, err := ParseFailOn(o.FailOn)
		if err != nil {
			return fmt.Errorf("--fail-on: %v", err)
		}
		s.FailOn = sev
		s.FailOnFromFile = false
	}
	if o.NginxVersion != "" {
		v, err := knowledge.ParseVersion(o.NginxVersion)
		if err != nil {
			return fmt.Errorf("--nginx-version: %v", err)
		}
		s.Config.Version = v
		s.versionFrom = "given with --nginx-version"
	}
	return nil
}

// hostFacts settles where the host-aware rules read the machine from: a
// facts file, this machine (asked for, or the live tree), or nowhere.
func (s *Settings) hostFacts(o Options, first string) error {
	switch {
	case o.FactsFile != "":
		hf, err := host.LoadFile(o.FactsFile)
		if err != nil {
			return fmt.Errorf("--facts: %v", err)
		}
		s.Config.Host = host.Given(hf)
	case o.Host || (IsLive(first) && !o.NoHost):
		// read group by group as rules ask (host.Source): a hook run on a
		// site file reads a sysctl or two, not every fact
		s.Config.Host = host.Lazily(&host.Reader{Root: "/", Nginx: s.nginx.V})
		s.LiveHost = true
	}
	return nil
}

// askVersion settles the nginx version when no option or settings file
// gave one: the host facts', else the installed nginx's for the live tree.
// Only running nginx -V (its answer not in the cache) is worth doing while
// the tree is read: otherwise the answer is a file read, and a goroutine
// would cost a hook's short run more (a second thread's memory: ~40 page
// faults) than it saves.
func (s *Settings) askVersion(first string) {
	if (s.LiveHost || IsLive(first)) && !s.nginx.Answered() {
		s.versionDone = make(chan struct{})
		go func() {
			defer close(s.versionDone)
			s.settleVersion(first)
		}()
		return
	}
	s.settleVersion(first)
}

// settleVersion is askVersion's answer: the version the host facts name,
// else the installed nginx's when first is in the live tree.
func (s *Settings) settleVersion(first string) {
	if hostFacts := s.Config.Host; hostFacts != nil && hostFacts.NginxVersion().Known() {
		if v, err := knowledge.ParseVersion(hostFacts.NginxVersion().Value); err == nil {
			s.Config.Version = v
			s.versionFrom = "the installed nginx"
			if s.opt.FactsFile != "" {
				s.versionFrom = "from the facts in " + RelPath(s.opt.FactsFile)
			}
			return
		}
	}
	s.Config.Version = liveVersion(first, s.nginx)
	s.versionFrom = "the installed nginx"
}

// loaderFlags takes the loader's options: --prefix and --map over the
// settings file's, standard input, the live tree and the directories
// allowed outside.
func (s *Settings) loaderFlags(o Options, first string) error {
	if o.Prefix != "" {
		s.Loader.Prefix = o.Prefix
	}
	for _, m := range o.Maps {
		pm, err := loader.ParsePathMap(m)
		if err != nil {
			return fmt.Errorf("--map: %v", err)
		}
		s.Loader.Maps = append([]loader.PathMap{pm}, s.Loader.Maps...)
	}
	s.Loader.Stdin = o.Stdin
	s.Loader.Live = IsLive(first)
	s.Loader.AllowOutside = o.AllowOutside
	if len(o.Roots) > 0 {
		s.Roots = o.Roots
	}
	return nil
}

// needVersion settles the nginx version the rules lint for: the one the
// installed nginx reports when no option, settings file or facts file named
// one. Asking nginx (from the cache of nginx -V, or nginx itself) runs while
// the tree is read; the rules wait for it here.
func (s *Settings) needVersion() {
	if s.versionDone != nil {
		<-s.versionDone
	}
}

// Assumed says for which nginx the run linted and where that version came
// from, for the summary line (rules.Assumed).
func (s *Settings) Assumed() string {
	v, from := s.Config.Version, s.versionFrom
	if !v.Known() && s.dumpVersion.Known() {
		v, from = s.dumpVersion, "the installed nginx"
	}
	return rules.Assumed(v, from)
}

// NotShown counts the findings the runs left out past engine.MaxFindings.
func (s *Settings) NotShown() int { return s.notShown }

// Fails reports whether the findings fail the run: one at or above the
// threshold, or, whatever a settings file's threshold says, one that nginx
// refuses to load (the command line's threshold can pass those).
func (s *Settings) Fails(diags []finding.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity >= s.FailOn || s.FailOnFromFile && d.Severity == finding.Error && rules.NginxRefuses(d.Rule) {
			return true
		}
	}
	return false
}

// ForFile are the rules' configuration and the loader's options a file is
// linted with, read as lint reads them for it with base's options (the
// language server's settings: its --nginx-version and --facts); notices go
// to base.Stderr.
func ForFile(path string, base Options) (engine.Config, loader.Options, error) {
	s, err := Resolve(base, path)
	if err != nil {
		return engine.Config{Disabled: map[string]bool{}, Severity: map[string]finding.Severity{}}, loader.Options{}, err
	}
	s.needVersion()
	return s.Config, s.Loader, nil
}

// FmtOptions is the layout the file's fmt key sets (zero values where it
// sets none).
func (f *ConfigFile) FmtOptions() format.Options {
	return format.Options{Indent: f.FmtIndent, Tabs: f.FmtTabs, Align: f.FmtAlign}
}

// FmtForFile reads fmt's layout from the .nginxtune.yaml above a file, nil
// when it sets none.
func FmtForFile(path string) *format.Options {
	// (a file passed over is said by lint's settings, which the language
	// server reads for every file as well)
	p, _ := FindConfig(path)
	if p == "" {
		return nil
	}
	f, err := LoadFoundConfig(p)
	if err != nil || f.FmtIndent == 0 && !f.FmtTabs && !f.FmtAlign {
		return nil
	}
	opt := f.FmtOptions()
	return &opt
}
