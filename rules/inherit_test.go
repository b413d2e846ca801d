package rules

import (
	"strings"
	"testing"
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
	var got *Diagnostic
	for _, d := range lintText(t, text, Config{}) {
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
