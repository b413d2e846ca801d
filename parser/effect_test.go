package parser

import "testing"

func TestInEffect(t *testing.T) {
	f, diag := Parse("t.conf", []byte("add_header A 1; add_header B 2; root /a; try_files $uri =404; proxy_pass http://b;\n"+
		"add_header C 3; root /b;\n"+
		"gzip on;\n"))
	if diag != nil {
		t.Fatal(diag)
	}
	// three levels: the statements of each line
	lines := [][]*Directive{f.Directives[:5], f.Directives[5:7], f.Directives[7:]}
	for _, c := range []struct {
		name  string
		want  []string // the first argument of each occurrence in effect
		level int
	}{
		{"add_header", []string{"C"}, 1}, // the inner list replaces the outer one
		{"root", []string{"/b"}, 1},
		{"gzip", []string{"on"}, 2},
		{"try_files", nil, -1},  // not inherited: only the innermost level's own
		{"proxy_pass", nil, -1}, // a content handler belongs to its location
		{"index", nil, -1},
	} {
		dirs, level := InEffect(len(lines), c.name, func(i int) []*Directive {
			var out []*Directive
			for _, d := range lines[i] {
				if d.Name == c.name {
					out = append(out, d)
				}
			}
			return out
		})
		var got []string
		for _, d := range dirs {
			got = append(got, d.Arg(0))
		}
		if level != c.level || len(got) != len(c.want) || len(got) > 0 && got[0] != c.want[0] {
			t.Errorf("%s: %q at level %d, want %q at %d", c.name, got, level, c.want, c.level)
		}
	}
	if dirs, level := InEffect(1, "try_files", func(int) []*Directive { return lines[0][3:4] }); level != 0 || len(dirs) != 1 {
		t.Errorf("try_files at the innermost level itself: %v at %d", dirs, level)
	}
}
