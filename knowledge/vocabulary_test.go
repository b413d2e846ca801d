package knowledge

import (
	"flag"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	gonginx "github.com/tufanbarisyildirim/gonginx/parser"

	"github.com/nginxtune/nginxtune/internal/textdiff"
)

var update = flag.Bool("update", false, "rewrite gonginx-directives.txt from the pinned gonginx, and testdata/only-gonginx.txt")

// The vocabulary IsDirective takes from gonginx is a copy of the pinned
// gonginx's ValidDirectives (so that the program does not link gonginx's
// parser and build its map at every start); this keeps the copy exact.
func TestGonginxVocabulary(t *testing.T) {
	var names []string
	for n := range gonginx.ValidDirectives {
		if n != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	want := "# gonginx's parser.ValidDirectives (github.com/tufanbarisyildirim/gonginx, the version go.mod pins),\n" +
		"# sorted; written by: go test ./knowledge -run TestGonginxVocabulary -update\n" + strings.Join(names, "\n") + "\n"
	if *update {
		if err := os.WriteFile("gonginx-directives.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return // the test binary embedded the old copy
	}
	if gonginxDirectives != want {
		t.Errorf("gonginx-directives.txt is not gonginx's list: go test ./knowledge -run TestGonginxVocabulary -update")
	}
	if got := gonginxNames(); !slices.Equal(got, names) {
		t.Errorf("gonginxNames has %d names, gonginx %d", len(got), len(names))
	}
	for _, n := range []string{"proxy_pass", "content_by_lua_block", names[0], names[len(names)-1]} {
		if !IsDirective(n) {
			t.Errorf("IsDirective(%q) is false", n)
		}
	}
	for _, n := range []string{"", "proxy_pas", "locaton"} {
		if IsDirective(n) {
			t.Errorf("IsDirective(%q) is true", n)
		}
	}
}

// Where gonginx's list of directives and the generated table disagree, the
// table wins; the differences are pinned in testdata/only-gonginx.txt
// (modules Debian does not ship, nginx Plus), so that a new one is looked
// at: a directive the table lost, or one gonginx added (go test ./knowledge
// -run TestDirectiveTableAgainstGonginx -update after reviewing it).
func TestDirectiveTableAgainstGonginx(t *testing.T) {
	var onlyGonginx []string
	for _, n := range gonginxNames() {
		if len(Lookup(n)) == 0 {
			onlyGonginx = append(onlyGonginx, n)
		}
	}
	got := strings.Join(onlyGonginx, "\n") + "\n"
	const pinned = "testdata/only-gonginx.txt"
	if *update {
		os.WriteFile(pinned, []byte(got), 0o644)
	}
	want, err := os.ReadFile(pinned)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("directives gonginx knows and the table does not changed (%s, -update after review):\n%s", pinned, textdiff.Unified(pinned, "now", string(want), got))
	}
	if len(Names()) < 900 {
		t.Errorf("the table has %d names", len(Names()))
	}
}
