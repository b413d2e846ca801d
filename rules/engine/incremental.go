package engine

import (
	"bytes"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// Scope is what a rule's findings depend on (Rule.Scope): a run over a
// new load of a tree whose files changed little (RunIncremental) reruns a
// rule only where a change can move its findings.
type Scope uint8

const (
	// ScopeTree: a finding may depend on anything in the tree (other
	// servers, upstreams, maps, names across servers, includes, the
	// host). The default: the rule reruns over the whole tree every time.
	ScopeTree Scope = iota
	// ScopeServer: a finding at a directive inside a server block (of
	// http, stream or mail) depends only on the directives of that block,
	// its whole subtree with the files included inside it, and on the
	// directives outside every server block (the levels above it: main,
	// http, stream, and upstreams, maps, load_module...); a finding at a
	// directive outside every server block depends only on directives
	// outside every server block. The rule reads the tree through the
	// pass's walk (Each, Visits, EachDirective, HTTPServers: a run after
	// an edit walks the directives outside every server block and the
	// server blocks it reruns) and, from a directive it met, the blocks
	// above it (Find, Effective, parents); it reports at directives only,
	// in the order of the walk, and a finding outside every server block
	// when the walk meets a directive outside every server block. Whatever
	// reads other server blocks (their names, addresses, variables), the
	// host, or what the tree as a whole holds (Tree.HasUnread), is
	// ScopeTree.
	ScopeServer
	// ScopeSummary: as ScopeServer, and besides on a summary of the whole
	// tree that changes rarely (the variables it sets, the servers that
	// answer unknown names), which the rule's Summary writes as a key
	// from a walk of the whole tree in every incremental run: where the
	// key is the last run's, the rule reruns as a ScopeServer rule, else
	// in full. The check reads what the summary covers from the whole
	// tree (Pass.WholeTree), everything else as a ScopeServer rule does.
	ScopeSummary
)

// Incremental is what a run keeps for the next run over a new load of the
// same tree (RunIncremental): what each rule found, and what it found it
// in. It holds no parsed directive, only the files' bytes.
type Incremental struct {
	all   []*Rule
	cfg   Config
	dir   string
	roots []string
	files map[string]fileMark // by path
	// what each rule of all reported, before judgement
	slots [][]finding.Diagnostic
	// the files linked by server blocks (a server block's files are one
	// group; groups that share a file are one): by path, a group number,
	// and each group's files
	group   map[string]int
	members [][]string
	dropped bool // a rule had findings past MaxFindings
	kept    bool // the run kept findings of the run before
	// the summaries of the ScopeSummary rules of all (Rule.Summary), by
	// rule; ok false where a rule had none
	keys []summaryKey
	// spare: the arrays of the run's visits, which the next run fills
	// again (taken once: two runs given the same Incremental do not share
	// them)
	spare atomic.Pointer[visitArrays]
}

// summaryKey is a ScopeSummary rule's summary of a tree.
type summaryKey struct {
	key string
	ok  bool
}

// Kept reports whether the run that made inc kept findings of the run
// before it (some rules ran over part of the tree).
func (inc *Incremental) Kept() bool { return inc.kept }

// fileMark is what a run's findings read of one file besides its
// directives: a file with the same mark and bytes holds the same
// statements, read the same way.
type fileMark struct {
	src []byte
	via string
	ctx string
	// includes: what each include directive of the file read, in order
	includes string
	// outside: a directive of the file stands outside every server block;
	// spans: then the byte ranges of the server blocks in it
	outside bool
	spans   [][2]int
}

// inServer reports whether a finding at offset of the file stands in one
// of its server blocks (where it does not, ScopeServer rules make it again
// from the directives outside server blocks, walked in every run).
func (m fileMark) inServer(offset int) bool {
	if !m.outside {
		return true
	}
	// sorted, and apart: the last that starts at or before offset
	i := sort.Search(len(m.spans), func(i int) bool { return m.spans[i][0] > offset })
	return i > 0 && offset < m.spans[i-1][1]
}

// RunIncremental is Run over a tree loaded again after its files changed,
// given what the run over the previous load kept (nil for none): the same
// findings as Run, byte for byte. Rules of ScopeTree run in full; rules of
// ScopeServer run only over the server blocks that hold a directive of a
// file whose text changed (and of the files those blocks share with other
// blocks), and keep the findings of the last run everywhere else. A change
// to anything outside server blocks (a changed file with a directive
// there, before or after), to what an unchanged file's include reads, to
// the roots or to the configuration reruns everything, and so does a run
// in which a rule of ScopeServer reported for a rule of ScopeTree
// (Pass.For), or a rule had findings past MaxFindings. It returns what the
// next run needs.
func RunIncremental(t *loader.Tree, all []*Rule, cfg Config, prev *Incremental) ([]finding.Diagnostic, int, *Incremental) {
	inc := &incRun{prev: prev, next: &Incremental{all: all, cfg: cfg, dir: t.Dir}}
	out, notShown := run(t, all, cfg, inc)
	if inc.restricted != nil && (inc.next.dropped || inc.forTree) {
		// past MaxFindings the findings kept depend on the order reported,
		// and what a rule walking part of the tree reported for a rule of
		// ScopeTree depends on all of it: those of a full run
		inc = &incRun{next: &Incremental{all: all, cfg: cfg, dir: t.Dir}}
		out, notShown = run(t, all, cfg, inc)
	}
	return out, notShown, inc.next
}

// incRun is one incremental run: what it decided to rerun where, and what
// it keeps for the next.
type incRun struct {
	prev, next *Incremental
	// restricted: the visits of the server blocks rerun, nil when every
	// rule reruns in full
	restricted *visits
	// changed: the files whose findings of ScopeServer rules are made
	// again (the rest are kept)
	changed map[string]bool
	// forTree: a rule of ScopeServer reported for a rule of ScopeTree
	// (Pass.For) over the restricted visits
	forTree bool
	vs      *visits // the run's
}

// collect indexes the tree's visits in the arrays of the last run's,
// which nothing reads once that run returned.
func (r *incRun) collect(t *loader.Tree) *visits {
	var spare *visitArrays
	if r.prev != nil {
		spare = r.prev.spare.Swap(nil)
	}
	r.vs = collectInto(t, spare)
	return r.vs
}

// serverRange is a server block's visits, [start, end) of visits.all,
// and the files they are in (the block's own first).
type serverRange struct {
	start, end int
	files      []*parser.File
}

// plan decides what reruns, from the tree's visits: it runs before the
// checks.
func (r *incRun) plan(t *loader.Tree, vs *visits) {
	next := r.next
	next.keys = make([]summaryKey, len(next.all))
	for _, f := range t.Roots {
		next.roots = append(next.roots, f.Path)
	}
	ranges, outside, snippet := serverRanges(vs.all, len(vs.byName["server"]))
	next.files = make(map[string]fileMark, len(t.Files))
	mixed := false
	for _, f := range t.Files {
		next.files[f.Path] = fileMark{src: f.Src, via: f.Via, ctx: strings.Join(f.Context, " "), outside: outside[f]}
		// read both outside server blocks and inside one that is not in
		// it: where a finding in it stands tells nothing
		mixed = mixed || outside[f] && snippet[f]
	}
	// the server blocks of the files with directives outside them, where
	// the findings of ScopeServer rules are those of a server block
	for _, sr := range ranges {
		if d := vs.all[sr.start].D; outside[d.File] {
			m := next.files[d.File.Path]
			m.spans = append(m.spans, [2]int{int(d.Start), int(d.End)})
			next.files[d.File.Path] = m
		}
	}
	for p, m := range next.files {
		if len(m.spans) > 1 {
			slices.SortFunc(m.spans, func(a, b [2]int) int { return a[0] - b[0] })
			next.files[p] = m
		}
	}
	markIncludes(t, vs, next.files)
	next.group, next.members = groups(ranges)
	changed, ok := r.changedFiles()
	if !ok || mixed {
		return
	}
	r.changed = changed
	// the ranges to rerun: those with a visit of a changed file
	rerun := make([]bool, len(ranges))
	for k, sr := range ranges {
		for _, f := range sr.files {
			rerun[k] = rerun[k] || changed[f.Path]
		}
	}
	r.restricted = restrictVisits(vs, ranges, rerun)
	next.kept = true
}

// changedFiles returns the files whose findings are made again, closed
// over the server blocks of this load and of the last, or false when
// everything reruns.
func (r *incRun) changedFiles() (map[string]bool, bool) {
	prev, next := r.prev, r.next
	if prev == nil || prev.dropped || !slices.Equal(prev.all, next.all) || !sameConfig(prev.cfg, next.cfg) ||
		prev.dir != next.dir || !slices.Equal(prev.roots, next.roots) {
		return nil, false
	}
	changed := map[string]bool{}
	for p, m := range next.files {
		o, ok := prev.files[p]
		switch {
		case !ok || o.via != m.via || o.ctx != m.ctx || !bytes.Equal(o.src, m.src):
			changed[p] = true
		case o.includes != m.includes:
			// an unchanged file reads other files than before (a file
			// appeared or left on disk)
			return nil, false
		}
	}
	for p := range prev.files {
		if _, ok := next.files[p]; !ok {
			changed[p] = true
		}
	}
	// the files of every server block either load links to a changed
	// file: their findings may move with it
	todo := make([]string, 0, len(changed))
	for p := range changed {
		todo = append(todo, p)
	}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, inc := range []*Incremental{prev, next} {
			g, ok := inc.group[p]
			if !ok {
				continue
			}
			for _, q := range inc.members[g] {
				if !changed[q] {
					changed[q] = true
					todo = append(todo, q)
				}
			}
		}
	}
	for p := range changed {
		if prev.files[p].outside || next.files[p].outside {
			return nil, false
		}
	}
	return changed, true
}

