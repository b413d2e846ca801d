package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Helpers of the rules about workers and their open files: the main
// context's roots, the open_file_cache size, the worker_rlimit_nofile fix.

// mainLevel returns the directives of the main context of every root that is
// a main file, with the root.
func mainRoots(t *loader.Tree) []*parser.File {
	var out []*parser.File
	for _, r := range t.Roots {
		if len(r.Context) == 1 && r.Context[0] == parser.CtxMain && r.ContextSource == "root" {
			out = append(out, r)
		}
	}
	return out
}

// proxies reports whether the tree passes requests to backends.
func (p *Pass) proxies() bool {
	found := false
	p.Each(func(d *parser.Directive, c *parser.Context) { found = true }, knowledge.PassHandlers()...)
	return found
}

// openFileCacheMax returns the largest open_file_cache max= in the tree.
func (p *Pass) openFileCacheMax() int {
	m := 0
	p.Each(func(d *parser.Directive, c *parser.Context) {
		for _, a := range d.Args {
			if v, ok := strings.CutPrefix(a.Value, "max="); ok {
				if n, err := strconv.Atoi(v); err == nil && n > m {
					m = n
				}
			}
		}
	}, "open_file_cache")
	return m
}

// softLimit is the open-file limit services commonly start with: systemd's
// default soft limit since v240, and most shells' ulimit -n.
const softLimit = 1024

// rlimitFix adds worker_rlimit_nofile before the events block of the root,
// or returns nil when the events block is in another file.
func (p *Pass) rlimitFix(r *parser.File, need int) *finding.Fix {
	var fix *finding.Fix
	for _, ev := range p.Find(r.Directives, "events") {
		if ev.File == r {
			fix = &finding.Fix{Description: fmt.Sprintf("add worker_rlimit_nofile %d;", need),
				Edits: []finding.Edit{engine.InsertBefore(ev, fmt.Sprintf("worker_rlimit_nofile %d;", need))}}
		}
	}
	return fix
}
