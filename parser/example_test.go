package parser_test

import (
	"fmt"
	"testing/fstest"

	"github.com/nginxtune/nginxtune/parser"
)

// A configuration held in memory, read with its includes: every statement
// knows its file and line, and what reading found is in Diagnostics.
func ExampleLoadFS() {
	fsys := fstest.MapFS{
		"nginx.conf":         {Data: []byte("events {}\nhttp {\n    include sites/*.conf;\n}\n")},
		"sites/app.conf":     {Data: []byte("server {\n    listen 80;\n    server_name app.example;\n}\n")},
		"sites/missing.conf": {Data: []byte("include nowhere.conf;\n")},
	}
	t, err := parser.LoadFS(fsys, "nginx.conf", parser.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == "server_name" {
			fmt.Printf("%s at %s:%d in %v\n", d.Arg(0), d.File.Path, d.Line, c.Names)
		}
		return true
	})
	for _, d := range t.Diagnostics {
		fmt.Printf("%s:%d: %s\n", d.File, d.Line, d.Kind)
	}
	// Output:
	// app.example at /sites/app.conf:3 in [main http server]
	// /sites/missing.conf:1: include-missing
}

// One file's bytes, without its includes: for a formatter or an editor
// buffer.
func ExampleParse() {
	f, diag := parser.Parse("site.conf", []byte("server {\n    listen 80\n}\n"))
	fmt.Println(len(f.Directives), diag)
	// Output:
	// 1 site.conf:3:1: unexpected "}": the "listen" directive is not terminated by ";"
}
