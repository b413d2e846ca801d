package format

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/parser"
)

// TestNginxVerdictUnchanged runs real nginx -t on a sample of corpus files
// before and after formatting, each inside the context its verdict row
// names, and requires the same verdict: accepted both times, or refused
// with the same message (the line may move).
func TestNginxVerdictUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nginx -t")
	}
	bin := nginxtest.Require(t)
	rows := nginxtest.CorpusVerdicts(t, corpusDir)
	sort.Slice(rows, func(i, j int) bool { return rows[i].Path < rows[j].Path })
	step := max(1, len(rows)/400)
	if os.Getenv("NGINXTUNE_FMT_ALL") != "" {
		step = 1
	}
	dir := t.TempDir()
	nginxtest.WriteSelfSigned(t, dir)
	nginxcheck.StockFiles(dir)
	wraps := map[string][2]string{
		"":       {"", ""},
		"http":   {"events {}\nhttp {\n", "\n}\n"},
		"server": {"events {}\nhttp {\nserver {\n", "\n}\n}\n"},
	}
	checked, same := 0, 0
	for i := 0; i < len(rows); i += step {
		r := rows[i]
		w, ok := wraps[r.Wrap]
		if !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(corpusDir, r.Path))
		if err != nil {
			continue
		}
		f, d := parser.Parse(r.Path, src)
		if d != nil {
			continue
		}
		out, err := Source(f, Options{})
		var refused *RefusedError
		if errors.As(err, &refused) {
			if r.OK {
				t.Errorf("%s: fmt refuses it (%v), nginx -t accepts it", r.Path, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", r.Path, err)
			continue
		}
		verdict := func(body []byte) nginxcheck.Result {
			// the file beside a main file that includes it, as nginx reads it
			os.WriteFile(filepath.Join(dir, "site.conf"), body, 0o644)
			main := w[0] + "include site.conf;" + w[1]
			if r.Wrap == "" {
				main = string(body)
			}
			os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644)
			return nginxtest.Run(t, bin, dir, filepath.Join(dir, "nginx.conf"))
		}
		before, after := verdict(src), verdict(out)
		checked++
		if before.OK == after.OK && before.Message == after.Message {
			same++
			continue
		}
		t.Errorf("%s: nginx -t said %v %q before formatting, %v %q after", r.Path, before.OK, before.Message, after.OK, after.Message)
	}
	t.Logf("nginx -t on %d corpus files before and after formatting: %d same verdicts", checked, same)
	if checked < 200 {
		t.Errorf("only %d files checked", checked)
	}
}

// TestNginxReadsFormattedFixtures runs real nginx -t on small files whose
// layout fmt changes (an if condition ending in a quoted word, a one-line
// map laid out, data bodies moved as a whole, values aligned): nginx must
// accept the original and the result alike.
func TestNginxReadsFormattedFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nginx -t")
	}
	bin := nginxtest.Require(t)
	dir := t.TempDir()
	src := "events {}\nhttp {\n  map $arg_a $a { default 0; ~x  1; }\n" +
		"  map $sent_http_content_type $cc {\n      default \"public\";\n\n      # none\n      \"\" \"no-store\";\n  }\n" +
		"  geo $g {\n    default 0;\n#   10.0.0.0/8 1;\n     127.0.0.1 1;\n  }\n" +
		"  server {\n    listen 127.0.0.1:8080;\n    root /tmp;\n    index index.html;\n    set $x \"\";\n\n" +
		"    location / {\n      if ($arg_s != \"\") { return 403; }\n      if ($a = '') { return 404; }\n      add_header X-A $a;\n      add_header X-Cache-Control $cc;\n    }\n  }\n}\n"
	for _, opt := range []Options{{}, {Indent: 4}, {Tabs: true}, {Align: true}} {
		f, d := parser.Parse("nginx.conf", []byte(src))
		if d != nil {
			t.Fatal(d.Message)
		}
		out, err := Source(f, opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		for _, body := range [][]byte{[]byte(src), out} {
			os.WriteFile(filepath.Join(dir, "nginx.conf"), body, 0o644)
			if r := nginxtest.Run(t, bin, dir, filepath.Join(dir, "nginx.conf")); !r.OK {
				t.Errorf("%+v: nginx -t refuses\n%s\n%s", opt, body, r.Message)
			}
		}
	}
}
