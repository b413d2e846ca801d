package loader

import "github.com/nginxtune/nginxtune/parser"

// Walk calls fn for every directive reachable from the tree's roots,
// following includes in place, in the order nginx reads them (parser.Walk).
func (t *Tree) Walk(fn func(d *parser.Directive, c *parser.Context) bool) {
	parser.Walk(t.Roots, fn)
}

// Statements returns how many directives the tree's files hold, each file
// counted once however often it is included (parser.Statements): what a
// run read, for its summary.
func (t *Tree) Statements() int { return parser.Statements(t.Files) }

// Visits returns how many directives Walk meets (a file included from
// several places counted once per place), without building contexts.
func (t *Tree) Visits() int { return parser.Visits(t.Roots) }
