package lsp

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// codeActions answers the quick fixes of the findings at a range: the
// edits lint --fix makes.
func (s *Server) codeActions(p codeActionParams) []protocol.CodeAction {
	a := s.current(p.TextDocument.URI, true)
	out := []protocol.CodeAction{}
	if a == nil {
		return out
	}
	l := newLines(a.text)
	files := fileLines{}
	for _, dg := range a.diags {
		if dg.Fix == nil || len(dg.Fix.Edits) == 0 {
			continue
		}
		ld := s.toDiagnostic(dg, a, l)
		if ld.Range.End.Line < p.Range.Start.Line || ld.Range.Start.Line > p.Range.End.Line {
			continue
		}
		edit, ok := a.fixEdit(dg.Fix, p.TextDocument.URI, files)
		if !ok {
			continue
		}
		out = append(out, protocol.CodeAction{Title: dg.Fix.Description, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{ld}, IsPreferred: true, Edit: edit})
	}
	return out
}

// fixEdit is a fix's edits by document, the analysed one under the URI
// the client gave; ok is false when a file it edits is not in the tree.
func (a *analysis) fixEdit(fix *finding.Fix, uri string, files fileLines) (protocol.WorkspaceEdit, bool) {
	edit := protocol.WorkspaceEdit{Changes: map[string][]protocol.TextEdit{}}
	for _, e := range fix.Edits {
		f := a.tree.File(e.File)
		if f == nil {
			return edit, false
		}
		fl := files.of(f)
		u := pathToURI(f.Path)
		if f == a.file {
			u = uri
		}
		edit.Changes[u] = append(edit.Changes[u], protocol.TextEdit{Range: protocol.Range{Start: fl.position(e.Start), End: fl.position(e.End)}, NewText: e.New})
	}
	return edit, true
}
