package diff

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/nginxtune/nginxtune/format"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxserve"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/parser"
)

// corpusDir is the shared corpus, beside the repository.
const corpusDir = "../../shared/corpus"

// formatted is the tree as fmt writes it, two spaces a level (so that the
// layout changes even where the file had fmt's own).
func formatted(t *testing.T, files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for name, b := range files {
		out[name] = b
		f, diag := parser.Parse(name, b)
		if diag != nil {
			continue
		}
		if src, err := format.Source(f, format.Options{Indent: 2}); err == nil {
			out[name] = src
		}
	}
	return out
}

// mutated is the tree with a regex location added at the top of its
// first server: it takes every .php and .txt URI from the locations after
// it (and from prefix locations anywhere that are not ^~).
func mutated(files map[string][]byte) (map[string][]byte, bool) {
	const add = " location ~* \\.(php|txt)$ { return 418; }"
	out := map[string][]byte{}
	for name, b := range files {
		out[name] = b
	}
	name, parent := "nginx.conf", "main"
	if site, ok := files["site.conf"]; ok {
		name, parent = "site.conf", "http"
		if bytes.Contains(files["nginx.conf"], []byte("include site.conf;\n    }")) {
			// a server fragment: its top level is the server's
			out[name] = append([]byte(add+"\n"), site...)
			return out, true
		}
	}
	b := files[name]
	f, diag := parser.Parse(name, b)
	if diag != nil {
		return nil, false
	}
	var walk func([]*parser.Directive, string) bool
	walk = func(ds []*parser.Directive, parent string) bool {
		for _, d := range ds {
			switch {
			case d.Name == "server" && d.Block != nil && parent == "http":
				at := int(d.BlockOpen) + 1
				out[name] = append(append(append([]byte{}, b[:at]...), add...), b[at:]...)
				return true
			case d.Name == "http" && d.Block != nil && walk(d.Block, "http"):
				return true
			}
		}
		return false
	}
	return out, walk(f.Directives, parent)
}

// TestCorpusPairsAgreeWithNginx makes two pairs of each of an even sample
// of corpus files (NGINXTUNE_DIFF_CORPUS=N widens it, 0: all): the file
// against its fmt output, where diff must say "no change in behaviour",
// and against a mutation (a regex location added at the top of its first
// server), served with real nginx as TestFixturesAgreeWithNginx does.
func TestCorpusPairsAgreeWithNginx(t *testing.T) {
	nginxtest.RequireCorpus(t, corpusDir)
	nginxtest.Require(t)
	limit := 16
	if v := os.Getenv("NGINXTUNE_DIFF_CORPUS"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	var served, skipped, requests, differ, reported, unobservable, mayChange int
	skips := map[string]int{}
	for _, tr := range nginxserve.CorpusTrees(t, corpusDir, limit) {
		t.Run(filepath.ToSlash(tr.Name), func(t *testing.T) {
			// fmt's output against the file, as diff reads both
			dir := t.TempDir()
			nginxserve.Copy(t, filepath.Join(dir, "old"), tr.Files)
			nginxserve.Copy(t, filepath.Join(dir, "new"), formatted(t, tr.Files))
			old, new, err := loadPair(filepath.Join(dir, "old"), filepath.Join(dir, "new"))
			if err != nil {
				t.Fatal(err)
			}
			if rep := Compare(old, new, Options{Every: true}); rep.Changed() {
				t.Errorf("fmt's output changes behaviour: %d changes, %d settings; first %s", len(rep.Changes), len(rep.Settings), firstChange(rep))
			}
			mut, ok := mutated(tr.Files)
			if !ok {
				skips["no http server to mutate"]++
				return
			}
			pc, skip := servePair(t, tr.Files, mut)
			if skip != "" {
				skipped++
				skips[skip]++
				return
			}
			served++
			requests += pc.answered
			differ += pc.nginxDiffers
			reported += pc.reported
			unobservable += pc.unobservable
			mayChange += pc.mayChange
			for _, l := range pc.missedLines {
				t.Error("not reported:", l)
			}
			for _, l := range pc.falseLines {
				t.Error("reported, but nginx answers the same:", l)
			}
		})
	}
	t.Logf("corpus: %d pairs served (%d not served); %d requests answered by nginx in both trees, %d answered differently, %d of those reported; %d reported changes nginx cannot show; %d reported as uncertain that nginx answers the same", served, skipped, requests, differ, reported, unobservable, mayChange)
	for why, n := range skips {
		t.Logf("not served %d: %s", n, why)
	}
	if served < limit/2 {
		t.Errorf("%d pairs served of %d", served, limit)
	}
}

func firstChange(rep *Report) string {
	if len(rep.Changes) > 0 {
		c := rep.Changes[0]
		return RequestLine(c.Requests[0]) + ": " + c.Old[0].Describe() + " -> " + c.New[0].Describe()
	}
	if len(rep.Settings) > 0 {
		s := rep.Settings[0]
		return s.Block + " " + s.Name
	}
	return ""
}
