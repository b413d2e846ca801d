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
)

//go:embed directives.tsv
var directivesTSV string

// Directive is one way a directive can be written: where, with how many
// arguments, and where it comes from. A name can have several (server in
// http, upstream, stream and mail).
type Directive struct {
	Name     string
	Contexts map[string]bool // context keys: main, events, http, server, location, if-server, ...
	// Mask is Contexts as bits (ContextBit), for the lookups of a large tree.
	Mask   uint32
	Args   Args
	Once   bool // nginx refuses it twice in one block ("is duplicate")
	Flag   bool // takes "on" or "off"
	Module string
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
	byName       map[string][]Directive
	coreVersions []string
	sources      string
)

func init() {
	byName = map[string][]Directive{}
	seen := map[string]bool{}
	for _, line := range strings.Split(directivesTSV, "\n") {
		if strings.HasPrefix(line, "# sources: ") {
			sources = strings.TrimPrefix(line, "# sources: ")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			continue
		}
		d := Directive{Name: f[0], Contexts: map[string]bool{}, Once: f[3] == "1", Flag: f[4] == "1", Module: f[5]}
		for _, c := range strings.Split(f[1], ",") {
			d.Contexts[c] = true
			d.Mask |= ContextBit(c)
		}
		for _, a := range strings.Split(f[2], "|") {
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
		for _, from := range strings.Split(f[6], ",") {
			if v, ok := strings.CutPrefix(from, "nginx-"); ok {
				d.Core = append(d.Core, v)
				if !seen[v] {
					seen[v] = true
					coreVersions = append(coreVersions, v)
				}
			} else {
				d.Extra = from
			}
		}
		byName[d.Name] = append(byName[d.Name], d)
	}
	sort.Slice(coreVersions, func(i, j int) bool { return versionLess(coreVersions[i], coreVersions[j]) })
}

// contextBits numbers the context keys.
var contextBits = map[string]uint32{}

// ContextBit returns the bit of a context key ("any" matches every key).
func ContextBit(key string) uint32 {
	if key == "any" {
		return 1 << 31
	}
	b, ok := contextBits[key]
	if !ok {
		if len(contextBits) >= 31 {
			return 0
		}
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
// source knows.
func Lookup(name string) []Directive { return byName[name] }

// Names returns every directive name, sorted.
func Names() []string {
	out := make([]string, 0, len(byName))
	for n := range byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// CoreVersions lists the nginx versions the table was generated from,
// oldest first.
func CoreVersions() []string { return append([]string(nil), coreVersions...) }

// Sources names the source trees of the table.
func Sources() string { return sources }

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
