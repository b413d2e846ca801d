package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// TestLocalFileStaysInTheTree: going to a certificate's definition looks
// only inside the tree (as the loader reads), through its path maps and the
// directories the user allowed; a path outside, or a link out of the tree,
// is not looked at, unless the tree is the live one.
func TestLocalFileStaysInTheTree(t *testing.T) {
	tree, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(tree, "certs"), 0o755)
	os.WriteFile(filepath.Join(tree, "certs/site.pem"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.pem"), []byte("x"), 0o600)
	os.Symlink(filepath.Join(outside, "secret.pem"), filepath.Join(tree, "certs/link.pem"))
	os.Symlink(outside, filepath.Join(tree, "outdir"))
	os.Symlink("site.pem", filepath.Join(tree, "certs/inner-link.pem"))
	at := func(opt loader.Options) *analysis {
		return &analysis{tree: &loader.Tree{Dir: tree}, opt: opt}
	}
	cases := []struct {
		opt  loader.Options
		name string
		want string // "" when nothing is answered
	}{
		{loader.Options{}, "certs/site.pem", filepath.Join(tree, "certs/site.pem")},
		{loader.Options{}, filepath.Join(tree, "certs/site.pem"), filepath.Join(tree, "certs/site.pem")},
		{loader.Options{}, "certs/inner-link.pem", filepath.Join(tree, "certs/inner-link.pem")},
		{loader.Options{}, "certs/missing.pem", ""},
		{loader.Options{}, "certs", ""},
		{loader.Options{}, filepath.Join(outside, "secret.pem"), ""},
		{loader.Options{}, "../" + filepath.Base(outside) + "/secret.pem", ""},
		{loader.Options{}, "certs/link.pem", ""},
		{loader.Options{}, "outdir/secret.pem", ""},
		{loader.Options{Maps: []loader.PathMap{{From: "/etc/nginx", To: tree}}}, "/etc/nginx/certs/site.pem", filepath.Join(tree, "certs/site.pem")},
		{loader.Options{Maps: []loader.PathMap{{From: "/etc/nginx", To: tree}}}, "/etc/nginx/certs/link.pem", ""},
		{loader.Options{AllowOutside: []string{outside}}, filepath.Join(outside, "secret.pem"), filepath.Join(outside, "secret.pem")},
		{loader.Options{Live: true}, filepath.Join(outside, "secret.pem"), filepath.Join(outside, "secret.pem")},
	}
	for _, c := range cases {
		got, ok := at(c.opt).localFile(c.name)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%+v %q: %q, %v; want %q", c.opt, c.name, got, ok, c.want)
		}
	}
}

// Definition goes from a variable to where it is set, from an upstream's
// name in a proxy_pass-like directive to its block, from a named location
// to its block, from an include to its files and from a certificate to
// its file in the tree; a directive's name or a plain argument goes
// nowhere.
func TestDefinition(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "site.pem"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "extra.conf"), []byte("gzip on;\n"), 0o644)
	lines := []string{
		"http {",
		"    upstream app { server 127.0.0.1:8080; }",
		"    map $host $site { default a; }",
		"    include extra.conf;",
		"    server {",
		"        ssl_certificate site.pem;",
		"        location / { proxy_pass http://app/x; try_files $uri @fallback; return 200 $site; }",
		"        location @fallback { return 204; }",
		"    }",
		"}",
	}
	uri := openFile(t, s, dir, "nginx.conf", strings.Join(lines, "\n")+"\n")
	at := func(line int, word string) protocol.Position {
		return pos(line, strings.Index(lines[line], word)+1)
	}
	for _, c := range []struct {
		at   protocol.Position
		uri  string
		line int
	}{
		{at(6, "http://app"), uri, 1},
		{at(6, "@fallback"), uri, 7},
		{at(6, "$site"), uri, 2},
		{at(3, "extra.conf"), pathToURI(filepath.Join(dir, "extra.conf")), 0},
		{at(5, "site.pem"), pathToURI(filepath.Join(dir, "site.pem")), 0},
	} {
		got := s.definition(place(uri, c.at))
		if len(got) != 1 || got[0].URI != c.uri || got[0].Range.Start.Line != c.line {
			t.Errorf("definition at %+v: %+v, want %s:%d", c.at, got, c.uri, c.line)
		}
	}
	for _, p := range []protocol.Position{at(6, "proxy_pass"), at(7, "204"), pos(8, 0)} {
		if got := s.definition(place(uri, p)); got == nil || len(got) != 0 {
			t.Errorf("definition at %+v: %+v, want []", p, got)
		}
	}
}
