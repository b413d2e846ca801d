// Package rules judges a parsed nginx configuration and reports diagnostics.
//
// A rule is one value: its documentation (Doc) and its check. The rules run
// are the ones in All, an explicit list; nothing registers itself. Rules
// never print; the report package formats what they find.
package rules

import (
	"cmp"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nginxtune/nginxtune/finding"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/parser"
)

// Doc is everything a user reads about a rule. `nginxtune explain`,
// docs/rules.md and SARIF rule metadata are all generated from it.
type Doc struct {
	ID       string           // kebab-case, part of the contract
	Title    string           // one line
	Why      string           // what it costs, with measured figures where we have them
	Fix      string           // what to write instead
	Bad      string           // a configuration that must trigger the rule
	Good     string           // the same configuration fixed, which must not
	Severity finding.Severity // default severity
	Category Category         // what kind of problem it finds
	Since    string           // nginxtune version that introduced the rule
	Versions string           // nginx versions the advice applies to ("all" or a range)
	Sources  []string         // where the facts come from
}

// Category is the kind of problem a rule finds: code scanning (SARIF tags,
// security-severity), docs/rules.md and --enable category:NAME read it.
type Category string

const (
	// CategorySecurity: what an attacker or any client can use (exposure,
	// injection, weak TLS, access control that does not hold).
	CategorySecurity Category = "security"
	// CategoryPerformance: speed and capacity lost to the configuration.
	CategoryPerformance Category = "performance"
	// CategoryCorrectness: what nginx refuses, or does otherwise than the
	// configuration reads.
	CategoryCorrectness Category = "correctness"
	// CategoryHost: the configuration against the machine it runs on.
	CategoryHost Category = "host"
	// CategoryInput: what reading the tree found (syntax, includes,
	// suppressions).
	CategoryInput Category = "input"
)

// Categories lists the categories in the order docs/rules.md shows them.
var Categories = []Category{CategoryCorrectness, CategorySecurity, CategoryPerformance, CategoryHost, CategoryInput}

// Select expands rule ids and "category:NAME" entries into rule ids.
func Select(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		c, ok := strings.CutPrefix(n, "category:")
		if !ok {
			if ByID(n) == nil {
				return nil, fmt.Errorf("%q is not a rule (see nginxtune rules)", n)
			}
			out = append(out, n)
			continue
		}
		found := false
		for _, k := range Categories {
			if string(k) == c {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%q: no such category (%s)", n, categoryNames())
		}
		for _, r := range All {
			if string(r.Category) == c {
				out = append(out, r.ID)
			}
		}
	}
	return out, nil
}

func categoryNames() string {
	var s []string
	for _, c := range Categories {
		s = append(s, "category:"+string(c))
	}
	return strings.Join(s, ", ")
}

// Rule is a check with its documentation.
type Rule struct {
	Doc
	Check func(*Pass)
}

// Pass is what a rule's check receives.
type Pass struct {
	Tree    *parser.Tree
	Version Version // the nginx version linted for; zero when unknown
	// Host holds the facts of the machine the configuration runs on, or nil
	// when the lint is not host-aware.
	Host *host.Source
	// Extra names directives of modules nginxtune does not know
	// ("directives:" in .nginxtune.yaml): never unknown, never checked.
	Extra map[string]bool

	rule *Rule
	// the rules of the run, enabled or not (IsRule)
	rules  []*Rule
	diags  *[]finding.Diagnostic
	index  *levelIndex
	visits *visits
	lang   *langCache
	// what the caller keeps (Config.Only) and the severity the rule's
	// findings get, for wanted
	only     map[string]bool
	severity finding.Severity
	dropped  *int // findings past MaxFindings, counted by Report
	// what a variable's set and map definitions bring (definedTaint):
	// worked out once, cycles cut
	taintMemo map[string]taint
	taintBusy map[string]bool
	taintCut  bool
	// what a rewrite sets the URI to (rewriteTaintOnce) and whether its
	// regex matches every path (matchesAnyPath), by rewrite and regex
	rewriteMemo map[*parser.Directive]taint
	anyPath     map[string]bool
	// how the http *_pass directives use addresses (passUses)
	uses *passUses
	// the upstream blocks a *_pass may name (upstreamsFor)
	upstreams map[upstreamsKey]map[string]*parser.Directive
}