// serverRanges returns the server blocks' visits (the outermost server
// block of http, stream or mail, and everything walked inside it), the
// files with a directive outside every such block, and the files read
// inside a block that is not theirs (snippets). One pass over the visits.
func serverRanges(all []Visit, servers int) (ranges []serverRange, outside, snippet map[*parser.File]bool) {
	outside, snippet = map[*parser.File]bool{}, map[*parser.File]bool{}
	// sized by the server directives met (an upper bound), and every
	// block's files in one list, cut per block at the end: a large tree's
	// blocks are tens of thousands, a list each was as many allocations
	// on every keystroke
	ranges = make([]serverRange, 0, servers)
	var files []*parser.File
	from := make([]int, 0, servers) // each range's first in files
	var lastOutside, lastIn *parser.File
	var server *parser.Directive
	depth := 0
	for i, v := range all {
		if server != nil {
			if len(v.C.Blocks) > depth && v.C.Blocks[depth] == server {
				if f := v.D.File; f != lastIn {
					lastIn = f
					if !slices.Contains(files[from[len(from)-1]:], f) {
						files = append(files, f)
						snippet[f] = true
					}
				}
				continue
			}
			ranges[len(ranges)-1].end = i
			server = nil
		}
		if v.D.Name == "server" && v.D.Block != nil && serverContext(v.C) {
			server, depth, lastIn = v.D, len(v.C.Blocks), v.D.File
			from = append(from, len(files))
			files = append(files, v.D.File)
			ranges = append(ranges, serverRange{start: i, end: len(all)})
			continue
		}
		if v.D.File != lastOutside {
			lastOutside = v.D.File
			outside[lastOutside] = true
		}
	}
	for k := range ranges {
		end := len(files)
		if k+1 < len(from) {
			end = from[k+1]
		}
		ranges[k].files = files[from[k]:end:end]
	}
	return ranges, outside, snippet
}

