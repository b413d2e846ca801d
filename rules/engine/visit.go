package engine

import (
	"sort"
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
	byName map[string][]int
	places map[*parser.Directive]int // how many places a directive is met in
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

func collect(t *loader.Tree) *visits {
	// sized first: a large tree's list is then one allocation, not a
	// chain of doublings
	n := t.Visits()
	v := &visits{all: make([]Visit, 0, n)}
	// one map look-up a visit: each name gets a number as it is first
	// met, and the second pass goes by the numbers
	ids := map[string]int32{}
	var count []int
	nameID := make([]int32, 0, n)
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
	lists := make([][]int, len(count))
	backing := make([]int, len(v.all))
	at := 0
	for id, c := range count {
		lists[id] = backing[at : at : at+c]
		at += c
	}
	for i, id := range nameID {
		lists[id] = append(lists[id], i)
	}
	v.byName = make(map[string][]int, len(ids))
	for name, id := range ids {
		v.byName[name] = lists[id]
	}
	return v
}

// Each calls fn for every directive with one of the names, in the order a
// walk of the tree meets them.
func (p *Pass) Each(fn func(d *parser.Directive, c *parser.Context), names ...string) {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	if len(names) == 0 {
		return
	}
	// one name: its list as it is (no copy); several: their lists in one
	// slice of the right size, in walk order, made once per run for every
	// rule that asks for the same names (several rules walk the *_pass
	// directives, or the header families)
	idx := p.visits.byName[names[0]]
	if len(names) > 1 {
		idx = p.mergedOf(names)
	}
	for _, i := range idx {
		fn(p.visits.all[i].D, p.visits.all[i].C)
	}
}

// mergedKey is the key in Shared of the visits of several names (joined
// by NUL), in walk order.
type mergedKey string

// mergedOf returns the visits of the names, in walk order.
func (p *Pass) mergedOf(names []string) []int {
	return p.Shared(mergedKey(strings.Join(names, "\x00")), func() any {
		n := 0
		for _, name := range names {
			n += len(p.visits.byName[name])
		}
		idx := make([]int, 0, n)
		for _, name := range names {
			idx = append(idx, p.visits.byName[name]...)
		}
		sort.Ints(idx)
		return idx
	}).([]int)
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
