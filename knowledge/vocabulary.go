package knowledge

import (
	_ "embed"
	"sort"
	"strings"
	"sync"
)

// IsDirective reports whether name is a directive of nginx or of a widely
// used module. The vocabulary is the directive table generated from nginx's
// and the modules' sources and gonginx's list of valid directives (nginx
// Plus, njs, OpenResty's Lua directives, ...).
func IsDirective(name string) bool {
	if name == "" {
		return false
	}
	if Has(name) {
		return true
	}
	names := gonginxNames()
	i := sort.SearchStrings(names, name)
	return i < len(names) && names[i] == name
}

// gonginxDirectives is gonginx's ValidDirectives, one name a line, sorted:
// copied from the pinned gonginx by a test (TestGonginxVocabulary, which
// fails when the two differ; -update rewrites it), because linking gonginx's
// parser package builds its map of 780 names at every start of the program,
// the pre-commit hook's too (a twentieth of the hook's run).
//
//go:embed gonginx-directives.txt
var gonginxDirectives string

var gonginxNames = sync.OnceValue(func() []string {
	var out []string
	for _, l := range strings.Split(gonginxDirectives, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
})
