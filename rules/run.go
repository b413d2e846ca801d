package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Run runs every enabled rule of All over the tree (engine.Run): the
// findings sorted by file and position, suppressions and overrides
// applied.
func Run(t *loader.Tree, cfg engine.Config) []finding.Diagnostic {
	out, _ := engine.Run(t, All, cfg)
	return out
}

// RunCounted is Run, and how many findings past engine.MaxFindings it
// left out: a bound of one run, like the tree's bounds, that the command
// reports (and exits 2 for).
func RunCounted(t *loader.Tree, cfg engine.Config) ([]finding.Diagnostic, int) {
	return engine.Run(t, All, cfg)
}

// ByID returns the rule with the given id, or nil.
func ByID(id string) *engine.Rule {
	for _, r := range All {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Select expands rule ids and "category:NAME" entries into the ids of
// rules of All.
func Select(names []string) ([]string, error) { return engine.Select(All, names) }

// DocsMarkdown renders docs/rules.md from All.
func DocsMarkdown() string { return engine.DocsMarkdown(All) }

// LoaderRule reports whether a rule reports what reading the tree found
// (its category is input): they stay on when --enable picks rules, and
// their findings stand in a file read only up to a syntax error.
func LoaderRule(id string) bool {
	r := ByID(id)
	return r != nil && r.Category == engine.CategoryInput
}

// nginxRefuses are the rules whose errors nginx -t reports too: the
// configuration does not load. A settings file may not lower or disable
// them (lint.LoadFoundConfig), and a run they fire in fails whatever fail-on a
// settings file sets; the command line still may.
var nginxRefuses = map[string]bool{"syntax": true, "include-missing": true, "include-cycle": true,
	"directive-args": true, "directive-context": true, "directive-duplicate": true, "unknown-directive": true, "duplicate-definition": true, "undefined-reference": true,
	"ssl-directive-removed": true, "host-module-missing": true}

// NginxRefuses reports whether a rule's errors are errors nginx -t reports.
func NginxRefuses(id string) bool { return nginxRefuses[id] }
