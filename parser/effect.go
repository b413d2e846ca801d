package parser

import "github.com/nginxtune/nginxtune/knowledge"

// InEffect finds the occurrences of a directive in effect at the innermost
// of n nested levels (0 the outermost: http, a server, its locations, an
// if block): at(i) returns the occurrences of name at level i, includes
// read in place. They are those of the innermost level that has any, all
// of them (a plain directive's last one applies, an array directive's list
// is replaced as a whole: knowledge.Arrays); a directive no inner level
// takes from an outer one (knowledge.Inherited) counts only at the
// innermost level. level is -1 when none is in effect.
func InEffect(n int, name string, at func(i int) []*Directive) (dirs []*Directive, level int) {
	outermost := 0
	if !knowledge.Inherited(name) {
		outermost = n - 1
	}
	for i := n - 1; i >= outermost && i >= 0; i-- {
		if ds := at(i); len(ds) > 0 {
			return ds, i
		}
	}
	return nil, -1
}
