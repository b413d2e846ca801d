// Package diff says what a change to an nginx configuration does to
// traffic: it asks route the same requests of two trees — generated from
// both (every server name, every location's pattern and its edges,
// normalisation cases, methods, http and https) plus the caller's — and
// reports each request whose answer changes, and each directive in effect
// at a server or location that changes, including the silent ones (a
// header lost through add_header inheritance).
//
// Answers are compared by what a client or a backend sees: the status
// (or a closed connection), the block that answers, the handler and what
// it sends (the URI sent upstream, the file served, a redirect's target).
// File and line numbers, upstream names and the order of prefix locations
// are not behaviour: a reformatted file, a renamed upstream or reordered
// prefix locations change nothing. Where route is not certain of an answer
// (the disk, the client's address, a module's variable), the change is
// reported as one that may happen, with what it depends on.
package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/route"
)

// Kinds of change, worst first.
const (
	KindStatus    = "status"    // the status differs, or the connection is closed on one side
	KindBlock     = "block"     // another server or location answers
	KindAnswer    = "answer"    // the same block answers otherwise: the URI sent upstream, the file, a redirect's target
	KindUncertain = "uncertain" // route is not certain of one side, and the answers as far as it can tell differ
)

var kindRank = map[string]int{KindStatus: 0, KindBlock: 1, KindAnswer: 2, KindUncertain: 3}

// Options change what Compare asks.
type Options struct {
	// Requests are asked of both trees beside the generated ones.
	Requests []route.Request
	// Hostname is the host name nginx runs on, for server_name $hostname.
	Hostname string
	// NoGenerate asks only Requests.
	NoGenerate bool
	// Every generates the requests of every server, also of those whose
	// answers cannot differ (see Report.Unchanged).
	Every bool
	// disk is an assumption about the disk (hypotheses)
	disk func(string, bool) bool
}

// Answer is one tree's answer to a request.
type Answer struct {
	Server     string // the server's label
	ServerAt   string // file:line
	Location   string // the location's label, "" for none
	LocationAt string
	If         string // a true if block's condition
	IfAt       string
	Status     int  // 0: a backend or the disk decides
	Closed     bool // the connection is closed without a response
	Text       string
	Unknown    []string // what route could not know
	// Assuming is set when the answers differ only under an assumption
	// about the disk (route could not follow the request further
	// without one): which
	Assuming string
	// norm is Text with file:line places and upstream names taken out;
	// id names the blocks the way the other tree's can be matched
	norm     string
	serverID string
	locID    string
}

// Certain reports whether route is certain of the answer.
func (a *Answer) Certain() bool { return len(a.Unknown) == 0 }

// Change is a group of requests whose answers change the same way.
type Change struct {
	Kind     string
	Requests []route.Request
	// Old and New are the answers to Requests[i], in order.
	Old, New []Answer
	// Cause names the changed lines behind the first request's change
	// ("new nginx.conf:16-19"): inside the blocks that answer, else
	// outside every server
	Cause []string
}

// SettingChange is a directive in effect at a server or location that
// differs between the trees.
type SettingChange struct {
	Block     string // "server example.com, location /api/"
	OldAt     string // the block's place in the old tree
	NewAt     string
	Name      string
	Category  string // headers, body size, timeouts, caching, access, TLS, other
	Old, New  []string
	OldPlaces []string
	NewPlaces []string
	Note      string // a silent change: what no longer applies, and why
	// Also lists the other blocks where the same occurrences change
	// ("server x, location /api/ (nginx.conf:12)")
	Also       []string
	categoryRk int
}

// Report is what changed.
type Report struct {
	Old, New string // the trees' names as given
	// NewBase is the new tree's directory as given, for annotations on
	// its files
	NewBase string
	// Compared is the number of requests asked of both trees; Uncertain
	// how many of them route was not certain of in one tree or both.
	Compared  int
	Uncertain int
	// Unchanged counts the servers whose requests were not generated:
	// the server block, the http level around it and every server's
	// listen and names read the same in both trees, so every answer of
	// the server is the same
	Unchanged int
	Changes   []Change
	Settings  []SettingChange
	// Notes say what neither tree let diff see: includes not read, a
	// fragment in place of a main file
	Notes []string
}

// Changed reports whether any answer or directive in effect changes.
func (r *Report) Changed() bool { return len(r.Changes) > 0 || len(r.Settings) > 0 }

