package format

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/nginxtest"
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
	rows := verdictRows(t)
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
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
		w, ok := wraps[r[2]]
		if !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(corpusDir, r[0]))
		if err != nil {
			continue
		}
		f, d := parser.Parse(r[0], src)
		if d != nil {
			continue
		}
		out, err := Source(f, Options{})
		if err != nil {
			t.Errorf("%s: %v", r[0], err)
			continue
		}
		verdict := func(body []byte) nginxcheck.Result {
			// the file beside a main file that includes it, as nginx reads it
			os.WriteFile(filepath.Join(dir, "site.conf"), body, 0o644)
			main := w[0] + "include site.conf;" + w[1]
			if r[2] == "" {
				main = string(body)
			}
			os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644)
			return nginxcheck.Run(bin, dir, filepath.Join(dir, "nginx.conf"))
		}
		before, after := verdict(src), verdict(out)
		checked++
		if before.OK == after.OK && before.Message == after.Message {
			same++
			continue
		}
		t.Errorf("%s: nginx -t said %v %q before formatting, %v %q after", r[0], before.OK, before.Message, after.OK, after.Message)
	}
	t.Logf("nginx -t on %d corpus files before and after formatting: %d same verdicts", checked, same)
	if checked < 200 {
		t.Errorf("only %d files checked", checked)
	}
}

func verdictRows(t *testing.T) [][]string {
	nginxtest.RequireCorpus(t, filepath.Join(corpusDir, "nginx-t-verdicts.tsv"))
	f, err := os.Open(filepath.Join(corpusDir, "nginx-t-verdicts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if r := strings.Split(sc.Text(), "\t"); len(r) >= 3 && r[0] != "path" {
			rows = append(rows, r)
		}
	}
	return rows
}
