package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// The language rules: every directive checked against the table generated
// from nginx's source (knowledge/directives.tsv) for the nginx version
// linted for, in the context the include graph gives it.

// langCache keeps what the language rules compute per context and per
// name, shared by the four rules of one lint: a large tree has few
// distinct blocks and names but many directives.
type langCache struct {
	once  sync.Once // the first language rule to run does the walk
	names map[string]*nameInfo
}

// langKey keys the run's langCache (Pass.Shared).
type langKey struct{}

// lang is the run's langCache.
func (p *Pass) lang() *langCache {
	if p.langc == nil {
		p.langc = p.Shared(langKey{}, func() any { return &langCache{names: map[string]*nameInfo{}} }).(*langCache)
	}
	return p.langc
}

// nameInfo is what the table says of one name, looked up once per lint.
type nameInfo struct {
	// ds are the table's rows for the linted version's branch when the
	// table has that branch (1.22.1 for 1.22.x), else all of them; all
	// are every row, for saying which versions have a name
	ds, all            []knowledge.Directive
	knownDone          bool
	known, certain     bool
	where              string
	allowed            uint32 // contexts some row allows
	onceMask, manyMask uint32 // contexts of rows nginx refuses twice / allows twice
	allOnce, anyFlag   bool
	// valued: some row lists the words or the slot of its values, so
	// directive-args collects the context's rows to check them
	valued bool
	// for an unknown version: the contexts each version of the table
	// allows (CoreVersions' order; 0 where the version lacks the name),
	// and those a third-party module's row allows in any
	perVersion []uint32
	extraMask  uint32
	// has and lack name the versions of the table with and without the
	// name, when no version is given and they differ
	has, lack string
	// byCtx are its rows by context, as directive-args reads them
	byCtx []*ctxRows
}

func (p *Pass) info(name string) *nameInfo {
	if i, ok := p.lang().names[name]; ok {
		return i
	}
	all := knowledge.Lookup(name)
	i := &nameInfo{ds: all, all: all, allOnce: true}
	if tv := p.branchVersion(); tv != "" {
		// a context, an argument count or a flag value newer nginx allows
		// is no help to the version linted
		var ds []knowledge.Directive
		for _, d := range all {
			if d.Extra != "" || d.InCore(tv) {
				ds = append(ds, d)
			}
		}
		i.ds = ds
	}
	for _, d := range i.ds {
		i.allowed |= d.Mask
		i.anyFlag = i.anyFlag || d.Flag
		i.valued = i.valued || len(d.Values) > 0 || d.Slot != ""
		if d.Once {
			i.onceMask |= d.Mask
		} else {
			i.manyMask |= d.Mask
			i.allOnce = false
		}
	}
	i.allOnce = i.allOnce && len(i.ds) > 0
	if !p.Version.Known() {
		i.perVersion = make([]uint32, len(knowledge.CoreVersions()))
		for _, d := range all {
			if d.Extra != "" {
				i.extraMask |= d.Mask
				continue
			}
			for k, v := range knowledge.CoreVersions() {
				if d.InCore(v) {
					i.perVersion[k] |= d.Mask
				}
			}
		}
	}
	p.lang().names[name] = i
	return i
}

// once reports whether nginx refuses the name twice in a block of ctx.
func (i *nameInfo) once(bit uint32, certain bool) bool {
	if !certain {
		return i.allOnce
	}
	b := bit | 1<<31
	return i.onceMask&b != 0 && i.manyMask&b == 0
}

// contextTitle names a context key for messages.
var contextTitle = map[string]string{
	"main": "the main context", "events": "events", "http": "http", "server": "server", "location": "location",
	"upstream": "upstream", "if-server": "if in server", "if-location": "if in location", "limit_except": "limit_except",
	"stream": "stream", "stream-server": "stream server", "stream-upstream": "stream upstream", "mail": "mail",
	"mail-server": "mail server", "rtmp": "rtmp", "rtmp-server": "rtmp server", "rtmp-application": "rtmp application",
	"rtmp-recorder": "rtmp recorder", "any": "any block",
}

