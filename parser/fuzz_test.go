package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the scanner. It must never panic or
// hang, and every statement it returns must point at its own text.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(fixtures, "parser/*/*.conf"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("a{b{c \"d\\\"\" 'e' ${f}g;}}"))
	f.Add([]byte("x_by_lua_block { --[[ } ]] '}' [==[}]==] }"))
	f.Add([]byte("\xEF\xBB\xBFa b; # é\nc \"d\ne\" f\\\ng;"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file := &File{Path: "fuzz.conf", Src: src}
		diag := parseFile(file)
		if diag != nil && (diag.Line < 1 || diag.Col < 1 || diag.Offset < 0 || diag.Offset > len(src)) {
			t.Fatalf("diagnostic out of range: %+v", diag)
		}
		var check func(ds []*Directive)
		check = func(ds []*Directive) {
			for _, d := range ds {
				if d.Start < 0 || int(d.End) > len(src) || d.Start >= d.End && !file.Broken {
					t.Fatalf("%q: range %d-%d of %d", d.Name, d.Start, d.End, len(src))
				}
				if d.Line < 1 || d.Col < 1 || d.EndLine < d.Line && !file.Broken {
					t.Fatalf("%q: position %d:%d-%d", d.Name, d.Line, d.Col, d.EndLine)
				}
				if line, col := file.Position(int(d.Start)); line != int(d.Line) || col != int(d.Col) {
					t.Fatalf("%q: recorded %d:%d, offset gives %d:%d", d.Name, d.Line, d.Col, line, col)
				}
				for _, a := range d.Args {
					if a.Offset < 0 || int(a.Offset)+len(a.Raw) > len(src) || string(src[a.Offset:int(a.Offset)+len(a.Raw)]) != a.Raw {
						t.Fatalf("arg %q does not match its offset", a.Raw)
					}
					if line, col := file.Position(int(a.Offset)); line != int(a.Line) || col != int(a.Col) {
						t.Fatalf("arg %q: recorded %d:%d, offset gives %d:%d", a.Raw, a.Line, a.Col, line, col)
					}
				}
				if !strings.HasPrefix(string(src[d.Start:]), firstRaw(src, d)) {
					t.Fatalf("%q does not start at its offset", d.Name)
				}
				check(d.Block)
			}
		}
		check(file.Directives)
		for _, c := range file.Comments {
			if line, col := file.Position(c.Offset); line != c.Line || col != c.Col {
				t.Fatalf("comment %q: recorded %d:%d, offset gives %d:%d", c.Text, c.Line, c.Col, line, col)
			}
		}
		gluedStatements(file, Known)
	})
}

func firstRaw(src []byte, d *Directive) string {
	if len(src) > int(d.Start) && (src[d.Start] == '"' || src[d.Start] == '\'') {
		return string(src[d.Start : d.Start+1])
	}
	return ""
}

// FuzzTree loads a tree whose files include each other through globs and
// symbolic links (one to a file in the tree, one to a directory outside
// it): no panic, no hang, and no file outside the tree is ever read.
func FuzzTree(f *testing.F) {
	f.Add([]byte("events {}\nhttp {\n    include conf.d/*.conf;\n    include link.conf;\n    include out/*;\n}\n"), []byte("include ../nginx.conf;\nsendfile on;\n"), uint8(3))
	f.Add([]byte("http { include /etc/passwd; include /proc/self/environ; include d*/d*/*.conf; }"), []byte("server { include ../conf.d/*.conf; }"), uint8(1))
	f.Fuzz(func(t *testing.T, main, snippet []byte, links uint8) {
		if len(main)+len(snippet) > 1<<15 {
			return
		}
		outside := t.TempDir()
		os.WriteFile(filepath.Join(outside, "secret.conf"), []byte("server_name SECRET;\n"), 0o644)
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755)
		os.WriteFile(filepath.Join(dir, "nginx.conf"), main, 0o644)
		os.WriteFile(filepath.Join(dir, "conf.d", "a.conf"), snippet, 0o644)
		if links&1 != 0 {
			os.Symlink("conf.d/a.conf", filepath.Join(dir, "link.conf"))
		}
		if links&2 != 0 {
			os.Symlink(outside, filepath.Join(dir, "out"))
		}
		if links&4 != 0 {
			os.Symlink(".", filepath.Join(dir, "conf.d", "d1"))
			os.Symlink(".", filepath.Join(dir, "conf.d", "d2"))
		}
		tr, err := Load(filepath.Join(dir, "nginx.conf"), Options{})
		if err != nil {
			return
		}
		real, _ := filepath.EvalSymlinks(dir)
		for _, file := range tr.Files {
			if !strings.HasPrefix(file.Path, real+"/") {
				t.Fatalf("read %s, outside %s", file.Path, real)
			}
			if strings.Contains(string(file.Src), "SECRET") && !strings.Contains(string(main)+string(snippet), "SECRET") {
				t.Fatalf("content from outside the tree in %s", file.Path)
			}
		}
	})
}
