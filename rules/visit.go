package rules

import (
	"sort"
	"sync"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// visit is one directive in the place a walk of the tree meets it.
type visit struct {
	d *parser.Directive
	c *parser.Context // shared by the directives of one block; do not modify
}

// visits walks the tree once and indexes every directive by name, so that a
// rule looks at the directives it cares about instead of walking the whole
// tree again. A file included from several places is visited once per place.
type visits struct {
	all    []visit
	byName map[string][]int
	places map[*parser.Directive]int // how many places a directive is met in
	// rules run in parallel: what is computed on demand is computed once
	placesOnce, taintOnce, namedOnce sync.Once
	taint                            *taintScope     // set and map statements, for taintOf
	named                            map[string]bool // for namedGroups
}

// places reports in how many places of the tree the walk meets d: more than
// one when its file is included from several places.
func (p *Pass) places(d *parser.Directive) int {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	p.visits.placesOnce.Do(func() {
		p.visits.places = map[*parser.Directive]int{}
		for _, v := range p.visits.all {
			p.visits.places[v.d]++
		}
	})
	return p.visits.places[d]
}

// namedGroups are the names of the named capture groups in the tree's
// arguments and map keys, each a variable the match defines. Collected once:
// unknownVariables counts them as defined, and taint looks a variable up as
// a capture only when it is one of them (that walk is not free).
func (p *Pass) namedGroups() map[string]bool {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	p.visits.namedOnce.Do(func() {
		named := map[string]bool{}
		add := func(s string) {
			for _, n := range knowledge.NamedCaptures(s) {
				named[n] = true
			}
		}
		for _, v := range p.visits.all {
			for _, a := range v.d.Args {
				add(a.Value)
			}
			if v.d.Name == "map" {
				for _, e := range v.d.Block {
					add(e.Name)
				}
			}
		}
		p.visits.named = named
	})
	return p.visits.named
}

func collect(t *loader.Tree) *visits {
	// sized first: a large tree's list is then one allocation, not a
	// chain of doublings
	n := t.Visits()
	v := &visits{all: make([]visit, 0, n)}
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
		v.all = append(v.all, visit{d, c})
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

// each calls fn for every directive with one of the names, in the order a
// walk of the tree meets them.
func (p *Pass) each(fn func(d *parser.Directive, c *parser.Context), names ...string) {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	if len(names) == 0 {
		return
	}
	// one name: its list as it is (no copy); several: their lists in one
	// slice of the right size, in walk order
	idx := p.visits.byName[names[0]]
	if len(names) > 1 {
		n := 0
		for _, name := range names {
			n += len(p.visits.byName[name])
		}
		idx = make([]int, 0, n)
		for _, name := range names {
			idx = append(idx, p.visits.byName[name]...)
		}
		sort.Ints(idx)
	}
	for _, i := range idx {
		fn(p.visits.all[i].d, p.visits.all[i].c)
	}
}

// eachDirective calls fn for every directive of the tree.
func (p *Pass) eachDirective(fn func(d *parser.Directive, c *parser.Context)) {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	for _, v := range p.visits.all {
		fn(v.d, v.c)
	}
}
