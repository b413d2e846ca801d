// Package knowledge holds facts about nginx that rules, templates and
// commands share. It imports nothing of nginxtune.
//
// directives.tsv is generated from nginx's own source code (the
// ngx_command_t arrays of the core and every module) by knowledge/gen:
// "make directives" fetches the sources from Debian and regenerates it.
package knowledge

import (
	_ "embed"
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
	coreParsed   []Version      // coreVersions parsed, in the same order
	coreRank     map[string]int // a core version's place in coreVersions
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
			for _, src := range strings.Split(v, ", ") {
				if v, ok := strings.CutPrefix(src, "nginx-"); ok {
					coreVersions = append(coreVersions, v)
				} else {
					modules = append(modules, src)
				}
			}
		}
		if v, ok := strings.CutPrefix(line, "# contexts: "); ok {
			for _, c := range strings.Split(v, ",") {
				addContext(c)
			}
		}
	}
	rows = rest
	sort.Slice(coreVersions, func(i, j int) bool { return versionLess(coreVersions[i], coreVersions[j]) })
	coreParsed = make([]Version, len(coreVersions))
	coreRank = make(map[string]int, len(coreVersions))
	for i, v := range coreVersions {
		coreParsed[i] = MustVersion(v)
		coreRank[v] = i
	}
}

// rowsOf returns the rows of one directive, as one string of lines: a
// binary search for the first row whose name is not below name, then the
// run of rows with that name. A probe in the middle of the range moves
// forward to the next row start (a vectorised byte search), not back to the
// start of the row it falls in (a byte-at-a-time one).
func rowsOf(name string) string {
	lo, hi := 0, len(rows) // row starts (or the end); the answer is in [lo, hi]
	for lo < hi {
		at := lo // the row to compare: the first starting at or after the middle
		if mid := lo + (hi-lo)/2; mid > lo {
			at = nextRow(mid - 1)
		}
		if at >= hi {
			at = lo // no row starts in the upper half: compare the first one
		}
		if end := nextRow(at); rowName(rows[at:end]) < name {
			lo = end
		} else {
			hi = at
		}
	}
	end := lo
	for end < len(rows) {
		next := nextRow(end)
		if rowName(rows[end:next]) != name {
			break
		}
		end = next
	}
	return rows[lo:end]
}

// nextRow returns the start of the row after the one starting at i.
func nextRow(i int) int {
	if n := strings.IndexByte(rows[i:], '\n'); n >= 0 {
		return i + n + 1
	}
	return len(rows)
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
// module, from, values and default, separated by tabs.
func parseRow(line string) (Directive, bool) {
	var f [9]string
	rest := line
	for i := range f {
		var ok bool
		if f[i], rest, ok = strings.Cut(rest, "\t"); !ok && i < len(f)-2 {
			return Directive{}, false
		} else if !ok {
			break
		}
	}
	if strings.Contains(f[8], "\t") {
		return Directive{}, false
	}
	d := Directive{Name: f[0], Once: f[3] == "1", Flag: f[4] == "1", Module: f[5], Default: f[8]}
	if d.Default == "" {
		d.Default = defaultComputed(d.Name, d.Module, f[6])
	}
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
	for rest := f[6]; rest != ""; {
		var from string
		from, rest, _ = strings.Cut(rest, ",")
		if v, ok := strings.CutPrefix(from, "nginx-"); ok {
			d.Core = append(d.Core, v)
		} else {
			d.Extra = from
		}
	}
	return d, true
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
	var ds []Directive
	eachRow(rowsOf(name), func(l string) {
		if d, ok := parseRow(l); ok {
			ds = append(ds, d)
		}
	})
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

// SortCore sorts versions of the table (a Directive's Core) oldest first.
func SortCore(vs []string) {
	load()
	sort.Slice(vs, func(i, j int) bool { return coreRank[vs[i]] < coreRank[vs[j]] })
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
