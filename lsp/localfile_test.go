package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nginxtune/nginxtune/parser"
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
	at := func(opt parser.Options) *analysis {
		return &analysis{tree: &parser.Tree{Dir: tree}, opt: opt}
	}
	cases := []struct {
		opt  parser.Options
		name string
		want string // "" when nothing is answered
	}{
		{parser.Options{}, "certs/site.pem", filepath.Join(tree, "certs/site.pem")},
		{parser.Options{}, filepath.Join(tree, "certs/site.pem"), filepath.Join(tree, "certs/site.pem")},
		{parser.Options{}, "certs/inner-link.pem", filepath.Join(tree, "certs/inner-link.pem")},
		{parser.Options{}, "certs/missing.pem", ""},
		{parser.Options{}, "certs", ""},
		{parser.Options{}, filepath.Join(outside, "secret.pem"), ""},
		{parser.Options{}, "../" + filepath.Base(outside) + "/secret.pem", ""},
		{parser.Options{}, "certs/link.pem", ""},
		{parser.Options{}, "outdir/secret.pem", ""},
		{parser.Options{Maps: []parser.PathMap{{From: "/etc/nginx", To: tree}}}, "/etc/nginx/certs/site.pem", filepath.Join(tree, "certs/site.pem")},
		{parser.Options{Maps: []parser.PathMap{{From: "/etc/nginx", To: tree}}}, "/etc/nginx/certs/link.pem", ""},
		{parser.Options{AllowOutside: []string{outside}}, filepath.Join(outside, "secret.pem"), filepath.Join(outside, "secret.pem")},
		{parser.Options{Live: true}, filepath.Join(outside, "secret.pem"), filepath.Join(outside, "secret.pem")},
	}
	for _, c := range cases {
		got, ok := at(c.opt).localFile(c.name)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%+v %q: %q, %v; want %q", c.opt, c.name, got, ok, c.want)
		}
	}
}