// serverContext reports whether a server block in c is one of http,
// stream or mail.
func serverContext(c *parser.Context) bool {
	switch c.In() {
	case parser.CtxHTTP, parser.CtxStream, "mail":
		return true
	}
	return false
}

// groups links the files of each server block: files that one block
// visits are one group, and blocks that share a file share its group.
func groups(ranges []serverRange) (map[string]int, [][]string) {
	parent := map[string]string{}
	var find func(string) string
	find = func(p string) string {
		q, ok := parent[p]
		if !ok {
			parent[p] = p
			return p
		}
		if q == p {
			return p
		}
		root := find(q)
		parent[p] = root
		return root
	}
	for _, sr := range ranges {
		first := find(sr.files[0].Path)
		for _, f := range sr.files[1:] {
			if a := find(f.Path); a != first {
				parent[a] = first
			}
		}
	}
	group := make(map[string]int, len(parent))
	var members [][]string
	ids := map[string]int{}
	for p := range parent {
		root := find(p)
		id, ok := ids[root]
		if !ok {
			id = len(members)
			ids[root] = id
			members = append(members, nil)
		}
		group[p] = id
		members[id] = append(members[id], p)
	}
	return group, members
}

// markIncludes records in each file's mark what its include directives
// read: the files, and whether something was left unread.
func markIncludes(t *loader.Tree, vs *visits, files map[string]fileMark) {
	seen := map[*parser.Directive]bool{}
	var b strings.Builder
	for _, i := range vs.byName["include"] {
		d := vs.all[i].D
		if seen[d] {
			continue
		}
		seen[d] = true
		m := files[d.File.Path]
		b.Reset()
		b.WriteString(m.includes)
		b.WriteString(strconv.Itoa(int(d.Start)))
		if t.NotRead(d) {
			b.WriteString(" unread")
		}
		for _, f := range d.Includes() {
			b.WriteString(" ")
			b.WriteString(strconv.Quote(f.Path))
		}
		b.WriteString("\n")
		m.includes = b.String()
		files[d.File.Path] = m
	}
}