// IsRule reports whether a rule of the run has the id.
func (p *Pass) IsRule(id string) bool {
	for _, r := range p.rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// wanted reports whether the caller keeps a finding of this rule at d: any
// finding, unless Config.Only names the files it keeps; then one at those
// files, or anywhere when the rule's findings are errors (as configured, or
// declared). A rule asks before it reads a costly input for d, so a
// pre-commit run on a site file does not read the host's file limits for
// nginx.conf's worker_connections, a finding it would drop. It is right
// for rules that report at the severity they declare.
func (p *Pass) wanted(d *parser.Directive) bool {
	return p.only == nil || p.severity == finding.Error || d != nil && p.only[d.File.Path]
}

// Report records a finding. It takes a value: what the rule changes in its
// copy afterwards does not reach the report, and no report can lose a fix
// set through a pointer into a slice that has since grown.
func (p *Pass) Report(d finding.Diagnostic) {
	if d.Rule == "" {
		d.Rule = p.rule.ID
	}
	if len(*p.diags) >= MaxFindings {
		// past the run's bound in this rule alone: counted, not kept (a
		// tree of a million unknown names held 1.1 GB of findings that
		// were then cut)
		if p.dropped != nil {
			*p.dropped++
		}
		return
	}
	*p.diags = append(*p.diags, d)
}

// Diag builds a finding at a directive with the rule's severity, for the
// rule to complete (a fix, related places) and Report.
func (p *Pass) Diag(d *parser.Directive, format string, args ...any) finding.Diagnostic {
	return finding.Diagnostic{
		Rule: p.rule.ID, Severity: p.rule.Severity, File: d.File.Path, Line: int(d.Line), Col: int(d.Col),
		EndLine: int(d.EndLine), Offset: int(d.Start), Message: fmt.Sprintf(format, args...),
	}
}

// DiagArg is Diag at one argument of a directive.
func (p *Pass) DiagArg(d *parser.Directive, i int, format string, args ...any) finding.Diagnostic {
	diag := p.Diag(d, format, args...)
	if i < len(d.Args) {
		diag.Line, diag.Col, diag.Offset = int(d.Args[i].Line), int(d.Args[i].Col), int(d.Args[i].Offset)
	}
	return diag
}

// Reportf records a finding at a directive.
func (p *Pass) Reportf(d *parser.Directive, format string, args ...any) {
	p.Report(p.Diag(d, format, args...))
}

// ReportArgf records a finding at one argument of a directive.
func (p *Pass) ReportArgf(d *parser.Directive, i int, format string, args ...any) {
	p.Report(p.DiagArg(d, i, format, args...))
}

// ReportSeverityf records a finding with a severity other than the rule's
// default (for example an error where nginx -t would fail).
func (p *Pass) ReportSeverityf(sev finding.Severity, d *parser.Directive, format string, args ...any) {
	diag := p.Diag(d, format, args...)
	diag.Severity = sev
	p.Report(diag)
}

// relatedTo names a directive as a related place.
func relatedTo(d *parser.Directive, what string) finding.Related {
	return finding.Related{File: d.File.Path, Line: int(d.Line), Col: int(d.Col), Message: what}
}

// Config selects and tunes rules.
type Config struct {
	Disabled map[string]bool
	Severity map[string]finding.Severity
	Version  Version
	Host     *host.Source
	// Extra names directives of in-house modules.
	Extra map[string]bool
	// Overrides apply path-scoped settings (.nginxtune.yaml's overrides)
	// after the rules ran, in order.
	Overrides []Override
	// Only, when set, names the files whose findings the caller keeps (the
	// changed files of a pre-commit run), besides errors, which it keeps
	// from every file. Rules that need costly inputs (host facts) skip what
	// they would report elsewhere before reading them (Pass.wanted).
	Only map[string]bool
}

// Run runs every enabled rule over the tree, applies suppressions written
// in the configuration's comments, and returns the findings sorted by file
// and position. A file included from several places is reported once.
func Run(t *parser.Tree, cfg Config) []finding.Diagnostic {
	out, _ := RunCounted(t, cfg)
	return out
}

// RunCounted is Run, and how many findings past MaxFindings it left out: a
// bound of one run, like the tree's bounds, that the command reports (and
// exits 2 for).
func RunCounted(t *parser.Tree, cfg Config) ([]finding.Diagnostic, int) {
	vs := collect(t)
	lang := &langCache{names: map[string]*nameInfo{}, disabled: cfg.Disabled}
	// Rules run in parallel on a tree of parallelMin directives or more,
	// one worker per processor, each with a level index of its own; every
	// rule reports into a slot of its own and the slots are joined in the
	// order of All, so the output does not depend on the schedule.
	slots := make([][]finding.Diagnostic, len(All))
	dropped := make([]int, len(All))
	check := func(i int, index *levelIndex) {
		r := All[i]
		p := &Pass{Tree: t, Version: cfg.Version, Host: cfg.Host, Extra: cfg.Extra, rule: r, rules: All, diags: &slots[i], dropped: &dropped[i], index: index, visits: vs, lang: lang, only: cfg.Only, severity: r.Severity}
		if s, ok := cfg.Severity[r.ID]; ok {
			p.severity = s
		}
		r.Check(p)
	}
	var todo []int
	for i, r := range All {
		if !cfg.Disabled[r.ID] && r.Check != nil {
			todo = append(todo, i)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	if len(vs.all) < parallelMin {
		workers = 1
	}
	if workers > 1 {
		// the longest rules first, so that no worker is left with one of
		// them while the others have finished (slots keep the output in
		// the order of All whatever the order run)
		slices.SortStableFunc(todo, func(a, b int) int { return cmp.Compare(longRank(All[a].ID), longRank(All[b].ID)) })
	}
	if workers <= 1 {
		index := &levelIndex{}
		for _, i := range todo {
			check(i, index)
		}
	} else {
		next := make(chan int)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				index := &levelIndex{}
				for i := range next {
					check(i, index)
				}
			}()
		}
		for _, i := range todo {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	n := 0
	for _, s := range slots {
		n += len(s)
	}
	// a finding made twice (a block met again, a file included twice) is
	// one: same rule, place and message
	type findingKey struct {
		rule, file, message string
		offset              int
	}
	seen := make(map[findingKey]bool, n)
	gens := map[string]generator{}
	out := make([]finding.Diagnostic, 0, n)
	// a broken file's first syntax error: nginx reads the directives
	// before it one by one and stops at the first it refuses, so those are
	// judged as nginx judges them
	broken := map[string]int{}
	for _, f := range t.Files {
		if f.Broken {
			broken[f.Path] = 0 // no error's line known: nothing before it
		}
	}
	for _, slot := range slots {
		for _, d := range slot {
			if l, ok := broken[d.File]; ok && d.Rule == "syntax" && d.Severity == finding.Error && (l == 0 || d.Line < l) {
				broken[d.File] = d.Line
			}
		}
	}
	for _, slot := range slots {
		for _, d := range slot {
			// a file read only up to a syntax error is judged on that error
			// and on what nginx refuses before it (a directive, its context
			// or arguments, ended before the error's line); what follows it
			// was never read, and no other rule judges a file cut short
			if l, ok := broken[d.File]; ok && !loaderRule()[d.Rule] && !(languageRules[d.Rule] != nil && max(d.EndLine, d.Line) < l) {
				continue
			}
			// a Docker image template's ${VARIABLES} are values envsubst writes
			// at start: a finding on a line that holds one judges a value
			// nginxtune cannot see
			if strings.HasSuffix(d.File, parser.TemplateSuffix) && !loaderRule()[d.Rule] && envLine(t, d) {
				continue
			}
			key := findingKey{d.Rule, d.File, d.Message, d.Offset}
			if seen[key] {
				continue
			}
			seen[key] = true
			if s, ok := cfg.Severity[d.Rule]; ok {
				d.Severity = s
			}
			off := false
			for _, o := range cfg.Overrides {
				if o.Match(d.File) {
					if o.Disabled[d.Rule] {
						off = true
					}
					if s, ok := o.Severity[d.Rule]; ok {
						d.Severity = s
					}
				}
			}
			if off {
				continue
			}
			// a file a program writes: the finding says where to change it,
			// and no fix edits what the next run overwrites
			g, ok := gens[d.File]
			if !ok {
				if f := t.File(d.File); f != nil {
					g = generatorOf(f)
				}
				gens[d.File] = g
			}
			if say := g.say(); say != "" && !loaderRule()[d.Rule] {
				d.Message += " (" + say + ")"
				d.Fix = nil
			}
			if len(d.Message) > maxMessage {
				d.Message = cutAt(d.Message, maxMessage) + " (message cut)"
			}
			if f := t.File(d.File); f != nil && f.Via != "" {
				d.Via = f.Via
				d.Message += " (read via " + relTo(t.Dir, f.Via) + ")"
			}
			out = append(out, d)
		}
	}
	out = applySuppressions(t, out, cfg)
	// what a rule made past the bound was never kept: counted as not
	// shown (before suppressions and overrides, which it did not reach)
	notShown := 0
	for _, n := range dropped {
		notShown += n
	}
	if len(out) > MaxFindings {
		// a hostile or generated tree can produce millions: the first
		// MaxFindings in file order; the caller says how many more
		sortDiags(out)
		notShown += len(out) - MaxFindings
		out = out[:MaxFindings:MaxFindings]
	}
	sortDiags(out)
	return out, notShown
}

// longRules are the rules that take longest on large trees, longest first:
// they look at every server, location or proxy_pass, and on the trees of
// make bench-lint each takes 20-170 ms where most rules take under 10.
// Handed out last, one of them kept a worker busy a fifth of the rules'
// time after the other had finished.
var longRules = []string{"upstream-keepalive", "directive-args", "header-inheritance", "undefined-reference",
	"header-injection", "duplicate-definition", "host-module-missing"}

// longRank is a rule's place in longRules, and len(longRules) for the rest.
func longRank(id string) int {
	if i := slices.Index(longRules, id); i >= 0 {
		return i
	}
	return len(longRules)
}

// parallelMin is the number of directives (counted once per place they
// are included from) below which rules run one after another: on a small
// tree starting a second thread costs more than the rules take. (A
// variable so that tests can run small trees in parallel too.)
var parallelMin = 5000

// MaxFindings bounds the findings of one run. A test passes it with
// 100,000 one-line findings, which lint in under a second.
const MaxFindings = 100_000

func sortDiags(out []finding.Diagnostic) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		if out[i].Col != out[j].Col {
			return out[i].Col < out[j].Col
		}
		return out[i].Rule < out[j].Rule
	})
}

