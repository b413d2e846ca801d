package rules

import (
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// header-inheritance points where the header is lost: its first related
// place is the block that loses the inherited headers, and each place that
// sets one says which block does not inherit it.
func TestHeaderInheritanceRelatedIsWhereLost(t *testing.T) {
	text := `events {}
http {
    server {
        listen 80;
        add_header X-Frame-Options DENY;
        location / {
            root /srv;
        }
        location /assets/ {
            add_header Cache-Control "max-age=3600";
        }
    }
}
`
	var got *finding.Diagnostic
	for _, d := range lintText(t, text, engine.Config{}) {
		if d.Rule == "header-inheritance" {
			d := d
			got = &d
		}
	}
	if got == nil {
		t.Fatal("no header-inheritance finding")
	}
	if got.Line != 10 || len(got.Related) < 2 {
		t.Fatalf("finding at %d with %d related places", got.Line, len(got.Related))
	}
	if r := got.Related[0]; r.Line != 9 || !strings.Contains(r.Message, "loses X-Frame-Options") {
		t.Errorf("first related place %d %q, want the location at line 9 that loses X-Frame-Options", r.Line, r.Message)
	}
	if r := got.Related[1]; r.Line != 5 || !strings.Contains(r.Message, "not inherited by the location at") {
		t.Errorf("second related place %d %q, want where X-Frame-Options is set", r.Line, r.Message)
	}
}

// With no nginx version known, "listen ... http2" is information without a
// fix: "http2 on;" breaks nginx before 1.25.1, and the message names that
// boundary. For 1.25.1 and later it is a warning with the fix.
func TestHTTP2AdviceNamesTheBoundary(t *testing.T) {
	text := "events {}\nhttp {\n    server {\n        listen 443 ssl http2;\n    }\n}\n"
	for _, v := range []string{"", "1.26.3"} {
		cfg := engine.Config{}
		if v != "" {
			cfg.Version = knowledge.MustVersion(v)
		}
		var got *finding.Diagnostic
		for _, d := range lintText(t, text, cfg) {
			if d.Rule == "listen-http2-deprecated" {
				d := d
				got = &d
			}
		}
		switch {
		case got == nil:
			t.Errorf("%q: no finding", v)
		case v == "" && (got.Severity != finding.Info || got.Fix != nil || !strings.Contains(got.Message, "1.25.1 and later")):
			t.Errorf("no version: %s %q fix=%v, want information naming 1.25.1 and no fix", got.Severity, got.Message, got.Fix != nil)
		case v != "" && (got.Severity != finding.Warning || got.Fix == nil):
			t.Errorf("%s: %s fix=%v, want a warning with a fix", v, got.Severity, got.Fix != nil)
		}
	}
}
