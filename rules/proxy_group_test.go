package rules

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// upstream-keepalive reports a backend once per tree: the sites of a
// conf.d that proxy to one address from three locations in two files get
// one finding, at the first, with the other two as related places, and one
// fix that writes the upstream where both files see it (the top of the
// http block); the same for a proxy_pass computed from variables, repeated
// in every location of a sample. The measured figures are in explain, not
// in each message. Before, each file had its own finding, and every
// location with the variable proxy_pass its own.
func TestUpstreamKeepaliveOnePerTree(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"nginx.conf": "events {}\nhttp {\n    include conf.d/*.conf;\n}\n",
		"conf.d/a.conf": `server {
    listen 80;
    server_name a.example;
    location / { proxy_pass http://127.0.0.1:3000; }
    location /api/ { proxy_pass http://127.0.0.1:3000; }
    location /x/ { proxy_pass $upstream_proto://$upstream_app:$upstream_port; }
}
`,
		"conf.d/b.conf": `server {
    listen 80;
    server_name b.example;
    location / { proxy_pass http://127.0.0.1:3000; }
    location /x/ { proxy_pass $upstream_proto://$upstream_app:$upstream_port; }
    location /y/ { proxy_pass $upstream_proto://$upstream_app:$upstream_port; }
}
`,
	}
	writeFiles(t, dir, files)
	tr, err := loader.Load(filepath.Join(dir, "nginx.conf"), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var literal, variable []finding.Diagnostic
	for _, d := range Run(tr, engine.Config{Version: knowledge.MustVersion("1.22.1"), Disabled: map[string]bool{}}) {
		if d.Rule != "upstream-keepalive" {
			continue
		}
		if strings.Contains(d.Message, "627") || strings.Contains(d.Message, "measured") {
			t.Errorf("a measured figure in the message (it belongs in explain): %s", d.Message)
		}
		if strings.Contains(d.Message, "from variables") {
			variable = append(variable, d)
		} else {
			literal = append(literal, d)
		}
	}
	if len(literal) != 1 || len(literal[0].Related) != 2 || filepath.Base(literal[0].Related[1].File) != "b.conf" {
		t.Fatalf("want one finding for 127.0.0.1:3000 with the two other places related, got %d: %+v", len(literal), literal)
	}
	if f := literal[0].Fix; f == nil || !strings.Contains(f.Description, "top of the http block") {
		t.Errorf("the fix does not write one upstream both files see: %+v", f)
	}
	if len(variable) != 1 || len(variable[0].Related) != 2 || !strings.Contains(variable[0].Message, "(3 proxy_passes)") {
		t.Errorf("want one finding for the variable proxy_pass with two related places, got %d: %+v", len(variable), variable)
	}
}