// loaderRule reports whether a rule reports what reading the tree found
// (its category is input): they stay on when --enable picks rules, and
// their findings stand in a file read only up to a syntax error.
var loaderRule = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, r := range All {
		if r.Category == CategoryInput {
			m[r.ID] = true
		}
	}
	return m
})

// nginxRefuses are the rules whose errors nginx -t reports too: the
// configuration does not load. A settings file may not lower or disable
// them (config.LoadFound), and a run they fire in fails whatever fail-on a
// settings file sets; the command line still may.
var nginxRefuses = map[string]bool{"syntax": true, "include-missing": true, "include-cycle": true,
	"directive-args": true, "directive-context": true, "directive-duplicate": true, "unknown-directive": true, "duplicate-definition": true, "undefined-reference": true,
	"ssl-directive-removed": true, "host-module-missing": true}

// NginxRefuses reports whether a rule's errors are errors nginx -t reports.
func NginxRefuses(id string) bool { return nginxRefuses[id] }

// LoaderRule reports whether a rule reports what reading the tree found.
func LoaderRule(id string) bool { return loaderRule()[id] }

// ByID returns the rule with the given id, or nil.
func ByID(id string) *Rule {
	for _, r := range All {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// relTo shows p relative to dir when it is below it.
func relTo(dir, p string) string {
	if dir == "" {
		return p
	}
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// maxMessage bounds a finding's message: rules quote the configuration,
// and a configuration is untrusted input.
const maxMessage = 1024

// clip shortens text quoted from the configuration (parser.Clip) and
// writes its line breaks and tabs as the escapes the configuration used
// ("[^/\r\n]" reads back as written, not as a broken line).
func clip(s string) string {
	if strings.ContainsAny(s, "\r\n\t") {
		s = strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(s)
	}
	return parser.Clip(s)
}

// cutAt shortens s on a character boundary (parser.CutAt).
func cutAt(s string, n int) string { return parser.CutAt(s, n) }

// DiagSev is Diag with a severity other than the rule's default.
func (p *Pass) DiagSev(sev finding.Severity, d *parser.Directive, format string, args ...any) finding.Diagnostic {
	diag := p.Diag(d, format, args...)
	diag.Severity = sev
	return diag
}

// envLine reports whether the line of a finding holds an envsubst
// placeholder.
func envLine(t *parser.Tree, d finding.Diagnostic) bool {
	f := t.File(d.File)
	if f == nil || d.Offset < 0 || d.Offset > len(f.Src) {
		return false
	}
	start := strings.LastIndexByte(string(f.Src[:d.Offset]), '\n') + 1
	end := len(f.Src)
	if i := strings.IndexByte(string(f.Src[d.Offset:]), '\n'); i >= 0 {
		end = d.Offset + i
	}
	return parser.EnvPlaceholder(string(f.Src[start:end]))
}
