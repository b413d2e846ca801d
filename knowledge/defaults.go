package knowledge

import (
	_ "embed"
	"strings"
	"sync"
)

// defaults.tsv holds the defaults nginx computes in code (root's "html",
// worker_connections' DEFAULT_CONNECTIONS, the TLS protocols of the
// build), which the generator leaves out of directives.tsv: each row fills
// the empty default of the table's rows for its directive and module.
//
//go:embed defaults.tsv
var defaultsTSV string

// computedDefaults maps "name<TAB>module" to the default.
var computedDefaults = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(defaultsTSV, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if f := strings.Split(l, "\t"); len(f) == 4 {
			m[f[0]+"\t"+f[1]] = f[2]
		}
	}
	return m
})
