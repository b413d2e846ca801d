package rules

import (
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// ContextKey names the context a statement stands in, from its context
// stack (["main", "http", "server"]), as the directive table's context
// keys do ("server", "if-location", "stream-server", ...); "" inside
// blocks nginxtune cannot place. For editors: completion offers what the
// table allows there.
func ContextKey(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return engine.ContextKey(&parser.Context{Names: names})
}

// Available reports whether nginx v has the directive, by the same
// reading of the table as unknown-directive (a zero v: any version).
func Available(name string, v knowledge.Version) bool {
	p := &Pass{Pass: &engine.Pass{Version: v}}
	known, _, _ := p.knownIn(name, knowledge.Lookup(name))
	return known
}