// restrictVisits returns, for the passes of ScopeServer rules, the visits
// outside every server block and those of the ranges rerun, in the order
// of the walk, indexed by name: what the rules compute from them (Shared)
// is their own; Places counts over the whole tree.
func restrictVisits(vs *visits, ranges []serverRange, rerun []bool) *visits {
	// the names keep the whole tree's numbers (VisitNames): a rule's
	// per-name answers are indexed by them
	out := &visits{byName: map[string][]int32{}, names: vs.names, full: vs}
	add := func(from, to int) {
		for i, v := range vs.all[from:to] {
			out.byName[v.D.Name] = append(out.byName[v.D.Name], int32(len(out.all)))
			out.all = append(out.all, v)
			out.nameID = append(out.nameID, vs.nameID[from+i])
		}
	}
	at := 0
	for k, sr := range ranges {
		add(at, sr.start)
		if rerun[k] {
			add(sr.start, sr.end)
		}
		at = sr.end
	}
	add(at, len(vs.all))
	return out
}

// pass prepares rule i's pass: a ScopeServer rule of an incremental run,
// and a ScopeSummary rule whose summary is the last run's, walks the
// server blocks rerun, its slot holding what it found before outside the
// changed files.
func (r *incRun) pass(i int, p *Pass) {
	switch p.rule.Scope {
	case ScopeServer:
	case ScopeSummary:
		if p.rule.Summary == nil {
			return
		}
		// over the whole tree (p walks it yet), what the next run
		// compares its own with
		k, ok := p.rule.Summary(p)
		r.next.keys[i] = summaryKey{k, ok}
		if !ok || r.restricted == nil || r.prev.keys == nil || r.prev.keys[i] != r.next.keys[i] {
			return
		}
	default:
		return
	}
	if r.restricted == nil {
		return
	}
	p.visits = r.restricted
	var kept []finding.Diagnostic
	for _, d := range r.prev.slots[i] {
		if m, ok := r.next.files[d.File]; ok && !r.changed[d.File] && m.inServer(d.Offset) {
			kept = append(kept, d)
		}
	}
	*p.diags = kept
}

// WholeTree is the pass over the whole tree's walk: p itself, except in
// a ScopeSummary rule's run over the server blocks an edit touched, whose
// check reads there what its Summary covers (the variables the tree sets
// in all its servers, say) and everything else through p.
func (p *Pass) WholeTree() *Pass {
	if p.visits == nil || p.visits.full == nil {
		return p
	}
	q := *p
	q.visits = p.visits.full
	return &q
}

// done records the run's findings for the next run.
func (r *incRun) done(slots [][]finding.Diagnostic, dropped []int) {
	r.next.slots = slots
	r.next.spare.Store(&r.vs.arrays)
	for _, n := range dropped {
		if n > 0 {
			r.next.dropped = true
		}
	}
	if r.restricted != nil {
		r.forTree = reportsForTree(r.next.all, slots)
	}
}

// reportsForTree reports whether a rule that may walk part of the tree
// (ScopeServer, ScopeSummary) reported a finding of a rule of another
// scope (Pass.For: one walk checks for several rules): walking part of
// the tree, it reported what depends on more of it.
func reportsForTree(all []*Rule, slots [][]finding.Diagnostic) bool {
	var scope map[string]Scope
	for i, r := range all {
		if r.Scope == ScopeTree {
			continue
		}
		for _, d := range slots[i] {
			if d.Rule == r.ID {
				continue
			}
			if scope == nil {
				scope = make(map[string]Scope, len(all))
				for _, o := range all {
					scope[o.ID] = o.Scope
				}
			}
			if s, ok := scope[d.Rule]; ok && s != r.Scope {
				return true
			}
		}
	}
	return false
}

// sameConfig reports whether two configurations make the same findings
// before judgement: Overrides apply after the checks, and the host is
// read by rules of ScopeTree only, which rerun anyway.
func sameConfig(a, b Config) bool {
	return reflect.DeepEqual(a.Disabled, b.Disabled) && reflect.DeepEqual(a.Severity, b.Severity) && a.Version == b.Version &&
		reflect.DeepEqual(a.Extra, b.Extra) && reflect.DeepEqual(a.Only, b.Only)
}
