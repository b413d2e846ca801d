package lint

// This file reads .nginxtune.yaml, the per-project settings of nginxtune
// lint. Unknown keys, rule ids and values are errors that name the file and
// line, so a typo never silently turns a setting off.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/internal/yamlstrict"

	"github.com/nginxtune/nginxtune/knowledge"

	"go.yaml.in/yaml/v3"

	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/rules"
)

// ConfigName is the file name looked for.
const ConfigName = ".nginxtune.yaml"

// ConfigFile is the content of a .nginxtune.yaml.
type ConfigFile struct {
	Path         string
	NginxVersion knowledge.Version
	FailOn       string   // error, warning, info or none
	Disable      []string // rules not run
	Enable       []string // when set, only these rules run (syntax and include rules always do)
	Severity     map[string]finding.Severity
	Maps         map[string]string // absolute server path -> local path (relative to the file)
	Prefix       string
	Directives   []string // extra directive names
	Roots        []string // main files that include the changed files (lint --changed)
	Overrides    []ConfigOverride
	// FmtIndent and FmtTabs are fmt's layout: spaces per level (0: the
	// default, 4) and whether to indent with tabs.
	FmtIndent int
	FmtTabs   bool
	FmtAlign  bool // line up first arguments in columns
	// Dir is the file's directory, links resolved: what its relative
	// paths, overrides and bounds are taken from.
	Dir string
	// Found is set for a file found beside the configuration rather than
	// named with --config: it comes with the configuration (see LoadFoundConfig).
	Found bool
}

var keys = map[string]string{
	"nginx-version": "the nginx version to lint for, e.g. 1.22.1",
	"fail-on":       "error, warning, info or none",
	"disable":       "a list of rule ids and category:NAME",
	"enable":        "a list of rule ids and category:NAME",
	"severity":      "a map of rule id to error, warning or info",
	"map":           "a map of absolute server directory to local directory",
	"prefix":        "the directory relative includes are resolved against",
	"directives":    "a list of extra directive names (third-party modules)",
	"roots":         "a list of main files (nginx.conf) that lint --changed loads the changed files through",
	"fmt":           "a mapping {indent: SPACES (1-8), tabs: true|false, align: true|false} for nginxtune fmt",
	"overrides":     "a list of {paths: [GLOB...], disable: [RULE...], severity: {RULE: LEVEL}} for the files the globs match (relative to this file; ** for any depth)",
}

// ConfigOverride is one entry of overrides: settings for some files only.
type ConfigOverride struct {
	Paths    []string
	Disable  []string
	Severity map[string]finding.Severity
}

// FindConfig looks for the .nginxtune.yaml that applies to start (a file or a
// directory): in start's directory and its parents, up to the top of the
// repository (the directory holding .git) or, outside one, the linted tree
// (the directory of the nearest nginx.conf at or above start, else start's
// own directory); never above. The file found is used only if nobody but
// this process's user and root could have written it, as git's
// safe.directory trusts a repository: it must be owned by the user or
// root, and so must its directory, which no other user may write (a
// sticky directory, such as /tmp, is enough: others cannot replace the
// file there). Otherwise path is "" and ignored says which file was
// passed over and why, for a notice.
func FindConfig(start string) (path, ignored string) {
	abs, err := filepath.Abs(start)
	if err != nil {
		return "", ""
	}
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		abs = filepath.Dir(abs)
	}
	top := searchTop(abs)
	for dir := abs; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, ConfigName)
		if st, err := os.Lstat(p); err == nil && !st.IsDir() {
			if why := writableByOthers(p, st); why != "" {
				return "", fmt.Sprintf("%s not read: %s (name it with --config to use it)", p, why)
			}
			return p, ""
		}
		if dir == top || filepath.Dir(dir) == dir {
			return "", ""
		}
	}
}

