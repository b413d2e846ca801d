// Package knowledge holds facts about nginx that rules, templates and
// commands share. It imports nothing of nginxtune.
//
// directives.tsv is generated from nginx's own source code (the
// ngx_command_t arrays of the core and every module) by knowledge/gen:
// "make directives" fetches the sources from Debian and regenerates it.
package knowledge

import (
	"cmp"
	_ "embed"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed directives.tsv
var directivesTSV string

// Directive is one way a directive can be written: where, with how many
// arguments, and where it comes from. A name can have several (server in
// http, upstream, stream and mail).
type Directive struct {
	Name     string
	Contexts []string // context keys: main, events, http, server, location, if-server, ...
	// Mask is Contexts as bits (ContextBit), for the lookups of a large tree.
	Mask   uint32
	Args   Args
	Once   bool // nginx refuses it twice in one block ("is duplicate")
	Flag   bool // takes "on" or "off"
	Module string
	// Values are the words an enum (one argument) or bitmask (each
	// argument) takes, as nginx's source lists them; nginx compares them
	// ignoring case. Empty for other directives.
	Values  []string
	Bitmask bool
	// Slot names the standard handler that parses the argument: "size",
	// "off", "msec", "sec", "num" or "bufs"; "" for others.
	Slot string
	// Default is the value nginx uses when the directive is not written,
	// as its documentation writes it ("60s", "1m", "off"), read from the
	// module's merge or init function; "" where the source computes it in
	// code rather than giving a plain value.
	Default string
	// Core lists the nginx versions whose source has it; Extra names the
	// third-party module (with its version) that provides it.
	Core  []string
	Extra string
}

// Args is the argument-count specification of a directive.
type Args struct {
	Take  [8]bool // Take[n]: exactly n arguments allowed (0..7)
	Flag  bool    // one argument, on or off
	More1 bool    // one or more
	More2 bool    // two or more
	Any   bool    // any number
	Block bool    // opens a block
}

// Accepts reports whether n arguments are allowed, as ngx_conf_handler
// checks them.
func (a Args) Accepts(n int) bool {
	switch {
	case a.Any:
		return true
	case a.Flag:
		return n == 1
	case a.More1:
		return n >= 1
	case a.More2:
		return n >= 2
	case n < len(a.Take):
		return a.Take[n]
	}
	return false
}

// String describes the allowed argument counts for messages.
func (a Args) String() string {
	switch {
	case a.Any:
		return "any number of arguments"
	case a.Flag:
		return "on or off"
	case a.More1:
		return "one or more arguments"
	case a.More2:
		return "two or more arguments"
	}
	var ns []string
	for i, ok := range a.Take {
		if ok {
			ns = append(ns, strconv.Itoa(i))
		}
	}
	if len(ns) == 1 && ns[0] == "0" {
		return "no arguments"
	}
	s := strings.Join(ns, " or ")
	if s == "1" {
		return "1 argument"
	}
	return s + " arguments"
}

var (
	rows         string // the table's rows, sorted by name (the generator sorts them)
	coreVersions []string
	coreParsed   []Version // coreVersions parsed, in the same order
	allCore      string    // a row's "from" of every core version, oldest first
	modules      []string
	loadOnce     sync.Once

	parsedMu sync.Mutex
	parsed   = map[string][]Directive{}
)

// load reads the table's header on first use: the sources (and so the
// nginx versions) and the context keys. A run that needs no directive (gen,
// --version) does not pay even that. The rows are not indexed: a lookup is
// a binary search of the sorted text, and a directive's row is parsed when
// it is first looked up, so a hook that lints a small tree reads a few
// dozen rows of the 1,200.
func load() { loadOnce.Do(readHeader) }

func readHeader() {
	rest := directivesTSV
	for strings.HasPrefix(rest, "#") {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if v, ok := strings.CutPrefix(line, "# sources: "); ok {
			modules = make([]string, 0, strings.Count(v, ", ")+1)
			for v != "" {
				var src string
				src, v, _ = strings.Cut(v, ", ")
				if v, ok := strings.CutPrefix(src, "nginx-"); ok {
					coreVersions = append(coreVersions, v)
				} else {
					modules = append(modules, src)
				}
			}
		}
		if v, ok := strings.CutPrefix(line, "# contexts: "); ok {
			// sized: filling a map that grows as it goes took a third
			// of reading the header
			contextBits = make(map[string]uint32, strings.Count(v, ",")+1)
			for v != "" {
				var c string
				c, v, _ = strings.Cut(v, ",")
				addContext(c)
			}
		}
	}
	rows = rest
	sort.Slice(coreVersions, func(i, j int) bool { return versionLess(coreVersions[i], coreVersions[j]) })
	coreParsed = make([]Version, len(coreVersions))
	for i, v := range coreVersions {
		coreParsed[i] = MustVersion(v)
	}
	allCore = "nginx-" + strings.Join(coreVersions, ",nginx-")
}

// rowsOf returns the rows of one directive, as one string of lines.
func rowsOf(name string) string { return sortedRows(rows, name) }

// sortedRows returns the rows of table (lines sorted by their first
// tab-separated field, the table's header cut off) whose first field is
// name, as one string of lines: a binary search for the first row whose
// name is not below name, then the run of rows with that name. A probe in
// the middle of the range moves forward to the next row start (a
// vectorised byte search), not back to the start of the row it falls in (a
// byte-at-a-time one). directives.tsv, defaults.tsv and variables.tsv are
// read this way: a run asks of a few dozen names, and indexing a table's
// hundreds of rows in a map cost a pre-commit hook more than all its
// look-ups.
func sortedRows(table, name string) string {
	lo, hi := 0, len(table) // row starts (or the end); the answer is in [lo, hi]
	for lo < hi {
		at := lo // the row to compare: the first starting at or after the middle
		if mid := lo + (hi-lo)/2; mid > lo {
			at = nextRow(table, mid-1)
		}
		if at >= hi {
			at = lo // no row starts in the upper half: compare the first one
		}
		if rowNameCmp(table, at, name) < 0 {
			lo = nextRow(table, at)
		} else {
			hi = at
		}
	}
	end := lo
	for end < len(table) && rowNameCmp(table, end, name) == 0 {
		end = nextRow(table, end)
	}
	return table[lo:end]
}

// rowNameCmp compares the name of the row of table starting at at
// (rowName's: up to its first tab, or the whole line with its newline)
// with name, as strings.Compare does, without cutting the row first (half
// of what a search cost).
func rowNameCmp(table string, at int, name string) int {
	for k := 0; ; k++ {
		p := at + k
		if p == len(table) || table[p] == '\t' { // the row's name ends
			if k == len(name) {
				return 0
			}
			return -1
		}
		switch c := table[p]; {
		case k == len(name):
			return 1
		case c != name[k]:
			if c < name[k] {
				return -1
			}
			return 1
		case c == '\n': // a row without a tab: its name ends with the newline
			if k+1 == len(name) {
				return 0
			}
			return -1
		}
	}
}

// nextRow returns the start of the row of table after the one starting at i.
func nextRow(table string, i int) int {
	if n := strings.IndexByte(table[i:], '\n'); n >= 0 {
		return i + n + 1
	}
	return len(table)
}

// tableBody is a table without the comment lines ("#") that head it.
func tableBody(tsv string) string {
	for strings.HasPrefix(tsv, "#") {
		_, tsv, _ = strings.Cut(tsv, "\n")
	}
	return tsv
}

func rowName(line string) string {
	name, _, _ := strings.Cut(line, "\t")
	return name
}

// eachRow calls fn for every row of text (rows, or a part of it).
func eachRow(text string, fn func(string)) {
	for text != "" {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		if line != "" {
			fn(line)
		}
	}
}

// parseRow reads one line of the table: name, contexts, args, once, flag,
// module, from, values and default, separated by tabs. A default the line
// leaves empty is defaults.tsv's (defaultIn), given the row's from.
func parseRow(line string) (d Directive, from string, ok bool) {
	var f [9]string
	rest := line
	for i := range f {
		var ok bool
		if f[i], rest, ok = strings.Cut(rest, "\t"); !ok && i < len(f)-2 {
			return Directive{}, "", false
		} else if !ok {
			break
		}
	}
	if strings.Contains(f[8], "\t") {
		return Directive{}, "", false
	}
	d = Directive{Name: f[0], Once: f[3] == "1", Flag: f[4] == "1", Module: f[5], Default: f[8]}
	if kind, words, ok := strings.Cut(f[7], ":"); ok && words != "" {
		if kind == "slot" {
			d.Slot = words
		} else {
			d.Values, d.Bitmask = strings.Split(words, "|"), kind == "bitmask"
		}
	}
	d.Contexts = strings.Split(f[1], ",")
	for _, c := range d.Contexts {
		d.Mask |= contextBits[c]
		if c == "any" {
			d.Mask |= 1 << 31
		}
	}
	for rest := f[2]; rest != ""; {
		var a string
		a, rest, _ = strings.Cut(rest, "|")
		switch a {
		case "NOARGS":
			d.Args.Take[0] = true
		case "FLAG":
			d.Args.Flag = true
		case "1MORE":
			d.Args.More1 = true
		case "2MORE":
			d.Args.More2 = true
		case "ANY":
			d.Args.Any = true
		case "BLOCK":
			d.Args.Block = true
		default:
			if n, err := strconv.Atoi(strings.TrimPrefix(a, "TAKE")); err == nil && n < len(d.Args.Take) {
				d.Args.Take[n] = true
			}
		}
	}
	if f[6] == allCore && f[6] != "" {
		// most rows are of every version of the table, written as the
		// header names them: no need to cut them apart
		d.Core = append([]string(nil), coreVersions...)
		return d, f[6], true
	}
	if f[6] != "" {
		d.Core = make([]string, 0, strings.Count(f[6], ",")+1) // one allocation, not one per doubling
	}
	for rest := f[6]; rest != ""; {
		var from string
		from, rest, _ = strings.Cut(rest, ",")
		if v, ok := strings.CutPrefix(from, "nginx-"); ok {
			d.Core = append(d.Core, v)
		} else {
			d.Extra = from
		}
	}
	if len(d.Core) == 0 {
		d.Core = nil // a third-party module's row, as before the list was sized
	}
	return d, f[6], true
}

// contextBits numbers the context keys of the table; filled from the
// table's header when it is indexed and only read afterwards, so lookups are safe from several goroutines.
var contextBits = map[string]uint32{}

// ContextBit returns the bit of a context key ("any" matches every key); a
// key no directive of the table names has none.
func ContextBit(key string) uint32 {
	if key == "any" {
		return 1 << 31
	}
	load()
	return contextBits[key]
}

// addContext numbers a context key while the table is parsed.
func addContext(key string) uint32 {
	if key == "any" {
		return 1 << 31
	}
	b, ok := contextBits[key]
	if !ok && len(contextBits) < 31 {
		b = 1 << len(contextBits)
		contextBits[key] = b
	}
	return b
}

// Allows reports whether the directive may stand in a context.
func (d Directive) Allows(key string) bool {
	return d.Mask&(ContextBit(key)|1<<31) != 0
}

// Lookup returns every way a directive can be written, nil for a name no
// source knows. Each name's answer is kept, an unknown name's too: the
// rules ask of the same directive many times over.
func Lookup(name string) []Directive {
	load()
	parsedMu.Lock()
	defer parsedMu.Unlock()
	if ds, ok := parsed[name]; ok {
		return ds
	}
	text := rowsOf(name)
	// the name's rows of defaults.tsv, searched for once, when a row
	// leaves its default to them
	defaults, searched := "", false
	var ds []Directive
	if n := strings.Count(text, "\n"); n > 0 {
		ds = make([]Directive, 0, n)
	}
	eachRow(text, func(l string) {
		if d, from, ok := parseRow(l); ok {
			if d.Default == "" {
				if !searched {
					defaults, searched = defaultsOf(name), true
				}
				d.Default = defaultIn(defaults, d.Module, from)
			}
			ds = append(ds, d)
		}
	})
	if len(ds) == 0 {
		ds = nil // no row: as before the list was sized
	}
	parsed[name] = ds
	return ds
}

// Has reports whether the table knows the directive, without parsing its
// rows when they were not asked for yet.
func Has(name string) bool {
	load()
	parsedMu.Lock()
	ds := parsed[name]
	parsedMu.Unlock()
	return len(ds) > 0 || rowsOf(name) != ""
}

// Names returns every directive name, sorted.
func Names() []string {
	load()
	out := make([]string, 0, 1200)
	eachRow(rows, func(l string) {
		if n := rowName(l); len(out) == 0 || out[len(out)-1] != n {
			out = append(out, n)
		}
	})
	return out
}

// CoreVersions lists the nginx versions the table was generated from,
// oldest first.
func CoreVersions() []string {
	load()
	return append([]string(nil), coreVersions...)
}

// Branch returns the table's version of v's stable branch that is not newer
// than v (1.22.1 for 1.22.1 to 1.22.x), "" when the table has none: the
// rules ask it of every directive, so the table's versions are parsed once.
func Branch(v Version) string {
	load()
	for i, t := range coreParsed {
		if t.Major == v.Major && t.Minor == v.Minor && !v.Less(t) {
			return coreVersions[i]
		}
	}
	return ""
}

// OldestCore and NewestCore return the first and the last nginx version of
// the table, as written and parsed.
func OldestCore() (string, Version) {
	load()
	return coreVersions[0], coreParsed[0]
}

func NewestCore() (string, Version) {
	load()
	n := len(coreVersions) - 1
	return coreVersions[n], coreParsed[n]
}

// SortCore sorts versions of the table (a Directive's Core) oldest first
// (a version not of the table first of all). The lists are a handful of
// versions: an insertion sort, which is what sorting a list of up to 12
// does, without a comparison function to call.
func SortCore(vs []string) {
	load()
	if len(vs) > 12 {
		slices.SortFunc(vs, func(a, b string) int { return cmp.Compare(coreRank(a), coreRank(b)) })
		return
	}
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && coreRank(vs[j]) < coreRank(vs[j-1]); j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
}

// coreRank is a core version's place in coreVersions, 0 for another: the
// table has a handful, fewer than a map's look-up costs.
func coreRank(v string) int {
	for i, c := range coreVersions {
		if c == v {
			return i
		}
	}
	return 0
}

// Modules lists the third-party modules (with their versions) the table
// was generated from.
func Modules() []string {
	load()
	return append([]string(nil), modules...)
}

// InCore reports whether the nginx source of version v has the directive.
func (d Directive) InCore(v string) bool {
	for _, c := range d.Core {
		if c == v {
			return true
		}
	}
	return false
}

func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}
