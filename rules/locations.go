package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Helpers of several rules: how a location matches, and whether access
// to it is closed.

// locationIsPrefix reports whether a location matches by prefix (no
// modifier, or ^~), and returns its path.
func locationIsPrefix(loc *parser.Directive) (string, bool) {
	switch len(loc.Args) {
	case 1:
		if strings.HasPrefix(loc.Arg(0), "@") {
			return "", false
		}
		return loc.Arg(0), true
	case 2:
		if loc.Arg(0) == "^~" {
			return loc.Arg(1), true
		}
	}
	return "", false
}

// locationRegex returns the regex of a regex location.
func locationRegex(loc *parser.Directive) (string, bool) {
	switch {
	case len(loc.Args) == 2 && (loc.Arg(0) == "~" || loc.Arg(0) == "~*"):
		return loc.Arg(1), true
	case len(loc.Args) == 1 && strings.HasPrefix(loc.Arg(0), "~"):
		return strings.TrimLeft(loc.Arg(0)[1:], "*"), true
	}
	return "", false
}

// accessChecks are the access phase's directives besides allow and deny.
var accessChecks = knowledge.AccessChecks()

// restricted reports whether access to a place is limited: deny, auth or
// auth_request in effect.
func (p *Pass) restricted(c *parser.Context) bool {
	for _, name := range accessChecks {
		if s := p.Effective(c.Blocks, c.Root, name); s.Found() && s.Last().Arg(0) != "off" || !s.Complete {
			return true
		}
	}
	return p.accessClosed(c)
}

// accessClosed reports whether the allow/deny rules in effect keep most
// clients out. They are one list, taken whole from the innermost level that
// has any, and nginx applies the first that matches a client: the list
// closes only when "deny all" comes before any "allow all" ("allow all;
// deny all;" is open, and so is "deny 10.0.0.0/8;" alone, since a client
// no rule matches is let in). A level with an include nginxtune did not
// read counts as closed: it may hold the rules.
func (p *Pass) accessClosed(c *parser.Context) bool {
	var levels [][]*parser.Directive
	for i := len(c.Blocks) - 1; i >= 0; i-- {
		levels = append(levels, c.Blocks[i].Block)
	}
	if c.Root != nil {
		levels = append(levels, c.Root.Directives)
	}
	names := engine.LevelNames(c.Root, c.Blocks)
	for i, dirs := range levels {
		var rules []*parser.Directive
		for _, d := range parser.Level(dirs) {
			if d.Name == "allow" || d.Name == "deny" {
				rules = append(rules, d)
			}
		}
		if len(rules) == 0 {
			// the level's context: levels run from the innermost block
			// out to the root's top
			if p.UnreadMayHold(dirs, names[:len(names)-i], "allow", "deny") {
				return true
			}
			continue
		}
		for _, r := range rules {
			if r.Arg(0) == "all" {
				return r.Name == "deny"
			}
		}
		return false // every client no rule names is let in
	}
	return c.Root != nil && c.Root.ContextSource != "root" // a snippet: the levels above are unknown
}