// searchTop is the highest directory FindConfig looks in for dir: the top of
// its repository, else the directory of the nearest nginx.conf at or above
// it, else dir.
func searchTop(dir string) string {
	main := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if st, err := os.Stat(filepath.Join(d, "nginx.conf")); main == "" && err == nil && !st.IsDir() {
			main = d
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if main != "" {
		return main
	}
	return dir
}

// writableByOthers says why a settings file (st, from lstat) could have
// been written or replaced by a user other than this process's and root,
// "" when it could not.
func writableByOthers(p string, st os.FileInfo) string {
	me := os.Geteuid()
	other := func(uid uint32) bool { return int(uid) != me && uid != 0 }
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && other(sys.Uid) {
		return fmt.Sprintf("owned by uid %d, neither you (uid %d) nor root", sys.Uid, me)
	}
	dst, err := os.Stat(filepath.Dir(p))
	if err != nil {
		return err.Error()
	}
	sys, ok := dst.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	switch sticky := dst.Mode()&os.ModeSticky != 0; {
	case other(sys.Uid):
		return fmt.Sprintf("its directory is owned by uid %d, neither you (uid %d) nor root", sys.Uid, me)
	case sticky:
		return ""
	case sys.Mode&0o002 != 0:
		return "its directory is writable by every user"
	case sys.Mode&0o020 != 0 && sys.Gid != 0 && !inGroup(sys.Gid):
		return fmt.Sprintf("its directory is writable by group %d, which you are not in", sys.Gid)
	}
	return ""
}

// inGroup reports whether this process belongs to group gid.
func inGroup(gid uint32) bool {
	if int(gid) == os.Getegid() {
		return true
	}
	groups, _ := os.Getgroups()
	for _, g := range groups {
		if g == int(gid) {
			return true
		}
	}
	return false
}

type lineErr struct {
	path string
	line int
	msg  string
}

func (e *lineErr) Error() string { return fmt.Sprintf("%s:%d: %s", e.path, e.line, e.msg) }

// MaxConfigSize bounds a settings file: it is a few lines of YAML.
const MaxConfigSize = 1 << 20

// LoadConfig reads and checks a settings file the user named (--config).
func LoadConfig(path string) (*ConfigFile, error) { return loadConfig(path, false) }

// LoadFoundConfig reads a settings file found beside the linted configuration
// (FindConfig). Such a file comes with the configuration, from whoever wrote it
// (a pull request): it may not be a link out of its directory, and it may
// not widen what is read: its maps, prefix and roots must lie in its own
// directory or below. Widening comes from the command line or a --config
// the user names.
func LoadFoundConfig(path string) (*ConfigFile, error) { return loadConfig(path, true) }

func loadConfig(path string, found bool) (*ConfigFile, error) {
	within := ""
	if found {
		within = filepath.Dir(path)
	}
	b, err := boundedread.File(path, MaxConfigSize, within)
	if err != nil {
		return nil, err
	}
	f := &ConfigFile{Path: path, Severity: map[string]finding.Severity{}, Maps: map[string]string{}, Found: found}
	f.Dir, _ = filepath.Abs(filepath.Dir(path))
	if r, err := filepath.EvalSymlinks(f.Dir); err == nil {
		f.Dir = r
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, yamlstrict.DecodeError(path, err, untrusted.Clip)
	}
	if len(doc.Content) == 0 {
		return f, nil
	}
	r := &configReader{f: f}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, r.bad(root, "want a mapping of settings (%s)", strings.Join(keyNames(), ", "))
	}
	if err := yamlstrict.NoDuplicateKeys(root, path, untrusted.Clip); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if _, ok := keys[k.Value]; !ok {
			return nil, r.bad(k, "unknown key %q (known: %s)", k.Value, strings.Join(keyNames(), ", "))
		}
		if err := r.key(k, v); err != nil {
			var le *lineErr
			if !errors.As(err, &le) {
				err = r.bad(v, "%s: %v", k.Value, err)
			}
			return nil, err
		}
	}
	return f, nil
}

// configReader reads the keys of a settings file into f.
type configReader struct{ f *ConfigFile }

// bad is an error at a node of the file. The node's text, which the
// message or an error it wraps may quote, is quoted at most
// untrusted.Clip's 64 bytes: a key or value of the file's writer's choosing
// came back whole, 100 KB on one line.
func (r *configReader) bad(n *yaml.Node, format string, args ...any) error {
	return badAt(r.f.Path)(n, format, args...)
}

// badAt builds the errors at the nodes of the settings file path (see bad).
func badAt(path string) badFunc {
	return func(n *yaml.Node, format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		if c := untrusted.Clip(n.Value); c != n.Value {
			msg = strings.ReplaceAll(msg, strconv.Quote(n.Value), strconv.Quote(c))
			msg = strings.ReplaceAll(msg, n.Value, c)
		}
		return &lineErr{path, n.Line, msg}
	}
}

// key reads one key's value v.
func (r *configReader) key(k, v *yaml.Node) error {
	f := r.f
	var err error
	switch k.Value {
	case "nginx-version":
		err = r.nginxVersion(k, v)
	case "fail-on":
		err = r.failOn(k, v)
	case "disable":
		f.Disable, err = ruleIDs(v, k.Value, keys[k.Value], r.bad, true)
	case "enable":
		f.Enable, err = ruleIDs(v, k.Value, keys[k.Value], r.bad, false)
	case "severity":
		err = severities(v, k.Value, keys[k.Value], r.bad, f.Severity)
	case "map":
		err = r.pairs(k, v, r.mapEntry)
	case "prefix":
		err = r.prefix(k, v)
	case "overrides":
		err = parseOverrides(v, f.Path, f)
	case "fmt":
		err = r.pairs(k, v, r.fmtEntry)
	case "directives":
		f.Directives, err = r.list(k, v)
	case "roots":
		err = r.roots(k, v)
	}
	return err
}

