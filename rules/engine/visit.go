package engine

import (
	"slices"
	"strings"
	"sync"

	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// Visit is one directive in the place a walk of the tree meets it.
type Visit struct {
	D *parser.Directive
	C *parser.Context // shared by the directives of one block; do not modify
}

// visits walks the tree once and indexes every directive by name, so that a
// rule looks at the directives it cares about instead of walking the whole
// tree again. A file included from several places is visited once per place.
type visits struct {
	all    []Visit
	byName map[string][]int32 // visits by name, numbers into all
	// names are the tree's distinct names, numbered as the walk first
	// meets them, and nameID the number of each visit's name
	names  []string
	nameID []int32
	places map[*parser.Directive]int // how many places a directive is met in
	// arrays: those of all, nameID and byName's lists (collectInto)
	arrays visitArrays
	// full: the whole tree's visits, when these are a part of them
	// (RunIncremental): Places counts over the whole tree
	full *visits
	// rules run in parallel: what is computed on demand is computed once
	placesOnce sync.Once
	mu         sync.Mutex
	shared     map[any]*sharedValue // Shared's values
}

// sharedValue is one value of Shared, made once.
type sharedValue struct {
	once sync.Once
	v    any
}

// Shared returns the run's value for key, made by make the first time a
// rule asks for it: what several checks work out once per run, whichever
// runs first (rules run in parallel; make must not ask Shared for the same
// key). Use a key type of the caller's own, as with context.Context.
func (p *Pass) Shared(key any, make func() any) any {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	s := p.visits
	s.mu.Lock()
	e := s.shared[key]
	if e == nil {
		if s.shared == nil {
			s.shared = map[any]*sharedValue{}
		}
		e = &sharedValue{}
		s.shared[key] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.v = make() })
	return e.v
}

// Visits are the tree's directives in the order a walk meets them, each
// once per place it is met in; shared, not to be modified.
func (p *Pass) Visits() []Visit {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	return p.visits.all
}

// VisitNames numbers the tree's directive names: names holds each distinct
// name once, and ids[i] is the number of the name of Visits()[i]. A rule
// that asks something of every directive's name keeps its answers in a
// slice indexed by number instead of a map looked up per directive.
// Shared, not to be modified.
func (p *Pass) VisitNames() (ids []int32, names []string) {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	return p.visits.nameID, p.visits.names
}

// Places reports in how many places of the tree the walk meets d: more than
// one when its file is included from several places.
func (p *Pass) Places(d *parser.Directive) int {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	vs := p.visits
	if vs.full != nil {
		vs = vs.full
	}
	vs.placesOnce.Do(func() {
		vs.places = map[*parser.Directive]int{}
		for _, v := range vs.all {
			vs.places[v.D]++
		}
	})
	return vs.places[d]
}

func collect(t *loader.Tree) *visits { return collectInto(t, nil) }

// collectInto is collect into the arrays of spare (a run before's, which
// nothing reads any more; nil for none) where they are large enough.
func collectInto(t *loader.Tree, spare *visitArrays) *visits {
	// sized first: a large tree's list is then one allocation, not a
	// chain of doublings
	n := t.Visits()
	if spare == nil || cap(spare.all) < n || cap(spare.nameID) < n {
		spare = &visitArrays{all: make([]Visit, 0, n), nameID: make([]int32, 0, n)}
	}
	v := &visits{all: spare.all[:0]}
	// one map look-up a visit: each name gets a number as it is first
	// met, and the second pass goes by the numbers
	ids := map[string]int32{}
	var count []int
	nameID := spare.nameID[:0]
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		id, ok := ids[d.Name]
		if !ok {
			id = int32(len(count))
			ids[d.Name] = id
			count = append(count, 0)
		}
		count[id]++
		nameID = append(nameID, id)
		v.all = append(v.all, Visit{d, c})
		return true
	})
	// each name's list cut from one array at its exact length (appending
	// name by name grew and copied them)
	// what the walk left of the spare arrays would hold the last tree
	clear(v.all[len(v.all):cap(v.all)])
	lists := make([][]int32, len(count))
	backing := spare.backing
	if cap(backing) < len(v.all) {
		backing = make([]int32, len(v.all))
	}
	backing = backing[:len(v.all)]
	at := 0
	for id, c := range count {
		lists[id] = backing[at : at : at+c]
		at += c
	}
	for i, id := range nameID {
		lists[id] = append(lists[id], int32(i))
	}
	v.byName = make(map[string][]int32, len(ids))
	v.names = make([]string, len(ids))
	for name, id := range ids {
		v.byName[name] = lists[id]
		v.names[id] = name
	}
	v.nameID = nameID
	v.arrays = visitArrays{v.all, nameID, backing}
	return v
}

