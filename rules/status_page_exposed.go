package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var statusPageExposed = &engine.Rule{
	Doc: engine.Doc{
		ID:    "status-page-exposed",
		Title: "A status page open to everyone",
		Why: `stub_status (and nginx Plus's api and status) tell anyone who asks how many connections
and requests the server handles: a load figure an attacker uses to time and measure an attack,
and, for api, an interface that can change the configuration. A site or snippet linted on its own, whose including blocks are unknown, gets a warning that
says so when nothing in it restricts access, or when its own allow/deny list lets everyone in
("allow all; deny all;": nginx applies the first rule that matches), since a block's list
replaces the inherited one; linted inside its tree, the levels above decide. An "if" that
refuses (return 401, 403, 404 or 444) on a variable, such as a geo of the allowed hosts,
restricts too.`,
		Fix:      `Allow the monitoring hosts and deny the rest ("allow 127.0.0.1; deny all;"), or require auth.`,
		Bad:      "events {}\nhttp {\n    server {\n        location = /nginx_status {\n            stub_status;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location = /nginx_status {\n            stub_status;\n            allow 127.0.0.1;\n            deny all;\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_stub_status_module", "nginx docs: ngx_http_api_module"},
	},
	Check: check(checkStatusPageExposed),
}

func checkStatusPageExposed(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || c.In() != parser.CtxLocation || listensOnLoopbackOnly(c) {
			return // "status" is also a match block's test; not that
		}
		if len(engine.FindIn(c.Blocks[len(c.Blocks)-1].Block, "internal")) > 0 {
			return // reachable only through internal redirects
		}
		if refusesByCondition(c.Blocks[len(c.Blocks)-1]) {
			return // "if ($not_allowed) { return 404; }": a geo or map decides
		}
		if p.restricted(c) {
			// a fragment read alone: the levels that include it are
			// unknown, and may restrict access; say what the fragment shows
			switch {
			case !fragmentAlone(p, c):
			case p.openHere(c):
				p.ReportSeverityf(finding.Warning, d, "%s answers anyone who asks, unless the block that includes this file restricts access (nothing here does); add \"allow <monitoring host>; deny all;\" or auth", d.Name)
			case !p.accessClosed(c) && !guardedHere(c):
				// the fragment's own allow/deny list decides (a level's list
				// replaces the inherited one), and it lets everyone in; only
				// auth from the including block could still keep clients out
				p.ReportSeverityf(finding.Warning, d, "%s answers anyone (the first allow/deny that matches applies): here %s, unless the including block requires auth; list the monitoring hosts first and end with \"deny all;\"", d.Name, openList(c))
			}
			return
		}
		p.Reportf(d, "%s answers anyone who asks; add \"allow <monitoring host>; deny all;\" or auth", d.Name)
	}, "stub_status", "api", "status")
}

// refusesByCondition reports whether a block answers some requests with a
// refusal before its handler runs: an "if" on a variable (a geo or map of
// the allowed clients) whose block returns 401, 403, 404 or 444.
func refusesByCondition(b *parser.Directive) bool {
	for _, x := range parser.Level(b.Block) {
		if x.Name != "if" {
			continue
		}
		for _, r := range engine.FindIn(x.Block, "return") {
			switch r.Arg(0) {
			case "401", "403", "404", "444":
				return true
			}
		}
	}
	return false
}

// openList says why the allow/deny list in effect at c, the innermost one,
// lets everyone in: "allow all" comes first, or nothing denies all.
func openList(c *parser.Context) string {
	levels := make([][]*parser.Directive, 0, len(c.Blocks)+1)
	for i := len(c.Blocks) - 1; i >= 0; i-- {
		levels = append(levels, c.Blocks[i].Block)
	}
	if c.Root != nil {
		levels = append(levels, c.Root.Directives)
	}
	for _, dirs := range levels {
		listed := false
		for _, x := range parser.Level(dirs) {
			if x.Name != "allow" && x.Name != "deny" {
				continue
			}
			listed = true
			if x.Arg(0) == "all" && x.Name == "allow" {
				return fmt.Sprintf("\"allow all\" (line %d) comes before any \"deny all\"", x.Line)
			}
		}
		if listed {
			break
		}
	}
	return "no \"deny all\" follows the rules, so a client no rule names is let in"
}

// fragmentAlone reports whether c is in a file read on its own whose
// context was inferred or declared (a site or a snippet), with nothing
// left unread: what includes it is unknown, what it holds is known.
func fragmentAlone(p *Pass, c *parser.Context) bool {
	return c.Root != nil && len(c.Root.Context) > 1 && !p.Tree.HasUnread()
}

// openHere reports whether no level inside the fragment restricts access:
// no auth and no allow/deny in the blocks around c within the file.
func (p *Pass) openHere(c *parser.Context) bool {
	return !guardedHere(c, "allow", "deny")
}

// guardedHere reports whether a level inside the fragment, around c, holds
// auth, satisfy, an include (which may hold either), or one of more.
func guardedHere(c *parser.Context, more ...string) bool {
	levels := make([][]*parser.Directive, 0, len(c.Blocks)+1)
	for _, b := range c.Blocks {
		levels = append(levels, b.Block)
	}
	if c.Root != nil {
		levels = append(levels, c.Root.Directives)
	}
	for _, dirs := range levels {
		for _, x := range parser.Level(dirs) {
			if x.Name == "include" || knowledge.IsAccessCheck(x.Name) || slices.Contains(more, x.Name) {
				return true
			}
		}
	}
	return false
}

// listensOnLoopbackOnly reports whether the server around a place listens
// only on loopback addresses or unix sockets.
func listensOnLoopbackOnly(c *parser.Context) bool {
	srv := c.Enclosing(parser.CtxServer)
	if srv == nil {
		return false
	}
	listens := engine.FindIn(srv.Block, "listen")
	if len(listens) == 0 {
		return false
	}
	for _, l := range listens {
		if a := l.Arg(0); !strings.HasPrefix(a, "unix:") && !loopbackAddr(a) {
			return false
		}
	}
	return true
}
