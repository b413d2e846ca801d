package lsp

import (
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/parser"
)

// references answers where the variable or the upstream the cursor is on
// is used, across the tree (an upstream's block too, when the client asks
// for the declaration).
func (s *Server) references(p referenceParams) []protocol.Location {
	out := []protocol.Location{}
	a, sp, ok := s.spotOf(p.TextDocument.URI, p.Position)
	if !ok {
		return out
	}
	refers := referenceTest(sp, p.Context.IncludeDeclaration)
	if refers == nil {
		return out
	}
	fl := fileLines{}
	a.tree.Walk(func(d *parser.Directive, c *parser.Context) bool {
		for _, arg := range d.Args {
			if refers(d, arg) {
				l := fl.of(d.File)
				out = append(out, protocol.Location{URI: pathToURI(d.File.Path), Range: protocol.Range{Start: l.position(int(arg.Offset)), End: l.position(int(arg.Offset) + len(arg.Raw))}})
			}
		}
		return true
	})
	return out
}

// referenceTest tells an argument that refers to what a spot names: its
// variable, or its upstream (the upstream's own name when declaration is
// set); nil when the spot names neither.
func referenceTest(sp spot, declaration bool) func(d *parser.Directive, arg parser.Arg) bool {
	if sp.varName != "" {
		return func(_ *parser.Directive, arg parser.Arg) bool { return refersTo(arg.Raw, sp.varName) }
	}
	upstream := ""
	switch {
	case sp.dir.Name == "upstream" && sp.arg == 0:
		upstream = sp.word
	case sp.arg >= 0:
		upstream = upstreamName(sp.dir.Name, sp.word)
	}
	if upstream == "" {
		return nil
	}
	return func(d *parser.Directive, arg parser.Arg) bool {
		if d.Name == "upstream" {
			return arg.Value == upstream && declaration
		}
		return upstreamName(d.Name, arg.Value) == upstream
	}
}

// refersTo reports whether an argument names $name (or ${name}).
func refersTo(raw, name string) bool {
	for _, r := range knowledge.VarRefs(raw) {
		if r.Name == name {
			return true
		}
	}
	return false
}
