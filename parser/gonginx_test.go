package parser

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tufanbarisyildirim/gonginx/config"
	gonginx "github.com/tufanbarisyildirim/gonginx/parser"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// corpusDir is the shared corpus of real-world configurations, next to the
// project checkout. Tests that use it skip when it is absent.
const corpusDir = "../../shared/corpus"

// TestAgreesWithGonginx parses every corpus file that gonginx reads without
// error with both parsers and compares the directive names and end lines in
// document order. gonginx is the reference tree builder the project started
// from; differences must be ones where nginx itself sides with nginxtune.
func TestAgreesWithGonginx(t *testing.T) {
	vs := nginxtest.CorpusVerdicts(t, corpusDir)
	var compared, same int
	var diffs []string
	for _, v := range vs {
		p := filepath.Join(corpusDir, v.Path)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := gonginx.NewStringParser(string(src), gonginx.WithSkipValidDirectivesErr()).Parse()
		if err != nil {
			continue
		}
		f := &File{Path: p, Src: src}
		if parseFile(f) != nil {
			continue
		}
		compared++
		var ours, theirs []string
		WalkFile(f.Directives, func(d *Directive) {
			if strings.HasSuffix(d.Name, "_by_lua_block") {
				ours = append(ours, d.Name)
				return
			}
			ours = append(ours, d.Name+"@"+itoaT(int(d.EndLine)))
		})
		var visit func(ds []config.IDirective)
		visit = func(ds []config.IDirective) {
			for _, d := range ds {
				if strings.HasSuffix(d.GetName(), "_by_lua_block") {
					theirs = append(theirs, d.GetName())
					continue
				}
				theirs = append(theirs, d.GetName()+"@"+itoaT(d.GetLine()))
				if b := d.GetBlock(); b != nil && !IsDataBlock(d.GetName()) {
					visit(b.GetDirectives())
				}
			}
		}
		visit(cfg.Block.GetDirectives())
		// gonginx's upstream type lists its servers apart from the other
		// directives, so compare the statements as sorted lists.
		sort.Strings(ours)
		sort.Strings(theirs)
		if strings.Join(ours, " ") == strings.Join(theirs, " ") {
			same++
			continue
		}
		diffs = append(diffs, v.Path+": "+firstDiff(ours, theirs))
	}
	t.Logf("gonginx: compared %d files, same tree %d, different %d", compared, same, len(diffs))
	if compared < 2000 {
		t.Errorf("compared only %d corpus files with gonginx (2,520 read with both)", compared)
	}
	for _, d := range diffs {
		t.Error("  ", d)
	}
}

func itoaT(n int) string { return strconv.Itoa(n) }

func firstDiff(a, b []string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return "nginxtune " + a[i] + " / gonginx " + b[i]
		}
	}
	return "lengths " + itoaT(len(a)) + " / " + itoaT(len(b))
}