// want is the error of a value of the wrong kind.
func (r *configReader) want(k, v *yaml.Node) error {
	return r.bad(v, "%s: want %s", k.Value, keys[k.Value])
}

func (r *configReader) scalar(k, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", r.want(k, v)
	}
	return v.Value, nil
}

func (r *configReader) list(k, v *yaml.Node) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, r.want(k, v)
	}
	var out []string
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode {
			return nil, r.want(k, it)
		}
		out = append(out, it.Value)
	}
	return out, nil
}

// pairs calls fn with each key and value of the mapping v.
func (r *configReader) pairs(k, v *yaml.Node, fn func(key, val *yaml.Node) error) error {
	if v.Kind != yaml.MappingNode {
		return r.want(k, v)
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		if err := fn(v.Content[j], v.Content[j+1]); err != nil {
			return err
		}
	}
	return nil
}

// local is a path the file names, relative to its directory.
func (r *configReader) local(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(r.f.Path), p)
}

// confined checks a path the file names against its directory: a file
// found beside the configuration cannot widen what is read.
func (r *configReader) confined(n *yaml.Node, key, p string) error {
	if !r.f.Found {
		return nil
	}
	real := filepath.Clean(p)
	if res, err := filepath.EvalSymlinks(real); err == nil {
		real = res
	}
	if !boundedread.Within(real, r.f.Dir) {
		return r.bad(n, "%s: %q is outside the directory of this file; a settings file found beside the configuration cannot widen what is read (give it on the command line, or name a settings file with --config)", key, untrusted.Clip(p))
	}
	return nil
}

func (r *configReader) nginxVersion(k, v *yaml.Node) error {
	s, err := r.scalar(k, v)
	if err != nil {
		return err
	}
	if r.f.NginxVersion, err = knowledge.ParseVersion(s); err != nil {
		return r.bad(v, "%v", err)
	}
	return nil
}

func (r *configReader) failOn(k, v *yaml.Node) error {
	var err error
	if r.f.FailOn, err = r.scalar(k, v); err != nil {
		return err
	}
	if _, err := ParseFailOn(r.f.FailOn); err != nil {
		return r.bad(v, "fail-on: %v", err)
	}
	return nil
}

// mapEntry reads one entry of map: an absolute server directory and the
// local one read for it.
func (r *configReader) mapEntry(key, val *yaml.Node) error {
	if !strings.HasPrefix(key.Value, "/") {
		return r.bad(key, "map: %q is not an absolute path", key.Value)
	}
	to := r.local(val.Value)
	if err := r.confined(val, "map", to); err != nil {
		return err
	}
	r.f.Maps[key.Value] = to
	return nil
}

func (r *configReader) prefix(k, v *yaml.Node) error {
	p, err := r.scalar(k, v)
	if err != nil {
		return err
	}
	r.f.Prefix = r.local(p)
	return r.confined(v, "prefix", r.f.Prefix)
}

// fmtEntry reads one key of fmt.
func (r *configReader) fmtEntry(key, val *yaml.Node) error {
	switch key.Value {
	case "indent":
		n, err := strconv.Atoi(val.Value)
		if val.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 8 {
			return r.bad(val, "fmt: indent: want a number of spaces from 1 to 8")
		}
		r.f.FmtIndent = n
	case "tabs":
		if val.Kind != yaml.ScalarNode || (val.Value != "true" && val.Value != "false") {
			return r.bad(val, "fmt: tabs: want true or false")
		}
		r.f.FmtTabs = val.Value == "true"
	case "align":
		if val.Kind != yaml.ScalarNode || (val.Value != "true" && val.Value != "false") {
			return r.bad(val, "fmt: align: want true or false")
		}
		r.f.FmtAlign = val.Value == "true"
	default:
		return r.bad(key, "fmt: unknown key %q (known: indent, tabs, align)", key.Value)
	}
	return nil
}

func (r *configReader) roots(k, v *yaml.Node) error {
	rs, err := r.list(k, v)
	if err != nil {
		return err
	}
	for j, root := range rs {
		root = r.local(root)
		if err := r.confined(v.Content[j], "roots", root); err != nil {
			return err
		}
		r.f.Roots = append(r.f.Roots, root)
	}
	return nil
}

