package lsp

import (
	"sort"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// publish sends a document's findings, in the order of their lines.
func (s *Server) publish(uri string, a *analysis) {
	l := newLines(a.text)
	out := []protocol.Diagnostic{}
	for _, dg := range a.diags {
		out = append(out, s.toDiagnostic(dg, a, l))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Line < out[j].Range.Start.Line })
	s.conn.Notify("textDocument/publishDiagnostics", protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: out})
}

// toDiagnostic is a finding as the protocol says it: its range runs to the
// end of the statement (or of its first line).
func (s *Server) toDiagnostic(dg finding.Diagnostic, a *analysis, l *lines) protocol.Diagnostic {
	start := l.position(dg.Offset)
	if dg.Offset == 0 && dg.Line > 1 {
		start = protocol.Position{Line: dg.Line - 1, Character: max(0, dg.Col-1)}
	}
	end := l.position(statementEnd(a.text, l.offset(start)))
	sev := protocol.SeverityInformation
	switch dg.Severity {
	case finding.Error:
		sev = protocol.SeverityError
	case finding.Warning:
		sev = protocol.SeverityWarning
	}
	out := protocol.Diagnostic{Range: protocol.Range{Start: start, End: end}, Severity: sev, Code: dg.Rule, Source: "nginxtune", Message: dg.Message}
	for _, r := range dg.Related {
		out.RelatedInformation = append(out.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: pathToURI(r.File), Range: protocol.Range{Start: protocol.Position{Line: r.Line - 1, Character: max(0, r.Col-1)}, End: protocol.Position{Line: r.Line - 1, Character: max(0, r.Col-1)}}},
			Message:  r.Message,
		})
	}
	return out
}
