package engine

import (
	"cmp"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
)

// Config selects and tunes rules.
type Config struct {
	Disabled map[string]bool
	Severity map[string]finding.Severity
	Version  knowledge.Version
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
	// ParallelFrom is the number of directives from which rules run in
	// parallel, one worker per processor; 0 for 5,000. Tests set 1 to run
	// small trees in parallel.
	ParallelFrom int
}

// Run runs every enabled rule of all over the tree, applies suppressions
// written in the configuration's comments, and returns the findings sorted
// by file and position (a file included from several places is reported
// once), and how many findings past MaxFindings it left out: a bound of
// one run, like the tree's bounds, that the command reports (and exits 2
// for). The stages: the checks, the judgement of each finding (newJudge),
// suppressions, the bound.
func Run(t *loader.Tree, all []*Rule, cfg Config) ([]finding.Diagnostic, int) {
	return run(t, all, cfg, nil)
}

// run is Run, incremental when inc is set (RunIncremental).
func run(t *loader.Tree, all []*Rule, cfg Config, inc *incRun) ([]finding.Diagnostic, int) {
	slots, notShown := runChecks(t, all, cfg, inc)
	n := 0
	for _, s := range slots {
		n += len(s)
	}
	out := make([]finding.Diagnostic, 0, n)
	if n > 0 { // a clean tree has nothing to judge
		j := newJudge(t, all, cfg, slots, n)
		for _, slot := range slots {
			for _, d := range slot {
				if d, ok := j.judge(d); ok {
					out = append(out, d)
				}
			}
		}
	}
	out = applySuppressions(t, all, out, cfg)
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

// runChecks runs the checks of the enabled rules of all, and returns what
// each reported, in the order of all, and how many findings they made past
// MaxFindings (never kept: counted as not shown, before suppressions and
// overrides, which they did not reach). Rules run in parallel on a tree of
// parallelFrom (Config.ParallelFrom) directives or more, one worker per
// processor, each with a level index of its own; every rule reports into a
// slot of its own, so the output does not depend on the schedule. With
// inc, rules of ScopeServer may rerun over part of the tree (incRun).
func runChecks(t *loader.Tree, all []*Rule, cfg Config, inc *incRun) ([][]finding.Diagnostic, int) {
	var vs *visits
	if inc != nil {
		vs = inc.collect(t)
		inc.plan(t, vs)
	} else {
		vs = collect(t)
	}
	slots := make([][]finding.Diagnostic, len(all))
	dropped := make([]int, len(all))
	check := func(i int, index *levelIndex) {
		r := all[i]
		p := &Pass{Tree: t, Version: cfg.Version, Host: cfg.Host, Extra: cfg.Extra, rule: r, rules: all, disabled: cfg.Disabled, diags: &slots[i], dropped: &dropped[i], index: index, visits: vs, only: cfg.Only, severity: r.Severity}
		if s, ok := cfg.Severity[r.ID]; ok {
			p.severity = s
		}
		if inc != nil {
			inc.pass(i, p)
		}
		r.Check(p)
	}
	var todo []int
	for i, r := range all {
		if !cfg.Disabled[r.ID] && r.Check != nil {
			todo = append(todo, i)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	from := parallelFrom
	if cfg.ParallelFrom != 0 {
		from = cfg.ParallelFrom
	}
	if len(vs.all) < from {
		workers = 1
	}
	if workers <= 1 {
		index := &levelIndex{}
		for _, i := range todo {
			check(i, index)
		}
	} else {
		// the longest rules first, so that no worker is left with one of
		// them while the others have finished (slots keep the output in
		// the order of all whatever the order run)
		slices.SortStableFunc(todo, func(a, b int) int { return cmp.Compare(all[b].Slow, all[a].Slow) })
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
	notShown := 0
	for _, n := range dropped {
		notShown += n
	}
	if inc != nil {
		inc.done(slots, dropped)
	}
	return slots, notShown
}

// judge decides, finding by finding, what a run keeps of what its rules
// reported, and completes what it keeps.
type judge struct {
	t   *loader.Tree
	cfg Config
	all []*Rule
	// byID: the rules of all by id, made when a finding's rule is first
	// asked about (a file cut short, a template or generated file): most
	// runs never do
	byID map[string]*Rule
	// broken: the files read only up to a syntax error, and its line
	broken map[string]int
	seen   map[findingKey]bool
	gens   map[string]generator
}

// findingKey is what makes a finding made twice (a block met again, a
// file included twice) one: same rule, place and message.
type findingKey struct {
	rule, file, message string
	offset              int
}

// newJudge prepares the judgement of the n findings in slots.
func newJudge(t *loader.Tree, all []*Rule, cfg Config, slots [][]finding.Diagnostic, n int) *judge {
	j := &judge{t: t, cfg: cfg, all: all, broken: map[string]int{},
		seen: make(map[findingKey]bool, n), gens: map[string]generator{}}
	// a broken file's first syntax error: nginx reads the directives
	// before it one by one and stops at the first it refuses, so those are
	// judged as nginx judges them
	for _, f := range t.Files {
		if f.Broken {
			j.broken[f.Path] = 0 // no error's line known: nothing before it
		}
	}
	for _, slot := range slots {
		for _, d := range slot {
			if l, ok := j.broken[d.File]; ok && j.rule(d.Rule).SyntaxErrors && d.Severity == finding.Error && (l == 0 || d.Line < l) {
				j.broken[d.File] = d.Line
			}
		}
	}
	return j
}

// noRule answers for an id that no rule of the run has.
var noRule = &Rule{}

// rule returns the rule of the run with the id.
func (j *judge) rule(id string) *Rule {
	if j.byID == nil {
		j.byID = make(map[string]*Rule, len(j.all))
		for _, r := range j.all {
			j.byID[r.ID] = r
		}
	}
	if r, ok := j.byID[id]; ok {
		return r
	}
	return noRule
}

// input reports whether the finding's rule reports what reading the tree
// found (its category is input).
func (j *judge) input(d finding.Diagnostic) bool {
	return j.rule(d.Rule).Category == CategoryInput
}

// judge returns the finding as the run reports it, and whether it does.
func (j *judge) judge(d finding.Diagnostic) (finding.Diagnostic, bool) {
	if !j.stands(d) {
		return d, false
	}
	key := findingKey{d.Rule, d.File, d.Message, d.Offset}
	if j.seen[key] {
		return d, false
	}
	j.seen[key] = true
	if s, ok := j.cfg.Severity[d.Rule]; ok {
		d.Severity = s
	}
	off := false
	for _, o := range j.cfg.Overrides {
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
		return d, false
	}
	return j.complete(d), true
}

// stands reports whether a finding judges what nginx reads as nginxtune
// sees it.
func (j *judge) stands(d finding.Diagnostic) bool {
	// a file read only up to a syntax error is judged on that error and on
	// what nginx refuses before it (a directive, its context or arguments,
	// ended before the error's line); what follows it was never read, and
	// no other rule judges a file cut short
	if l, ok := j.broken[d.File]; ok && !j.input(d) && !(j.rule(d.Rule).LineByLine && max(d.EndLine, d.Line) < l) {
		return false
	}
	// a Docker image template's ${VARIABLES} are values envsubst writes at
	// start: a finding on a line that holds one judges a value nginxtune
	// cannot see
	return !strings.HasSuffix(d.File, loader.TemplateSuffix) || j.input(d) || !envLine(j.t, d)
}

// complete says where to change a generated file (and drops the fix), cuts
// a long message and names the file a finding was read through.
func (j *judge) complete(d finding.Diagnostic) finding.Diagnostic {
	// a file a program writes: the finding says where to change it, and no
	// fix edits what the next run overwrites
	g, ok := j.gens[d.File]
	if !ok {
		if f := j.t.File(d.File); f != nil {
			g = generatorOf(f)
		}
		j.gens[d.File] = g
	}
	if say := g.say(); say != "" && !j.input(d) {
		d.Message += " (" + say + ")"
		d.Fix = nil
	}
	if len(d.Message) > maxMessage {
		d.Message = cutAt(d.Message, maxMessage) + " (message cut)"
	}
	if f := j.t.File(d.File); f != nil && f.Via != "" {
		d.Via = f.Via
		d.Message += " (read via " + relTo(j.t.Dir, f.Via) + ")"
	}
	return d
}

// parallelFrom is the number of directives (counted once per place they
// are included from) from which rules run in parallel: on a small tree
// starting a second thread costs more than the rules take.
const parallelFrom = 5000

// MaxFindings bounds the findings of one run. A test passes it with
// 100,000 one-line findings, which lint in under a second.
const MaxFindings = 100_000

// sortDiags sorts findings by file, line, column and rule, keeping the
// order of those equal in all four. It sorts their numbers, then moves
// each finding once: a stable sort of the findings themselves (about 200
// bytes each) moved them many times over.
func sortDiags(out []finding.Diagnostic) {
	idx := make([]int32, len(out))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int {
		x, y := &out[a], &out[b]
		if c := strings.Compare(x.File, y.File); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Line, y.Line); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Col, y.Col); c != 0 {
			return c
		}
		return strings.Compare(x.Rule, y.Rule)
	})
	// out[i] becomes out[idx[i]]: each cycle of the permutation in turn
	for i := range idx {
		if idx[i] < 0 || int(idx[i]) == i {
			continue
		}
		held := out[i]
		j := i
		for {
			k := int(idx[j])
			idx[j] = -1
			if k == i {
				out[j] = held
				break
			}
			out[j] = out[k]
			j = k
		}
	}
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

// Clip shortens text quoted from the configuration (untrusted.Clip) and
// writes its line breaks and tabs as the escapes the configuration used
// ("[^/\r\n]" reads back as written, not as a broken line).
func Clip(s string) string {
	if strings.ContainsAny(s, "\r\n\t") {
		s = strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(s)
	}
	return untrusted.Clip(s)
}

// cutAt shortens s on a character boundary (untrusted.CutAt).
func cutAt(s string, n int) string { return untrusted.CutAt(s, n) }

// envLine reports whether the line of a finding holds an envsubst
// placeholder.
func envLine(t *loader.Tree, d finding.Diagnostic) bool {
	f := t.File(d.File)
	if f == nil || d.Offset < 0 || d.Offset > len(f.Src) {
		return false
	}
	start := strings.LastIndexByte(string(f.Src[:d.Offset]), '\n') + 1
	end := len(f.Src)
	if i := strings.IndexByte(string(f.Src[d.Offset:]), '\n'); i >= 0 {
		end = d.Offset + i
	}
	return loader.EnvPlaceholder(string(f.Src[start:end]))
}