// Tree is one side: a loaded tree and route's reading of it.
type Tree struct {
	Name string // as given, for messages
	// Base is the tree's directory as the caller names it: annotations
	// name its files below it
	Base string
	Tree *loader.Tree
	cfg  *route.Config
	// upstreams maps an upstream's name to its servers and parameters as
	// written, for comparing proxy_pass targets across a rename
	upstreams map[string]string
	ids       map[*route.Server]string
	// realDir is Tree.Dir with its links resolved, as file paths are
	realDir string
}

// Load reads a tree (a main file or its directory) as an untrusted copy:
// nothing outside its directory is read. The error is one line with
// file:line.
func Load(path string) (*Tree, error) {
	t, err := loader.Load(path, loader.Options{})
	if err != nil {
		return nil, err
	}
	if d := route.Refused(t); d != nil {
		return nil, fmt.Errorf("%s:%d:%d: %s (nginx would not load this configuration)", d.File, d.Line, d.Col, d.Message)
	}
	// an include that leads back to a file being read: nginx includes it
	// again and again and does not load either
	for _, d := range t.Diagnostics {
		if d.Rule == loader.IncludeCycle && d.Severity == finding.Error {
			return nil, fmt.Errorf("%s:%d:%d: %s (nginx would not load this configuration)", d.File, d.Line, d.Col, d.Message)
		}
	}
	tr := newTree(path, t)
	tr.Base = path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		tr.Base = filepath.Dir(path)
	}
	return tr, nil
}

func newTree(name string, t *loader.Tree) *Tree {
	tr := &Tree{Name: name, Tree: t, cfg: route.Build(t), upstreams: map[string]string{}, ids: map[*route.Server]string{}, realDir: t.Dir}
	if real, err := filepath.EvalSymlinks(t.Dir); err == nil {
		tr.realDir = real
	}
	for _, d := range tr.cfg.HTTP {
		if d.Name == "upstream" && d.Block != nil && len(d.Args) == 1 {
			var parts []string
			for _, x := range parser.Level(d.Block) {
				parts = append(parts, directiveText(x))
			}
			tr.upstreams[d.Arg(0)] = "upstream{" + strings.Join(parts, " ") + "}"
		}
	}
	return tr
}

// directiveText is a directive as values, without its layout.
func directiveText(d *parser.Directive) string {
	return strings.Join(append([]string{d.Name}, d.ArgValues()...), " ") + ";"
}

