package parser

import (
	_ "embed"
	"strings"

	"github.com/nginxtune/nginxtune/knowledge"
)

// Context names used in context stacks.
const (
	CtxMain        = "main"
	CtxEvents      = "events"
	CtxHTTP        = "http"
	CtxServer      = "server"
	CtxLocation    = "location"
	CtxUpstream    = "upstream"
	CtxIf          = "if"
	CtxLimitExcept = "limit_except"
	CtxStream      = "stream"
	CtxMail        = "mail"
)

// dataBlock reports whether a block of this name holds data rather than
// directives: map, geo, types, split_clients, charset_map. A switch, not a
// map: every walk of the tree asks it of every block and of every directive
// (a map look-up hashed each name, a twelfth of loading a large tree).
func dataBlock(name string) bool {
	switch name {
	case "map", "geo", "types", "split_clients", "charset_map":
		return true
	}
	return false
}

// IsDataBlock reports whether the block's body is a list of entries (map,
// geo, types, ...) rather than directives.
func IsDataBlock(name string) bool {
	return dataBlock(name) || strings.HasSuffix(name, "_by_lua_block")
}

// inferOrder is the nesting of the http family from outside in (then
// events, stream and mail); inference picks the outermost context every
// top-level directive accepts, by its key in the directive table
// (inferKeys).
var inferOrder = [...][]string{
	{CtxMain},
	{CtxMain, CtxHTTP},
	{CtxMain, CtxHTTP, CtxServer},
	{CtxMain, CtxHTTP, CtxServer, CtxLocation},
	{CtxMain, CtxHTTP, CtxUpstream},
	{CtxMain, CtxEvents},
	{CtxMain, CtxStream},
	{CtxMain, CtxStream, CtxServer},
	{CtxMain, CtxMail},
}

// inferKeys are inferOrder's context keys.
var inferKeys = func() (keys [len(inferOrder)]string) {
	for i, stack := range inferOrder {
		keys[i] = knowledge.ContextKey(stack)
	}
	return keys
}()

// inferContext guesses the context stack of a snippet from the directives at
// its top level: the outermost context that accepts the most of them, by
// the directive table.
func inferContext(dirs []*Directive) []string {
	var scores [len(inferOrder)]int
	for _, d := range dirs {
		// where the table lets the name stand, in any of its forms
		var mask uint32
		for _, x := range knowledge.Lookup(d.Name) {
			mask |= x.Mask
		}
		for i := range inferOrder {
			if mask&(knowledge.ContextBit(inferKeys[i])|1<<31) != 0 {
				scores[i]++
			}
		}
	}
	best, bestScore := -1, 0
	for i, score := range scores {
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return []string{CtxMain}
	}
	return append([]string(nil), inferOrder[best]...)
}

// parseContextSpec turns "http,server" (as written in a
// "# nginxtune: context=" comment) into a full stack starting at main.
func parseContextSpec(spec string) []string {
	stack := []string{CtxMain}
	for _, p := range strings.Split(spec, ",") {
		p = strings.TrimSpace(p)
		if p == "" || p == CtxMain {
			continue
		}
		stack = append(stack, p)
	}
	return stack
}