func keyNames() []string {
	var out []string
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FailNone is the threshold that never fails.
const FailNone = finding.Severity(99)

// ParseFailOn reads a failure threshold.
func ParseFailOn(s string) (finding.Severity, error) {
	if s == "none" || s == "never" {
		return FailNone, nil
	}
	sev, err := finding.ParseSeverity(s)
	if err != nil {
		return 0, fmt.Errorf("unknown level %q (want error, warning, info or none)", s)
	}
	return sev, nil
}

// parseOverrides reads the overrides list. What nginx refuses stays an error
// here too.
// badFunc builds an error at a node of the settings file.
type badFunc func(n *yaml.Node, format string, args ...any) error

// ruleIDs reads a list of rule ids (what: the key, want: its description
// for errors). With off set they are rules to turn off, and what nginx
// refuses may not be: it stays on whatever a settings file says.
func ruleIDs(v *yaml.Node, what, want string, bad badFunc, off bool) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, bad(v, "%s: want %s", what, want)
	}
	var ids []string
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode {
			return nil, bad(it, "%s: want %s", what, want)
		}
		expanded, err := rules.Select([]string{it.Value})
		if err != nil {
			return nil, bad(it, "%s: %v", what, err)
		}
		for _, id := range expanded {
			if off && rules.NginxRefuses(id) {
				if it.Value != id {
					continue // a category keeps what nginx refuses on
				}
				return nil, bad(it, "%s: %s reports what nginx refuses to load; a settings file cannot turn it off (--disable on the command line can)", what, id)
			}
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// severities reads a map of rule id to level into into; what nginx refuses
// stays an error.
func severities(v *yaml.Node, what, want string, bad badFunc, into map[string]finding.Severity) error {
	if v.Kind != yaml.MappingNode {
		return bad(v, "%s: want %s", what, want)
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		id, lv := v.Content[j], v.Content[j+1]
		sev, err := finding.ParseSeverity(lv.Value)
		switch {
		case rules.ByID(id.Value) == nil:
			return bad(id, "%s: %q is not a rule (see nginxtune rules)", what, id.Value)
		case err != nil:
			return bad(lv, "%s of %s: %v", what, id.Value, err)
		case rules.NginxRefuses(id.Value) && sev < finding.Error:
			return bad(lv, "%s of %s: nginx refuses a configuration with this finding, so it stays an error (--disable on the command line turns the rule off)", what, id.Value)
		}
		into[id.Value] = sev
	}
	return nil
}

func parseOverrides(v *yaml.Node, path string, f *ConfigFile) error {
	bad := badAt(path)
	if v.Kind != yaml.SequenceNode {
		return bad(v, "overrides: want %s", keys["overrides"])
	}
	for _, e := range v.Content {
		if e.Kind != yaml.MappingNode {
			return bad(e, "overrides: want %s", keys["overrides"])
		}
		o := ConfigOverride{Severity: map[string]finding.Severity{}}
		for i := 0; i+1 < len(e.Content); i += 2 {
			if err := overrideKey(e.Content[i], e.Content[i+1], &o, bad); err != nil {
				return err
			}
		}
		if len(o.Paths) == 0 {
			return bad(e, "overrides: an entry needs paths")
		}
		f.Overrides = append(f.Overrides, o)
	}
	return nil
}

// overrideKey reads one key of an entry of overrides into o.
func overrideKey(k, val *yaml.Node, o *ConfigOverride, bad badFunc) error {
	strs := func() ([]string, error) {
		if val.Kind != yaml.SequenceNode {
			return nil, bad(val, "overrides: %s: want a list", k.Value)
		}
		var out []string
		for _, it := range val.Content {
			if it.Kind != yaml.ScalarNode {
				return nil, bad(it, "overrides: %s: want a list of strings", k.Value)
			}
			out = append(out, it.Value)
		}
		return out, nil
	}
	var err error
	switch k.Value {
	case "paths":
		o.Paths, err = strs()
		for j, p := range o.Paths {
			if err == nil && (filepath.IsAbs(p) || strings.HasPrefix(p, "../") || p == "..") {
				err = bad(val.Content[j], "overrides: paths: %q: want a pattern relative to this file's directory", p)
			}
		}
	case "disable":
		o.Disable, err = ruleIDs(val, "overrides: disable", "a list of rule ids", bad, true)
	case "severity":
		err = severities(val, "overrides: severity", "a map of rule id to error, warning or info", bad, o.Severity)
	default:
		err = bad(k, "overrides: unknown key %q (paths, disable, severity)", k.Value)
	}
	return err
}
