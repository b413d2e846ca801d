package lsp

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// The editor reads a value's variables as nginx's script compiler does
// (knowledge.VarRefs, held against nginx there): "$10" is the capture $1
// and then "0", "$1abc" the capture $1 and "abc"; "$0" is no capture but
// a variable nginx does not define. It took "$10" for a variable "10",
// called it and "$0" captures, and listed set_real_ip_from (a trusted
// address) among the directives that define a variable.
func TestEditorReadsVariablesAsNginx(t *testing.T) {
	src := "events {}\nhttp {\n    server {\n        listen 80;\n        set_real_ip_from $x;\n        auth_request_set $x $upstream_http_x;\n" +
		"        location ~ ^/(a)$ { return 200 \"$10 $1abc $0\"; }\n    }\n}\n"
	tree, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(src)}}, "nginx.conf", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := &analysis{tree: tree, file: tree.Files[0], ctx: []string{parser.CtxMain}}
	line := strings.Index(src, `"$10`)
	for _, c := range []struct {
		at   string
		name string
		doc  string
	}{
		{"10 $1abc", "1", "a capture"}, // on the 1 of $10
		{"0 $1abc", "1", "a capture"},  // just after $1: still on it
		{"1abc $0", "1", "a capture"},
		{"bc $0", "", ""}, // on "abc", after the capture
		{"0\"", "0", "not a variable nginx defines"},
	} {
		off := line + strings.Index(src[line:], c.at)
		sp, ok := spotAt(a.file, off)
		if !ok || sp.varName != c.name {
			t.Errorf("at %q: the variable %q, want %q", c.at, sp.varName, c.name)
			continue
		}
		if c.name != "" {
			if doc := variableDoc(a, c.name); !strings.Contains(doc, c.doc) {
				t.Errorf("$%s: %q, want it called %q", c.name, doc, c.doc)
			}
		}
	}
	defs := definitions(tree, "x")
	if len(defs) != 1 || defs[0].Name != "auth_request_set" {
		t.Errorf("$x is defined by %v, want auth_request_set alone", defs)
	}
	if !refersTo(`"$10"`, "1") || refersTo(`"$10"`, "10") {
		t.Error(`"$10" refers to $1, not to $10`)
	}
}