// name is a file's path inside the tree (as nginx names it: a link by
// its own path).
func (t *Tree) name(f *parser.File) string {
	p := f.Path
	if f.Via != "" {
		p = f.Via
	}
	for _, dir := range []string{t.Tree.Dir, t.realDir} {
		if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// place is a directive's file:line inside the tree.
func (t *Tree) place(d *parser.Directive) string {
	if d == nil || d.File == nil {
		return ""
	}
	return t.name(d.File) + ":" + strconv.Itoa(int(d.Line))
}

// local writes the places route names in a text inside the tree, as
// place does.
func (t *Tree) local(s string) string {
	s = strings.ReplaceAll(s, t.Tree.Dir+string(filepath.Separator), "")
	if t.realDir != t.Tree.Dir {
		s = strings.ReplaceAll(s, t.realDir+string(filepath.Separator), "")
	}
	return s
}

// Compare asks both trees the requests and reports what changes.
func Compare(old, new *Tree, opt Options) *Report {
	reqs, skip := requests(old, new, opt)
	return compare(old, new, opt, reqs, skip)
}

// CompareBounded is Compare refusing trees whose requests would ask route
// for more than maxWork regular-expression matches.
func CompareBounded(old, new *Tree, opt Options) (*Report, error) {
	reqs, skip := requests(old, new, opt)
	if err := checkWork(reqs, old, new); err != nil {
		return nil, err
	}
	return compare(old, new, opt, reqs, skip), nil
}

// requests are the requests both trees are asked (the generated ones and
// opt's), and the servers not asked.
func requests(old, new *Tree, opt Options) ([]route.Request, map[*route.Server]bool) {
	matchServers(old, new)
	var reqs []route.Request
	skip := map[*route.Server]bool{}
	if !opt.Every {
		skip = unchanged(old, new)
	}
	if !opt.NoGenerate {
		reqs = requestSet(skip, old.cfg, new.cfg)
	}
	seen := map[string]bool{}
	for _, r := range reqs {
		seen[key(r)] = true
	}
	for _, r := range opt.Requests {
		if !seen[key(r)] {
			seen[key(r)] = true
			reqs = append(reqs, r)
		}
	}
	return reqs, skip
}

func compare(old, new *Tree, opt Options, reqs []route.Request, skip map[*route.Server]bool) *Report {
	rep := &Report{Old: old.Name, New: new.Name, NewBase: filepath.ToSlash(new.Base), Compared: len(reqs)}
	for _, t := range []*Tree{old, new} {
		rep.Notes = append(rep.Notes, t.notes()...)
	}
	for s := range skip {
		if old.ids[s] != "" {
			rep.Unchanged++
		}
	}
	groups := map[string]*Change{}
	var order []string
	cs := &causes{old: old, new: new}
	cs.removed, cs.added = changedLines(old, new)
	blocks := map[string]*blockPair{}
	var blockOrder []string
	for _, r := range reqs {
		ro, rn := old.route(r, opt), new.route(r, opt)
		a, b := old.answer(ro), new.answer(rn)
		if !a.Certain() || !b.Certain() {
			rep.Uncertain++
		}
		if a.serverID == b.serverID && a.locID == b.locID && ro.Server != nil && rn.Server != nil {
			k := a.serverID + "|" + a.locID + "|" + a.If + "|" + fmt.Sprint(ro.Location == nil)
			if _, ok := blocks[k]; !ok {
				blocks[k] = &blockPair{old: ro, new: rn, oldTree: old, newTree: new}
				blockOrder = append(blockOrder, k)
			}
		}
		kind := classify(&a, &b)
		if kind == "" && (!a.Certain() || !b.Certain()) {
			// route stopped where the disk decides (an index file, a
			// static file, try_files): the same words there may hide
			// different continuations; follow both trees under each
			// assumption about the disk
			for _, h := range hypotheses {
				o := opt
				o.disk = h.disk
				a2, b2 := old.answer(old.route(r, o)), new.answer(new.route(r, o))
				if classify(&a2, &b2) != "" {
					a2.Assuming, b2.Assuming = h.name, h.name
					a, b, kind = a2, b2, KindUncertain
					break
				}
			}
		}
		if kind == "" {
			continue
		}
		g := kind + "\x00" + a.ServerAt + a.LocationAt + a.IfAt + "\x00" + b.ServerAt + b.LocationAt + b.IfAt + "\x00" + strconv.Itoa(a.Status) + strconv.FormatBool(a.Closed) + "\x00" + strconv.Itoa(b.Status) + strconv.FormatBool(b.Closed)
		c := groups[g]
		if c == nil {
			c = &Change{Kind: kind, Cause: cs.cause(ro, rn)}
			groups[g] = c
			order = append(order, g)
		}
		c.Requests = append(c.Requests, r)
		c.Old = append(c.Old, a)
		c.New = append(c.New, b)
	}
	for _, g := range order {
		rep.Changes = append(rep.Changes, *groups[g])
	}
	sort.SliceStable(rep.Changes, func(i, j int) bool {
		a, b := rep.Changes[i], rep.Changes[j]
		if kindRank[a.Kind] != kindRank[b.Kind] {
			return kindRank[a.Kind] < kindRank[b.Kind]
		}
		return len(a.Requests) > len(b.Requests)
	})
	for _, k := range blockOrder {
		rep.Settings = append(rep.Settings, blocks[k].compare()...)
	}
	sort.SliceStable(rep.Settings, func(i, j int) bool { return rep.Settings[i].categoryRk < rep.Settings[j].categoryRk })
	rep.Settings = mergeSettings(rep.Settings)
	return rep
}

// classify says how two answers differ, "" when they do not.
func classify(a, b *Answer) string {
	same := a.Closed == b.Closed && a.Status == b.Status && a.serverID == b.serverID && a.locID == b.locID && a.If == b.If && a.norm == b.norm
	switch {
	case same:
		return ""
	case !a.Certain() || !b.Certain():
		return KindUncertain
	case a.Closed != b.Closed || a.Status != b.Status:
		return KindStatus
	case a.serverID != b.serverID || a.locID != b.locID || a.If != b.If:
		return KindBlock
	}
	return KindAnswer
}

func (t *Tree) route(r route.Request, opt Options) *route.Result {
	r.Headers = map[string]string{}
	// one prefix for both trees: a relative root names the same directory
	return t.cfg.Route(r, route.Options{Hostname: opt.Hostname, Disk: opt.disk})
}

// hypotheses are the assumptions about the disk a request route could
// not follow to its end is asked again under: nothing the configuration
// names exists (a fresh machine), and everything does.
var hypotheses = []struct {
	name string
	disk func(string, bool) bool
}{
	{"assuming no file or directory the configuration names exists", func(string, bool) bool { return false }},
	{"assuming every file and directory the configuration names exists", func(string, bool) bool { return true }},
}

// placeRE finds the places route writes into an answer ("at FILE:LINE");
// compiled on first use, as logVar: compiled at start, the two cost every
// command 40,000 instructions, the pre-commit hook's too.
var placeRE = lazyre.New(`\bat ([^\s]+):[0-9]+`)

func (t *Tree) answer(res *route.Result) Answer {
	a := Answer{Status: res.Status, Closed: res.Closed, Text: t.local(res.Answer)}
	for _, u := range res.Unknown {
		a.Unknown = append(a.Unknown, t.local(u))
	}
	if res.Server != nil {
		a.Server, a.ServerAt, a.serverID = res.Server.Label(), t.place(res.Server.Dir), t.ids[res.Server]
	}
	if res.Location != nil {
		a.Location, a.LocationAt, a.locID = res.Location.Label(), t.place(res.Location.Dir), locID(res.Location)
	}
	if res.If != nil {
		a.If, a.IfAt = route.Condition(res.If), t.place(res.If)
	}
	norm := placeRE().ReplaceAllString(a.Text, "at $1")
	// a proxy_pass to an upstream is compared by the upstream's servers
	for i := len(res.Steps) - 1; i >= 0; i-- {
		d := res.Steps[i].Dir
		if res.Steps[i].Kind != "content" || d == nil || !strings.HasSuffix(d.Name, "_pass") {
			continue
		}
		target := d.Arg(0)
		host := target
		if j := strings.Index(host, "://"); j >= 0 {
			host = host[j+3:]
		}
		if j := strings.IndexAny(host, "/"); j >= 0 {
			host = host[:j]
		}
		if sig, ok := t.upstreams[host]; ok && !strings.Contains(target, "$") {
			norm = strings.Replace(norm, d.Name+" "+target, d.Name+" "+strings.Replace(target, host, sig, 1), 1)
		}
		break
	}
	a.norm = norm
	return a
}

// locID names a location by its modifier and pattern and those of the
// locations around it: the same in both trees whatever its line.
func locID(l *route.Loc) string {
	id := l.Label()
	for p := l.Parent; p != nil; p = p.Parent {
		id = p.Label() + " > " + id
	}
	return id
}

// matchServers gives corresponding servers of the two trees the same id:
// the server at the same position with the same names and listen ports;
// else the old one that shares most of its names (ports break ties);
// else the one at the same position among those left with the same
// ports; else a new id.
func matchServers(old, new *Tree) {
	type sig struct {
		names []string
		ports string
	}
	sigOf := func(s *route.Server) sig {
		var x sig
		for _, n := range s.Names {
			x.names = append(x.names, n.Value)
		}
		var ps []string
		for _, l := range s.Listens {
			ps = append(ps, l.IP+":"+strconv.Itoa(l.Port)+l.Unix)
		}
		sort.Strings(ps)
		x.ports = strings.Join(ps, ",")
		return x
	}
	key := func(x sig) string { return strings.Join(x.names, " ") + "|" + x.ports }
	used := map[*route.Server]bool{}
	olds := make([]sig, len(old.cfg.Servers))
	byName := map[string][]int{}
	for i, s := range old.cfg.Servers {
		old.ids[s] = "s" + strconv.Itoa(i)
		olds[i] = sigOf(s)
		for _, n := range olds[i].names {
			byName[n] = append(byName[n], i)
		}
	}
	var left []*route.Server
	for i, s := range new.cfg.Servers {
		x := sigOf(s)
		if i < len(olds) && !used[old.cfg.Servers[i]] && key(olds[i]) == key(x) {
			used[old.cfg.Servers[i]] = true
			new.ids[s] = old.ids[old.cfg.Servers[i]]
			continue
		}
		score := map[int]int{}
		for _, n := range x.names {
			for _, j := range byName[n] {
				if !used[old.cfg.Servers[j]] {
					score[j] += 2
				}
			}
		}
		best, bestScore := -1, 0
		for j, sc := range score {
			if olds[j].ports == x.ports {
				sc++
			}
			if sc > bestScore || sc == bestScore && j < best {
				best, bestScore = j, sc
			}
		}
		if best < 0 {
			left = append(left, s)
			continue
		}
		used[old.cfg.Servers[best]] = true
		new.ids[s] = old.ids[old.cfg.Servers[best]]
	}
	// servers without a shared name: by position among the unmatched
	var rest []*route.Server
	for _, o := range old.cfg.Servers {
		if !used[o] {
			rest = append(rest, o)
		}
	}
	for i, s := range left {
		if i < len(rest) && sigOf(s).ports == sigOf(rest[i]).ports {
			new.ids[s] = old.ids[rest[i]]
			continue
		}
		new.ids[s] = "n" + strconv.Itoa(i)
	}
}

// blockText is a block's directives as values, nested blocks included and
// includes read in place: equal texts configure the same.
func blockText(b *strings.Builder, ds []*parser.Directive) {
	for _, d := range parser.Level(ds) {
		b.WriteString(directiveText(d))
		if d.Block != nil {
			b.WriteString("{")
			blockText(b, d.Block)
			b.WriteString("}")
		}
	}
}

// addressing is what decides which server a request reaches: every
// server's listens and names, in order.
func addressing(c *route.Config) string {
	var b strings.Builder
	for _, s := range c.Servers {
		for _, l := range s.Listens {
			fmt.Fprintf(&b, "%s|%s|%d|%t|%t|%t;", l.Unix, l.IP, l.Port, l.V6, l.Default, l.SSL)
		}
		for _, n := range s.Names {
			b.WriteString(n.Value + ",")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// httpText is the http level without its servers.
func httpText(c *route.Config) string {
	var b strings.Builder
	for _, d := range c.HTTP {
		if d.Name == "server" {
			continue
		}
		b.WriteString(directiveText(d))
		if d.Block != nil {
			b.WriteString("{")
			blockText(&b, d.Block)
			b.WriteString("}")
		}
	}
	return b.String()
}

// unchanged lists the servers of both trees whose every answer is the
// same in the other: the http level and the addressing of both trees are
// the same, and the server's block reads the same as its counterpart's.
// A request reaches a server by the addressing alone, and what happens
// there depends on the server's block and the http level only.
func unchanged(old, new *Tree) map[*route.Server]bool {
	out := map[*route.Server]bool{}
	if old.cfg.Fragment || new.cfg.Fragment || httpText(old.cfg) != httpText(new.cfg) || addressing(old.cfg) != addressing(new.cfg) {
		return out
	}
	text := func(s *route.Server) string {
		var b strings.Builder
		blockText(&b, s.Dir.Block)
		return b.String()
	}
	byID := map[string]*route.Server{}
	for _, s := range old.cfg.Servers {
		byID[old.ids[s]] = s
	}
	for _, s := range new.cfg.Servers {
		if o := byID[new.ids[s]]; o != nil && text(o) == text(s) {
			out[o], out[s] = true, true
		}
	}
	return out
}

// notes say what the tree does not let diff see.
func (t *Tree) notes() []string {
	var out []string
	for _, d := range t.Tree.Diagnostics {
		if (d.Rule == loader.IncludeMissing || d.Rule == loader.IncludeCycle) && d.Severity >= finding.Warning {
			rel := d.File
			if r, err := filepath.Rel(t.Tree.Dir, d.File); err == nil && !strings.HasPrefix(r, "..") {
				rel = filepath.ToSlash(r)
			}
			out = append(out, fmt.Sprintf("%s: %s:%d: %s", t.Name, rel, d.Line, d.Message))
		}
	}
	if t.Tree.HasUnread() {
		out = append(out, t.Name+": some included files were not read (outside the tree or missing): servers and locations in them are not compared")
	}
	if t.cfg.Fragment {
		out = append(out, t.Name+": a fragment, not a main nginx.conf: servers in files it does not include may share its addresses")
	}
	return out
}
