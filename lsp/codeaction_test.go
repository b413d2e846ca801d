package lsp

import (
	"testing"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// A quick fix is offered for a finding with a fix on the lines asked for,
// as the edits lint --fix makes, under the URI the client gave.
func TestCodeActions(t *testing.T) {
	s := newServer(t)
	text := "http {\n    sendfile on;\n    server {\n        listen 80;\n        tcp_nodelay off;\n    }\n}\n"
	uri := openFile(t, s, t.TempDir(), "a.conf", text)
	actions := func(from, to int) []protocol.CodeAction {
		var p codeActionParams
		p.TextDocument.URI = uri
		p.Range = span(pos(from, 0), pos(to, 0))
		return s.codeActions(p)
	}
	got := actions(4, 4)
	if len(got) != 1 || got[0].Title != "turn tcp_nodelay on" || got[0].Kind != protocol.QuickFix || !got[0].IsPreferred ||
		len(got[0].Diagnostics) != 1 || got[0].Diagnostics[0].Code != "tcp-nodelay-off" {
		t.Fatalf("actions on line 4: %+v", got)
	}
	edits := got[0].Edit.Changes[uri]
	if len(edits) != 1 || edits[0].NewText != "on" || edits[0].Range != span(pos(4, 20), pos(4, 23)) {
		t.Errorf("the fix's edits: %+v", got[0].Edit.Changes)
	}
	if got := actions(0, 3); got == nil || len(got) != 0 {
		t.Errorf("actions on lines 0-3: %+v", got)
	}
}
