package loader_test

import (
	"fmt"
	"testing/fstest"

	"github.com/nginxtune/nginxtune/loader"
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
	t, err := loader.LoadFS(fsys, "nginx.conf", loader.Options{})
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
		fmt.Printf("%s:%d: %s\n", d.File, d.Line, d.Rule)
	}
	// Output:
	// app.example at /sites/app.conf:3 in [main http server]
	// /sites/missing.conf:1: include-missing
}
