package rules

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/nginxtune/nginxtune/knowledge"

	"github.com/nginxtune/nginxtune/parser"
)

// FuzzLintFix lints a tree of two files (a main file that includes a
// snippet) and applies the fixes the findings carry: no panic, every edit
// inside its file, and a tree that parsed cleanly still parses cleanly
// after the fixes. go test -fuzz FuzzLintFix ./rules
func FuzzLintFix(f *testing.F) {
	f.Add([]byte("events {}\nhttp {\n    include snippet.conf;\n    server { listen 80; location / { proxy_pass http://127.0.0.1:8080; } }\n}\n"),
		[]byte("gzip on;\ngzip_comp_level 9;\n"))
	f.Add([]byte("worker_processes 1;\nevents { worker_connections 4096; }\nhttp { server { listen 443 ssl http2; ssl on; } }\n"),
		[]byte("sendfile off;\n"))
	f.Add([]byte("events {}\nhttp {\n upstream a { server 127.0.0.1:1; }\n server { location / { proxy_set_header X a; proxy_pass http://a; include snippet.conf; } }\n}\n"),
		[]byte("proxy_set_header Host $host;\n"))
	f.Fuzz(func(t *testing.T, main, snippet []byte) {
		if len(main)+len(snippet) > 1<<16 {
			return
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "nginx.conf")
		os.WriteFile(p, main, 0o644)
		os.WriteFile(filepath.Join(dir, "snippet.conf"), snippet, 0o644)
		tr, err := parser.Load(p, parser.Options{})
		if err != nil {
			return
		}
		clean := true
		for _, d := range tr.Diagnostics {
			if d.Kind == "syntax" {
				clean = false
			}
		}
		diags := Run(tr, Config{Version: knowledge.MustVersion("1.22.1")})
		perFile := map[string][]Edit{}
		for _, d := range diags {
			if d.Fix == nil {
				continue
			}
			ok := true
			for _, e := range d.Fix.Edits {
				f := tr.File(e.File)
				if f == nil || e.Start < 0 || e.Start > e.End || e.End > len(f.Src) {
					t.Fatalf("%s: edit %d-%d outside %s (%d bytes)", d.Rule, e.Start, e.End, e.File, len(f.Src))
				}
				for _, o := range perFile[e.File] {
					if e.Start < o.End && o.Start < e.End || e.Start == o.Start {
						ok = false
					}
				}
			}
			if ok {
				for _, e := range d.Fix.Edits {
					perFile[e.File] = append(perFile[e.File], e)
				}
			}
		}
		for name, edits := range perFile {
			src := tr.File(name).Src
			sort.Slice(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
			var out []byte
			at := 0
			for _, e := range edits {
				out = append(append(out, src[at:e.Start]...), e.New...)
				at = e.End
			}
			out = append(out, src[at:]...)
			os.WriteFile(name, out, 0o644)
		}
		if !clean || len(perFile) == 0 {
			return
		}
		tr2, err := parser.Load(p, parser.Options{})
		if err != nil {
			t.Fatalf("the fixed tree does not load: %v", err)
		}
		for _, d := range tr2.Diagnostics {
			if d.Kind == "syntax" {
				b, _ := os.ReadFile(d.File)
				t.Fatalf("the fixes broke the syntax: %s\n%s", d.Message, b)
			}
		}
	})
}
