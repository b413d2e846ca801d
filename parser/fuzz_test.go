package parser

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/knowledge"
)

const fixtures = "../fixtures"

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
	// glued statements and blocks inside data, in and out of data blocks
	f.Add([]byte("http { server_name a\n  index b;\n map $a $b { x { y\n gzip; } }\n types { t { } }\n if ($x)\n { return\n 404; } }\ninclude a\n b;"))
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
					// the scanner unescapes only what holds a backslash
					if inner := a.Raw; a.Quote == 0 && a.Value != unescape(inner) ||
						a.Quote != 0 && a.Value != unescape(inner[1:len(inner)-1]) {
						t.Fatalf("arg %q: value %q", a.Raw, a.Value)
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
		checkWalked(t, file)
	})
}

// checkWalked holds what the scanner noted of a file (Walked) to a walk of
// it, and the syntax findings worked out from the notes to those of a walk.
func checkWalked(t *testing.T, file *File) {
	w := file.Walked()
	if w == nil {
		if !file.Broken {
			t.Fatal("a file read to its end has no notes")
		}
		FileFindings(file, knowledge.IsDirective)
		return
	}
	n := 0
	var includes []Include
	WalkFile(file.Directives, func(d *Directive) {
		n++
		if d.Name == "include" {
			includes = append(includes, Include{d, n})
		}
	})
	if n != w.Directives || !slices.Equal(includes, w.Includes) {
		t.Fatalf("noted %d directives, includes %v; a walk meets %d, %v", w.Directives, w.Includes, n, includes)
	}
	noted := FileFindings(file, knowledge.IsDirective)
	file.walked = nil
	walked := FileFindings(file, knowledge.IsDirective)
	file.walked = w
	if !reflect.DeepEqual(noted, walked) {
		t.Fatalf("findings from the notes %v, from a walk %v", noted, walked)
	}
}

func firstRaw(src []byte, d *Directive) string {
	if len(src) > int(d.Start) && (src[d.Start] == '"' || src[d.Start] == '\'') {
		return string(src[d.Start : d.Start+1])
	}
	return ""
}