// certainContext reports whether a directive's context is known for sure:
// the walk started at a main file or at a snippet whose context is
// declared, not guessed.
func certainContext(c *parser.Context) bool {
	return c.Root == nil || c.Root.ContextSource == "root" || c.Root.ContextSource == "declared"
}

// ownedElsewhere are names another rule reports with more to say.
var ownedElsewhere = map[string]bool{"ssl": true}

// branchVersion is the table's version of the linted version's stable
// branch (1.22.1 for 1.22.1 and later 1.22 releases), "" when the table has
// none or the version is unknown.
func (p *Pass) branchVersion() string {
	if !p.Version.Known() {
		return ""
	}
	return knowledge.Branch(p.Version)
}

// knownIn reports whether the table has name for the linted version:
// present (true, certain), absent (false, certain), or not decidable
// between the versions the table covers (certain false). where names the
// versions that have it, for messages.
func (p *Pass) knownIn(name string, ds []knowledge.Directive) (known, certain bool, where string) {
	if len(ds) == 0 {
		return false, true, ""
	}
	// the versions of the rows, each once: a handful, looked through
	// rather than put in a map (a third of what this cost)
	var core []string
	for _, d := range ds {
		if d.Extra != "" {
			return true, true, d.Extra
		}
		for _, v := range d.Core {
			if !slices.Contains(core, v) {
				core = append(core, v)
			}
		}
	}
	knowledge.SortCore(core)
	if !p.Version.Known() {
		return true, true, ""
	}
	v := p.Version
	// the table version of the same stable branch decides; between
	// branches, and past the newest, only an absence everywhere is certain
	if tv := knowledge.Branch(v); tv != "" {
		return slices.Contains(core, tv), true, strings.Join(core, ", ")
	}
	first, oldest := knowledge.OldestCore()
	if v.Less(oldest) && !slices.Contains(core, first) {
		return false, true, strings.Join(core, ", ")
	}
	return true, false, strings.Join(core, ", ")
}

// loadsUnknownModule reports whether the tree loads a dynamic module whose
// directives the table may not have.
func (p *Pass) loadsUnknownModule() bool {
	for _, m := range p.loadedModules() {
		if !knownModuleFile[m] {
			return true
		}
	}
	return false
}

// knownModuleFile are the dynamic modules whose directives the table has.
var knownModuleFile = map[string]bool{
	"ngx_http_geoip_module": true, "ngx_http_image_filter_module": true, "ngx_http_xslt_filter_module": true,
	"ngx_mail_module": true, "ngx_stream_module": true, "ngx_stream_geoip_module": true, "ngx_http_perl_module": true,
	"ngx_http_auth_pam_module": true, "ngx_http_dav_ext_module": true, "ngx_http_echo_module": true,
	"ngx_http_fancyindex_module": true, "ngx_http_geoip2_module": true, "ngx_stream_geoip2_module": true,
	"ngx_http_headers_more_filter_module": true, "ngx_http_lua_module": true, "ngx_http_ndk_module": true,
	"ndk_http_module": true, "ngx_http_subs_filter_module": true, "ngx_http_upstream_fair_module": true,
	"ngx_rtmp_module": true,
}

// suggest returns the known directive nearest to name, within two edits.
func suggest(name string) string {
	if s, ok := suggestions.Load(name); ok {
		return s.(string)
	}
	s := nearestName(name)
	suggestions.Store(name, s)
	return s
}

// suggestions remembers suggest's answers: a tree that misspells one name
// a thousand times asks a thousand times, and each answer compares the
// name with every directive nginxtune knows.
var suggestions sync.Map