// visitArrays are the arrays of a run's visits, which an incremental run
// hands to the next (Incremental): a large tree's are megabytes, made on
// every keystroke.
type visitArrays struct {
	all     []Visit
	nameID  []int32
	backing []int32 // byName's lists
}

// Each calls fn for every directive with one of the names, in the order a
// walk of the tree meets them.
func (p *Pass) Each(fn func(d *parser.Directive, c *parser.Context), names ...string) {
	for _, i := range p.visitsOf(names) {
		fn(p.visits.all[i].D, p.visits.all[i].C)
	}
}

// EachAt is Each with the number of each visit in Visits(), by which a
// rule finds the visit's name number (VisitNames).
func (p *Pass) EachAt(fn func(i int, d *parser.Directive, c *parser.Context), names ...string) {
	for _, i := range p.visitsOf(names) {
		fn(int(i), p.visits.all[i].D, p.visits.all[i].C)
	}
}

// visitsOf returns the numbers of the visits of the names, in walk order.
func (p *Pass) visitsOf(names []string) []int32 {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	switch len(names) {
	case 0:
		return nil
	case 1:
		// one name: its list as it is (no copy)
		return p.visits.byName[names[0]]
	}
	// several: their lists in one slice of the right size, in walk order,
	// made once per run for every rule that asks for the same names
	// (several rules walk the *_pass directives, or the header families)
	return p.mergedOf(names)
}

// mergedKey is the key in Shared of the visits of several names (joined
// by NUL), in walk order.
type mergedKey string

// mergedOf returns the visits of the names, in walk order. When at most
// one of the names is in the tree (a small tree has few of any family) that
// name's list is the answer as it is: nothing is joined, looked up in
// Shared or sorted (25 families asked of Debian's tree cost a pre-commit
// hook 0.1 million instructions when each was merged).
func (p *Pass) mergedOf(names []string) []int32 {
	var only []int32
	lists := 0
	for _, name := range names {
		if l := p.visits.byName[name]; len(l) > 0 {
			only = l
			lists++
		}
	}
	if lists <= 1 {
		return only
	}
	return p.Shared(mergedKey(strings.Join(names, "\x00")), func() any {
		v := p.visits
		n := 0
		for _, name := range names {
			n += len(v.byName[name])
		}
		idx := make([]int32, 0, n)
		if n > len(v.all)/32 {
			// many: picked out of the walk's name numbers in one pass,
			// already in order (sorting them cost more); a name asked
			// twice is listed twice, as below
			want := make([]uint8, len(v.names))
			twice := false
			for _, name := range names {
				if l := v.byName[name]; len(l) > 0 {
					want[v.nameID[l[0]]]++
					twice = twice || want[v.nameID[l[0]]] > 1
				}
			}
			if !twice {
				for i, id := range v.nameID {
					if want[id] != 0 {
						idx = append(idx, int32(i))
					}
				}
				return idx
			}
		}
		for _, name := range names {
			idx = append(idx, v.byName[name]...)
		}
		slices.Sort(idx)
		return idx
	}).([]int32)
}

// EachDirective calls fn for every directive of the tree.
func (p *Pass) EachDirective(fn func(d *parser.Directive, c *parser.Context)) {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	for _, v := range p.visits.all {
		fn(v.D, v.C)
	}
}
