package rules

import (
	"sort"
	"sync"

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
	placesOnce, taintOnce sync.Once
	taint                 *taintScope // set and map statements, for taintOf
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

func collect(t *parser.Tree) *visits {
	// sized first: a large tree's list is then one allocation, not a
	// chain of doublings
	n := 0
	var count func(dirs []*parser.Directive)
	count = func(dirs []*parser.Directive) {
		for _, d := range dirs {
			n++
			for _, inc := range d.Includes {
				count(inc.Directives)
			}
			if d.Block != nil && !parser.IsDataBlock(d.Name) {
				count(d.Block)
			}
		}
	}
	for _, r := range t.Roots {
		count(r.Directives)
	}
	v := &visits{byName: map[string][]int{}, all: make([]visit, 0, n)}
	// The first block inside a context extends the context's slices in
	// place (they share one array, as a chain of nested blocks does); its
	// siblings copy. A chain of 10,000 nested locations then costs linear
	// memory, not quadratic.
	claimed := map[*parser.Context]bool{}
	var walk func(dirs []*parser.Directive, c *parser.Context)
	walk = func(dirs []*parser.Directive, c *parser.Context) {
		for _, d := range dirs {
			v.byName[d.Name] = append(v.byName[d.Name], len(v.all))
			v.all = append(v.all, visit{d, c})
			for _, inc := range d.Includes {
				walk(inc.Directives, c)
			}
			if d.Block != nil && !parser.IsDataBlock(d.Name) {
				var blocks []*parser.Directive
				var names []string
				if !claimed[c] && cap(c.Blocks) > len(c.Blocks) && cap(c.Names) > len(c.Names) {
					claimed[c] = true
					blocks, names = append(c.Blocks, d), append(c.Names, d.Name)
				} else {
					// a block with blocks inside gets room for the first of
					// them; a leaf (most locations) only what it holds
					n, m := len(c.Blocks)+1, len(c.Names)+1
					if holdsBlocks(d) {
						n, m = 2*n, 2*m
					}
					blocks = append(append(make([]*parser.Directive, 0, n), c.Blocks...), d)
					names = append(append(make([]string, 0, m), c.Names...), d.Name)
				}
				walk(d.Block, &parser.Context{Blocks: blocks, Names: names, Root: c.Root})
			}
		}
	}
	for _, r := range t.Roots {
		walk(r.Directives, &parser.Context{Names: append([]string(nil), r.Context...), Root: r})
	}
	return v
}

// holdsBlocks reports whether a block may hold blocks: one of its own, or
// an include (whose files may).
func holdsBlocks(d *parser.Directive) bool {
	for _, x := range d.Block {
		if x.Block != nil || x.Name == "include" {
			return true
		}
	}
	return false
}

// each calls fn for every directive with one of the names, in the order a
// walk of the tree meets them.
func (p *Pass) each(fn func(d *parser.Directive, c *parser.Context), names ...string) {
	if p.visits == nil {
		p.visits = collect(p.Tree)
	}
	var idx []int
	for _, n := range names {
		idx = append(idx, p.visits.byName[n]...)
	}
	if len(names) > 1 {
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
