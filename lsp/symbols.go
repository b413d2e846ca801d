package lsp

import (
	"strings"

	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/parser"
)

// symbols answers a document's outline: its blocks, servers by their
// names, locations and the like by their arguments.
func (s *Server) symbols(p textDocumentParams) []protocol.DocumentSymbol {
	a := s.current(p.TextDocument.URI, false)
	out := []protocol.DocumentSymbol{}
	if a == nil || a.file == nil {
		return out
	}
	if syms := blockSymbols(newLines(a.text), a.file.Directives); syms != nil {
		out = syms
	}
	return out
}

// blockSymbols are the outline of the blocks among dirs, and of theirs.
func blockSymbols(l *lines, dirs []*parser.Directive) []protocol.DocumentSymbol {
	var syms []protocol.DocumentSymbol
	for _, d := range dirs {
		if d.Block == nil {
			continue
		}
		sym := blockSymbol(l, d)
		if !parser.IsDataBlock(d.Name) {
			sym.Children = blockSymbols(l, d.Block)
		}
		syms = append(syms, sym)
	}
	return syms
}

// blockSymbol is a block's outline entry, without its children.
func blockSymbol(l *lines, d *parser.Directive) protocol.DocumentSymbol {
	sym := protocol.DocumentSymbol{Name: d.Name, Kind: protocol.SymbolObject,
		Range:          protocol.Range{Start: l.position(int(d.Start)), End: l.position(int(d.End))},
		SelectionRange: protocol.Range{Start: l.position(int(d.Start)), End: l.position(int(d.Start) + len(d.Name))}}
	switch d.Name {
	case "server":
		sym.Kind = protocol.SymbolClass
		for _, x := range d.Block {
			switch x.Name {
			case "server_name":
				sym.Name = "server " + strings.Join(x.ArgValues(), " ")
			case "listen":
				if sym.Detail == "" {
					sym.Detail = "listen " + strings.Join(x.ArgValues(), " ")
				}
			}
		}
	case "location", "upstream", "map", "geo", "split_clients", "if", "limit_except":
		sym.Kind = protocol.SymbolMethod
		if d.Name == "map" || d.Name == "geo" {
			sym.Kind = protocol.SymbolVariable
		}
		sym.Name = d.Name + " " + strings.Join(d.ArgValues(), " ")
	case "http", "stream", "mail", "events":
		sym.Kind = protocol.SymbolModule
	}
	return sym
}
