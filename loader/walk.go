package loader

import "github.com/nginxtune/nginxtune/parser"

// Walk calls fn for every directive reachable from the tree's roots,
// following includes in place, in the order nginx reads them (parser.Walk).
func (t *Tree) Walk(fn func(d *parser.Directive, c *parser.Context) bool) {
	parser.Walk(t.Roots, fn)
}

// Statements returns how many directives the tree's files hold, each file
// counted once however often it is included (the entries of data blocks,
// map and types, are not counted): what a run read, for its summary.
func (t *Tree) Statements() int {
	n := 0
	for _, f := range t.Files {
		n += countDirectives(f.Directives, false)
	}
	return n
}

// Visits returns how many directives Walk meets (a file included from
// several places counted once per place), without building contexts.
func (t *Tree) Visits() int {
	if t.counted > 0 {
		return t.counted // loading counted them to bound them
	}
	n := 0
	for _, r := range t.Roots {
		n += countDirectives(r.Directives, true)
	}
	return n
}

// countDirectives counts dirs and the blocks in them, and what their
// includes read when throughIncludes is set.
func countDirectives(dirs []*parser.Directive, throughIncludes bool) int {
	n := 0
	for _, d := range dirs {
		n++
		if throughIncludes {
			for _, inc := range d.Includes() {
				n += countDirectives(inc.Directives, true)
			}
		}
		if d.Block != nil && !parser.IsDataBlock(d.Name) {
			n += countDirectives(d.Block, throughIncludes)
		}
	}
	return n
}