func nearestName(name string) string {
	best, bestD := "", 3
	for _, n := range knowledge.Names() {
		if abs(len(n)-len(name)) >= bestD {
			continue
		}
		if d := editDistance(name, n, bestD); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is Levenshtein's distance, giving up at limit.
func editDistance(a, b string, limit int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if low >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// runLanguage runs the four language rules in one walk of the tree: the
// first of them to run checks every directive for all that are enabled,
// so a large tree is walked once, not four times.
func runLanguage(p *Pass) {
	first := false
	p.lang().once.Do(func() { first = true })
	if !first {
		return
	}
	unknown, context, args, dup := p.For("unknown-directive"), p.For("directive-context"), p.For("directive-args"), p.For("directive-duplicate")
	var firsts blockFirsts
	zoneFirsts := map[zoneKey]*parser.Directive{}
	var lastC *parser.Context
	var lc langCtx
	var rows []knowledge.Directive // argsAt's rows, one array for every directive
	// the table's answers by the name's number (Pass.VisitNames), not
	// looked up by name for every directive
	ids, names := p.VisitNames()
	infos := make([]*nameInfo, len(names))
	for vi, v := range p.Visits() {
		d, c := v.D, v.C
		if c != lastC {
			lastC = c
			lc.key = engine.ContextKey(c)
			lc.bit = knowledge.ContextBit(lc.key)
			lc.certain = certainContext(c)
			firsts.enter(c)
		}
		if p.Extra[d.Name] {
			continue
		}
		in := infos[ids[vi]]
		if in == nil {
			in = p.info(d.Name)
			infos[ids[vi]] = in
		}
		if unknown != nil {
			unknownAt(unknown, d, c, lc, in)
		}
		if context != nil {
			contextAt(context, d, c, lc, in)
		}
		if args != nil {
			rows = argsAt(args, d, c, lc, in, rows[:0])
		}
		if dup != nil && d.Name != "include" && lc.key != "" && in.once(lc.bit, lc.certain) {
			if f := firsts.first(in, d); f != nil {
				diag := dup.Diag(d, "%q is duplicate: nginx -t fails; the first is at %s", d.Name, where(f))
				diag.Related = []finding.Related{engine.RelatedTo(f, "the first "+d.Name)}
				dup.Report(diag)
				continue
			}
		}
		if dup != nil && (d.Name == "limit_req" || d.Name == "limit_conn") && lc.key != "" {
			// one zone once per block, each zone may be named in a line
			// of its own ("is duplicate", ngx_http_limit_req,
			// ngx_http_limit_conn)
			if z := limitZone(d); z != "" {
				k := zoneKey{c, d.Name, z}
				if f, ok := zoneFirsts[k]; ok {
					diag := dup.Diag(d, "%q is duplicate for zone %q: nginx -t fails; the first is at %s", d.Name, engine.Clip(z), where(f))
					diag.Related = []finding.Related{engine.RelatedTo(f, "the first "+d.Name+" of the zone")}
					dup.Report(diag)
					continue
				}
				zoneFirsts[k] = d
			}
		}
	}
}

// blockFirsts holds, for each block of the walk still open (the blocks
// around the directive the walk is at), the first directive of each name
// the block may hold once: a walk meets a block's directives with its
// context, and a nested block's between them; once the walk is past a
// block, it never meets it again. One map per run keyed by block and name
// held an entry for each such directive of the tree.
type blockFirsts struct {
	open []blockFrame
	used int // open[:used] are the open blocks, outermost first
}

// blockFrame is one open block: its context and the firsts of its names,
// in a list while short, then in a map.
type blockFrame struct {
	c     *parser.Context
	names []*nameInfo
	dirs  []*parser.Directive
	m     map[*nameInfo]*parser.Directive
}

// blockListMax is the number of names a block's list holds before a map
// takes over (a long http level or map of names).
const blockListMax = 16

// enter is called when the walk meets a directive of c after one of
// another context: c is an open block the walk returns to, or a new block.
func (b *blockFirsts) enter(c *parser.Context) {
	depth := len(c.Blocks)
	for b.used > 0 {
		top := &b.open[b.used-1]
		if top.c == c {
			return
		}
		if len(top.c.Blocks) < depth {
			break
		}
		b.used-- // a block the walk is past
	}
	if b.used == len(b.open) {
		b.open = append(b.open, blockFrame{})
	}
	f := &b.open[b.used]
	b.used++
	f.c, f.names, f.dirs, f.m = c, f.names[:0], f.dirs[:0], nil
}

// first returns the first directive of in's name in the block the walk is
// in, or nil and d becomes it.
func (b *blockFirsts) first(in *nameInfo, d *parser.Directive) *parser.Directive {
	f := &b.open[b.used-1]
	if f.m != nil {
		if x, ok := f.m[in]; ok {
			return x
		}
		f.m[in] = d
		return nil
	}
	for i, n := range f.names {
		if n == in {
			return f.dirs[i]
		}
	}
	if len(f.names) == blockListMax {
		f.m = make(map[*nameInfo]*parser.Directive, 2*blockListMax)
		for i, n := range f.names {
			f.m[n] = f.dirs[i]
		}
		f.m[in] = d
		return nil
	}
	f.names, f.dirs = append(f.names, in), append(f.dirs, d)
	return nil
}

// zoneKey is a limit_req or limit_conn of one zone in one block.
type zoneKey struct {
	c          *parser.Context
	name, zone string
}

// limitZone is the zone a limit_req (zone=NAME) or limit_conn (its first
// argument) names, "" when a variable or template makes it unknown.
func limitZone(d *parser.Directive) string {
	z := ""
	if d.Name == "limit_conn" {
		z = d.Arg(0)
	} else {
		for _, a := range d.Args {
			if v, ok := strings.CutPrefix(a.Value, "zone="); ok {
				z = v
			}
		}
	}
	if strings.Contains(z, "$") || templated(z) {
		return ""
	}
	return z
}

// mayBeTemplated reports whether src[start:end] holds a byte that
// templated looks for ('%', '{', '<', '@'): without one it cannot be a
// template, and the text need not be copied to ask.
func mayBeTemplated(src []byte, start, end int) bool {
	start, end = max(0, min(start, len(src))), max(0, min(end, len(src)))
	for _, b := range src[start:max(start, end)] {
		switch b {
		case '%', '{', '<', '@':
			return true
		}
	}
	return false
}

// langCtx is the context of a run of directives in one block.
type langCtx struct {
	key     string
	bit     uint32
	certain bool
}

func unknownAt(p *Pass, d *parser.Directive, c *parser.Context, lc langCtx, in *nameInfo) {
	if in.knownDone && in.known && in.lack == "" {
		return
	}
	if d.Name == "" || ownedElsewhere[d.Name] || lc.key == "" && c.In() != parser.CtxMain {
		return
	}
	if !in.knownDone {
		in.known, in.certain, in.where = p.knownIn(d.Name, in.all)
		if in.known && !p.Version.Known() {
			// no version given: the table's versions that lack it refuse it
			in.has, in.lack = in.versionsAllowing(^uint32(0))
		}
		in.knownDone = true
	}
	ds, known, certain, where := in.all, in.known, in.certain, in.where
	if known {
		if in.lack != "" {
			p.ReportSeverityf(finding.Info, d, "%q is in nginx %s but not %s, of the versions nginxtune knows: nginx -t fails there with \"unknown directive\"", d.Name, in.has, in.lack)
		}
		return
	}
	switch {
	case len(ds) > 0 && certain:
		p.Reportf(d, "unknown directive %q in nginx %s: the nginx sources nginxtune knows have it in %s", d.Name, p.Version, where)
	case len(ds) > 0:
	case !certain:
	default:
		msg := fmt.Sprintf("unknown directive %q: nginx -t fails with \"unknown directive\"", engine.Clip(d.Name))
		hint := ""
		if s := suggest(d.Name); s != "" {
			hint = fmt.Sprintf("; did you mean %q?", s)
		}
		last, _ := knowledge.NewestCore()
		switch {
		case strings.HasPrefix(d.Name, "js_"):
			p.ReportSeverityf(finding.Warning, d, "%s; js_* directives come from njs (libnginx-mod-js), whose source nginxtune's table lacks: list it under directives: in .nginxtune.yaml", msg)
		case p.loadsUnknownModule():
			p.ReportSeverityf(finding.Warning, d, "%s%s; if a module loaded with load_module provides it, list it under directives: in .nginxtune.yaml", msg, hint)
		case p.Version.Known() && knowledge.MustVersion(last).Less(p.Version):
			p.ReportSeverityf(finding.Warning, d, "%s on nginx up to %s (nginxtune's table ends there; a directive added since is not in it)%s", msg, last, hint)
		case hint == "":
			// far from every name nginx and the known modules have: a
			// module nginxtune does not know is likelier than a typo
			p.ReportSeverityf(finding.Warning, d, "%s, unless a module nginxtune does not know provides it (no known directive is near the name): list third-party directives under directives: in .nginxtune.yaml", msg)
		default:
			p.Reportf(d, "%s%s", msg, hint)
		}
	}
}

func contextAt(p *Pass, d *parser.Directive, c *parser.Context, lc langCtx, in *nameInfo) {
	ctx := lc.key
	if ctx == "" || len(in.ds) == 0 {
		return
	}
	if !lc.certain {
		blockContextAt(p, d, c, in)
		return
	}
	if in.allowed&(lc.bit|1<<31) != 0 {
		// no version given: some of the table's versions allow it here,
		// those that have it and do not refuse it
		if has, lack := in.versionsAllowing(lc.bit | 1<<31); lack != "" {
			p.ReportSeverityf(finding.Info, d, "%q is allowed in %s in nginx %s but not %s, of the versions nginxtune knows: nginx -t fails there with \"directive is not allowed here\"",
				d.Name, contextTitle[ctx], has, lack)
		}
		return
	}
	list := in.contextList()
	if beyond, newest := p.beyondTable(); beyond && p.Version.Known() {
		p.ReportSeverityf(finding.Warning, d, "%q is not allowed in %s up to nginx %s (nginx -t fails with \"directive is not allowed here\"); it belongs in %s; newer versions may allow it",
			d.Name, contextTitle[ctx], newest, strings.Join(list, ", "))
		return
	}
	// a newer nginx may allow it there: say which, so the finding reads
	// as the version question it is
	var newer []string
	seen := map[string]bool{}
	for _, x := range in.all {
		if x.Mask&(lc.bit|1<<31) == 0 {
			continue
		}
		for _, v := range x.Core {
			if !seen[v] && p.Version.Less(knowledge.MustVersion(v)) {
				seen[v] = true
				newer = append(newer, v)
			}
		}
	}
	if len(newer) > 0 {
		sort.Slice(newer, func(i, j int) bool { return knowledge.MustVersion(newer[i]).Less(knowledge.MustVersion(newer[j])) })
		p.Reportf(d, "%q is not allowed in %s in nginx %s: nginx -t fails with \"directive is not allowed here\"; nginx %s allows it there (here it belongs in %s)",
			d.Name, contextTitle[ctx], p.Version, newer[0], strings.Join(list, ", "))
		return
	}
	p.Reportf(d, "%q is not allowed in %s: nginx -t fails with \"directive is not allowed here\"; it belongs in %s",
		d.Name, contextTitle[ctx], strings.Join(list, ", "))
}

// contextList names the contexts the table's rows allow the name in.
func (i *nameInfo) contextList() []string {
	allowed := map[string]bool{}
	for _, x := range i.ds {
		for _, k := range x.Contexts {
			allowed[contextTitle[k]] = true
		}
	}
	var list []string
	for k := range allowed {
		if k != "" {
			list = append(list, k)
		}
	}
	sort.Strings(list)
	return list
}

// blockContexts are the contexts a block of each name can be, whatever
// encloses it: a fragment read alone is judged by the block a directive
// stands in when the file itself opens that block.
var blockContexts = map[string][]string{
	"http": {"http"}, "events": {"events"}, "stream": {"stream"}, "mail": {"mail"},
	"server":   {"server", "stream-server", "mail-server", "rtmp-server"},
	"location": {"location"}, "upstream": {"upstream", "stream-upstream"},
	"if": {"if-server", "if-location"}, "limit_except": {"limit_except"},
}

// blockContextAt judges a directive of a fragment whose context is a guess
// by the block around it, which a file of the tree opens (the guess is
// only what encloses the fragment's first line): a
// directive no context of such a block allows is refused wherever the
// fragment is included ("limit_req_zone" in a server block).
func blockContextAt(p *Pass, d *parser.Directive, c *parser.Context, in *nameInfo) {
	if len(c.Blocks) == 0 {
		return // the guessed context itself: not judged
	}
	b := c.Blocks[len(c.Blocks)-1]
	keys := blockContexts[b.Name]
	if len(keys) == 0 {
		return
	}
	var mask uint32
	for _, k := range keys {
		mask |= knowledge.ContextBit(k)
	}
	if in.allowed&(mask|1<<31) != 0 {
		return
	}
	list := strings.Join(in.contextList(), ", ")
	if beyond, newest := p.beyondTable(); beyond && p.Version.Known() {
		p.ReportSeverityf(finding.Warning, d, "%q is not allowed in a %s block up to nginx %s (nginx -t fails with \"directive is not allowed here\" wherever this file is included); it belongs in %s; newer versions may allow it",
			d.Name, b.Name, newest, list)
		return
	}
	p.Reportf(d, "%q is not allowed in a %s block: nginx -t fails with \"directive is not allowed here\" wherever this file is included; it belongs in %s",
		d.Name, b.Name, list)
}

// versionsAllowing names, when no version is given, the table's versions
// that have the name and allow it in one of the contexts of mask (all:
// any context) and those that have it and do not; "" and "" when a
// third-party module's row allows it, or every version does.
func (i *nameInfo) versionsAllowing(mask uint32) (has, lack string) {
	if i.perVersion == nil || i.extraMask&mask != 0 {
		return "", ""
	}
	var yes, no uint64 // bit k: version k of the table
	for k, m := range i.perVersion {
		switch {
		case m&mask != 0:
			yes |= 1 << k
		case m != 0 || mask == ^uint32(0):
			no |= 1 << k
		}
	}
	if no == 0 || yes == 0 {
		return "", ""
	}
	var y, n []string
	for k, v := range knowledge.CoreVersions() {
		if yes&(1<<k) != 0 {
			y = append(y, v)
		} else if no&(1<<k) != 0 {
			n = append(n, v)
		}
	}
	return strings.Join(y, ", "), strings.Join(n, ", ")
}

// beyondTable reports whether the linted version is unknown or newer than
// the newest nginx the directive table covers, so that a directive's
// absence from the table is no proof; newest names that version.
func (p *Pass) beyondTable() (bool, string) {
	newest, n := knowledge.NewestCore()
	return !p.Version.Known() || p.Version.Major > n.Major || p.Version.Major == n.Major && p.Version.Minor > n.Minor, newest
}

// argsAt checks d's arguments against the table's rows for its context.
// rows is an empty slice whose array argsAt may use for those rows (they
// are not kept past the call); it returns the array, for the next call.
func argsAt(p *Pass, d *parser.Directive, c *parser.Context, lc langCtx, in *nameInfo, rows []knowledge.Directive) []knowledge.Directive {
	if lc.key == "" && c.In() != parser.CtxMain || d.RawBody() != "" || len(in.ds) == 0 {
		return rows
	}
	maybe := false // whether an argument may hold a template's placeholder
	if n := len(d.Args); n > 0 {
		maybe = mayBeTemplated(d.File.Src, int(d.Args[0].Offset), int(d.Args[n-1].Offset)+len(d.Args[n-1].Raw))
		if maybe && templated(d.File.SrcText(int(d.Args[0].Offset), int(d.Args[n-1].Offset)+len(d.Args[n-1].Raw))) {
			return rows // a template's placeholder ("<http or https>") splits into words
		}
	}
	n := len(d.Args)
	isFlagValue := n == 1 && in.anyFlag && (strings.EqualFold(d.Arg(0), "on") || strings.EqualFold(d.Arg(0), "off"))
	cr := in.rowsIn(lc, d.Name)
	if len(cr.rows) == 0 {
		return rows
	}
	first := &cr.rows[0]
	argsOK, blockOK, flagOK := false, false, false
	for i := range cr.rows {
		r := &cr.rows[i]
		argsOK = argsOK || r.Args.Accepts(n)
		blockOK = blockOK || r.Args.Block == (d.Block != nil)
		flagOK = flagOK || !r.Flag || n != 1 || isFlagValue
	}
	// a ";" missing: the next line's directive became arguments, and the
	// parser's syntax finding says so, once
	if d.Glued() && (!argsOK || !blockOK) {
		return rows
	}
	switch {
	case !blockOK && d.Block == nil:
		p.Reportf(d, "%q opens a block: nginx -t fails with 'directive \"%s\" has no opening \"{\"'", d.Name, d.Name)
	case !blockOK:
		p.Reportf(d, "%q takes no block: nginx -t fails with 'directive \"%s\" is not terminated by \";\"'", d.Name, d.Name)
	case !argsOK:
		msg := fmt.Sprintf("invalid number of arguments in %q: %d given, it takes %s", d.Name, n, first.Args)
		if n > 0 && d.Args[n-1].Line > d.Line {
			msg += fmt.Sprintf("; a \";\" is probably missing on line %d, so nginx reads the next line as more arguments", d.Line)
		}
		p.Reportf(d, "%s", msg)
	case !flagOK:
		p.ReportArgf(d, 0, "invalid value %q in %q: it must be \"on\" or \"off\"", d.Arg(0), d.Name)
	default:
		valuesWith(p, d, c, cr, maybe)
	}
	return rows
}

// ctxRows are a name's rows of the table for one context (all of them
// where the context is a guess), and what directive-args reads of them:
// the same for every directive of the name there, so worked out once.
type ctxRows struct {
	bit     uint32 // the context's bit; 0 where it is a guess
	certain bool
	rows    []knowledge.Directive
	// for valuesWith, where the rows list values (nameInfo.valued): the
	// slot every row has (rowsSlot), else the words (rowsValues)
	slot    string
	values  []string
	bitmask bool
	// the name's check beyond the table (valueChecks), when it has one
	check    valueCheck
	hasCheck bool
}

// rowsIn returns the rows of in's name for the context of lc.
func (in *nameInfo) rowsIn(lc langCtx, name string) *ctxRows {
	bit := lc.bit
	if !lc.certain {
		bit = 0
	}
	for _, cr := range in.byCtx {
		if cr.bit == bit && cr.certain == lc.certain {
			return cr
		}
	}
	cr := &ctxRows{bit: bit, certain: lc.certain}
	for _, r := range in.ds {
		if lc.certain && r.Mask&(bit|1<<31) == 0 {
			continue
		}
		cr.rows = append(cr.rows, r)
	}
	if in.valued && len(cr.rows) > 0 {
		if cr.slot = rowsSlot(cr.rows); cr.slot == "" {
			cr.values, cr.bitmask = rowsValues(cr.rows)
		}
	}
	if len(cr.rows) > 0 {
		cr.check, cr.hasCheck = valueChecks[name]
	}
	in.byCtx = append(in.byCtx, cr)
	return cr
}
