package lsp

import (
	"github.com/nginxtune/nginxtune/format"
	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/parser"
)

func (s *Server) formatting(p formattingParams) ([]protocol.TextEdit, *protocol.ResponseError) {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	var text string
	if d != nil {
		text = d.text
	}
	s.mu.Unlock()
	if d == nil {
		return nil, &protocol.ResponseError{Code: protocol.CodeInvalidParams, Message: "the document is not open"}
	}
	f, diag := parser.Parse(d.path, []byte(text))
	if diag != nil {
		return []protocol.TextEdit{}, nil // a buffer with a syntax error is not formatted
	}
	opt := format.Options{Indent: p.Options.TabSize, Tabs: !p.Options.InsertSpaces && p.Options.TabSize > 0}
	if cfg := s.fmtSettings(d.path); cfg != nil {
		// the settings' step, else the editor's; their columns
		if cfg.Indent > 0 || cfg.Tabs {
			opt.Indent, opt.Tabs = cfg.Indent, cfg.Tabs
		}
		opt.Align = cfg.Align
	}
	out, err := format.Source(f, opt)
	if err != nil {
		return nil, &protocol.ResponseError{Code: protocol.CodeInternalError, Message: err.Error()}
	}
	if string(out) == text {
		return []protocol.TextEdit{}, nil
	}
	l := newLines(text)
	return []protocol.TextEdit{{Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 0}, End: l.position(len(text))}, NewText: string(out)}}, nil
}
