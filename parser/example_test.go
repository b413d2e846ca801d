package parser_test

import (
	"fmt"

	"github.com/nginxtune/nginxtune/parser"
)

// One file's bytes, without its includes: for a formatter or an editor
// buffer.
func ExampleParse() {
	f, diag := parser.Parse("site.conf", []byte("server {\n    listen 80\n}\n"))
	fmt.Printf("%d %s:%d:%d: %s [%s]\n", len(f.Directives), diag.File, diag.Line, diag.Col, diag.Message, diag.Rule)
	// Output:
	// 1 site.conf:3:1: unexpected "}": the "listen" directive is not terminated by ";" [syntax]
}
