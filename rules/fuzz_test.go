package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// FuzzLintFix lints a tree of two files (a main file that includes a
// snippet) and fixes it as lint --fix does (the same FixSession, writing
// plainly): no panic, every edit inside its file, and a tree that parsed
// cleanly still parses cleanly after every round. go test -fuzz FuzzLintFix
// ./rules
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
		cfg := engine.Config{Version: knowledge.MustVersion("1.22.1")}
		lint := func() ([]finding.Diagnostic, bool, []*loader.Tree, error) {
			tr, err := loader.Load(p, loader.Options{})
			if err != nil {
				return nil, false, nil, err
			}
			broken := false
			for _, d := range tr.Diagnostics {
				broken = broken || d.Rule == parser.Syntax
			}
			return Run(tr, cfg), broken, []*loader.Tree{tr}, nil
		}
		diags, broken, trees, err := lint()
		if err != nil {
			return
		}
		session := FixSession{Lint: lint, Apply: func(set engine.FixSet, trees []*loader.Tree) ([]string, error) {
			var written []string
			for name, edits := range set.Edits {
				f := trees[0].File(name)
				for _, e := range edits {
					if f == nil || e.Start < 0 || e.Start > e.End || e.End > len(f.Src) {
						t.Fatalf("edit %d-%d outside %s", e.Start, e.End, name)
					}
				}
				out, err := engine.ApplyEdits(f.Src, edits)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				os.WriteFile(name, out, 0o644)
				written = append(written, name)
			}
			return written, nil
		}}
		if _, err := session.Run(diags, trees, broken); err != nil {
			b, _ := os.ReadFile(p)
			s, _ := os.ReadFile(filepath.Join(dir, "snippet.conf"))
			t.Fatalf("%v\n%s\n--- snippet.conf\n%s", err, b, s)
		}
	})
}
