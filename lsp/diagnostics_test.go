package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// A finding is sent with the protocol's severity, a range from its place
// to the end of its statement (or of the statement's first line), placed
// by line and column when it has no offset, and the places it speaks of.
func TestToDiagnostic(t *testing.T) {
	text := "http {\n    gzip on;\n    server {\n        listen 80;\n    }\n}\n"
	a := &analysis{text: text}
	l := newLines(text)
	s := newServer(t)
	for _, c := range []struct {
		dg   finding.Diagnostic
		want protocol.Diagnostic
	}{
		{finding.Diagnostic{Rule: "r", Severity: finding.Error, Offset: 11, Message: "m"},
			protocol.Diagnostic{Range: span(pos(1, 4), pos(1, 12)), Severity: protocol.SeverityError, Code: "r", Source: "nginxtune", Message: "m"}},
		{finding.Diagnostic{Rule: "r", Severity: finding.Warning, Offset: 24},
			protocol.Diagnostic{Range: span(pos(2, 4), pos(2, 12)), Severity: protocol.SeverityWarning, Code: "r", Source: "nginxtune"}},
		{finding.Diagnostic{Rule: "r", Severity: finding.Info, Line: 4, Col: 9},
			protocol.Diagnostic{Range: span(pos(3, 8), pos(3, 18)), Severity: protocol.SeverityInformation, Code: "r", Source: "nginxtune"}},
		{finding.Diagnostic{Rule: "r", Line: 6, Related: []finding.Related{{File: "/x/y.conf", Line: 2, Col: 3, Message: "there"}}},
			protocol.Diagnostic{Range: span(pos(5, 0), pos(5, 1)), Severity: protocol.SeverityInformation, Code: "r", Source: "nginxtune",
				RelatedInformation: []protocol.DiagnosticRelatedInformation{{Location: protocol.Location{URI: "file:///x/y.conf", Range: span(pos(1, 2), pos(1, 2))}, Message: "there"}}}},
	} {
		got := s.toDiagnostic(c.dg, a, l)
		if got.Range != c.want.Range || got.Severity != c.want.Severity || got.Code != c.want.Code || got.Source != c.want.Source || got.Message != c.want.Message ||
			len(got.RelatedInformation) != len(c.want.RelatedInformation) || len(got.RelatedInformation) == 1 && got.RelatedInformation[0] != c.want.RelatedInformation[0] {
			t.Errorf("%+v:\n got %+v\nwant %+v", c.dg, got, c.want)
		}
	}
}

// A .nginxtune.yaml the server cannot read is said where the user looks,
// as a finding on the file's first line, not only in the server's log: the
// file's findings are then those of the default settings.
func TestSettingsErrorShown(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".nginxtune.yaml"), []byte("disable: [no-such-rule]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := openFile(t, s, dir, "site.conf", "server {\n    listen 80;\n}\n")
	a := s.current(uri, true)
	found := false
	for _, dg := range a.diags {
		if dg.Rule == SettingsError && dg.Line == 1 && strings.Contains(dg.Message, ".nginxtune.yaml:1") && strings.Contains(dg.Message, "no-such-rule") {
			found = true
		}
	}
	if !found {
		t.Errorf("no settings-file finding: %+v", a.diags)
	}
	// a readable settings file: none
	if err := os.WriteFile(filepath.Join(dir, ".nginxtune.yaml"), []byte("disable: [server-tokens]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := openFile(t, s, dir, "other.conf", "server {\n    listen 81;\n}\n")
	for _, dg := range s.current(other, true).diags {
		if dg.Rule == SettingsError {
			t.Errorf("a settings-file finding for a readable file: %+v", dg)
		}
	}
}
