package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/route"
)

// Route's printers and route's own messages (the trace) name a file as
// the caller asks, one run apart from another (a package variable named
// them for the whole process), and by its path when nothing is asked.
func TestRouteNamesFilesAsAsked(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sites"), 0o755)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include sites/*.conf;\n}\n"), 0o644)
	site := filepath.Join(dir, "sites/a.conf")
	os.WriteFile(site, []byte("server {\n    listen 80;\n    server_name a.example;\n    location / {\n        return 200;\n    }\n}\n"), 0o644)
	tree, err := loader.Load(filepath.Join(dir, "nginx.conf"), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := route.Build(tree)
	req, err := route.ParseRequest("http://a.example/")
	if err != nil {
		t.Fatal(err)
	}
	named := func(f *parser.File) string { return "NAMED/" + filepath.Base(f.Path) }
	for _, c := range []struct {
		name      func(*parser.File) string
		want, not string
	}{
		{named, "NAMED/a.conf:1", site},
		{nil, site + ":1", "NAMED"},
	} {
		res := cfg.Route(req, route.Options{Name: c.name})
		o := RouteOptions{All: true, Name: c.name}
		for format, write := range map[string]func(*bytes.Buffer) error{
			"text": func(b *bytes.Buffer) error { return RouteText(b, &req, res, o) },
			"json": func(b *bytes.Buffer) error { return RouteJSON(b, &req, res, o) },
		} {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, c.want) || strings.Contains(out, c.not) {
				t.Errorf("%s: want %s and no %s:\n%s", format, c.want, c.not, out)
			}
		}
		// route's own words: the trace names the default server's place
		if d := res.Steps[0].Detail; !strings.Contains(d, c.want) {
			t.Errorf("the trace names the file otherwise: %s, want %s", d, c.want)
		}
	}
}
