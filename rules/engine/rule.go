// Package engine runs rules over a parsed nginx configuration and returns
// their findings: the Rule and Doc types, the Pass a check receives (the
// tree walked once, directives in effect, reporting), scheduling, the
// suppressions written in the configuration's comments, path-scoped
// overrides, fix selection and application, and the rules' documentation.
// It knows no rule: package rules holds the checks and the list they run
// from.
package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
)

// Doc is everything a user reads about a rule. `nginxtune explain`,
// docs/rules.md and SARIF rule metadata are all generated from it.
type Doc struct {
	ID       string           // kebab-case, part of the contract
	Title    string           // one line
	Why      string           // what it costs, with measured figures where we have them
	Fix      string           // what to write instead
	Bad      string           // a configuration that must trigger the rule
	Good     string           // the same configuration fixed, which must not
	Severity finding.Severity // default severity
	Category Category         // what kind of problem it finds
	Since    string           // nginxtune version that introduced the rule
	Versions string           // nginx versions the advice applies to ("all" or a range)
	Sources  []string         // where the facts come from
}

// Category is the kind of problem a rule finds: code scanning (SARIF tags,
// security-severity), docs/rules.md and --enable category:NAME read it.
type Category string

const (
	// CategorySecurity: what an attacker or any client can use (exposure,
	// injection, weak TLS, access control that does not hold).
	CategorySecurity Category = "security"
	// CategoryPerformance: speed and capacity lost to the configuration.
	CategoryPerformance Category = "performance"
	// CategoryCorrectness: what nginx refuses, or does otherwise than the
	// configuration reads.
	CategoryCorrectness Category = "correctness"
	// CategoryHost: the configuration against the machine it runs on.
	CategoryHost Category = "host"
	// CategoryInput: what reading the tree found (syntax, includes,
	// suppressions).
	CategoryInput Category = "input"
)

// Categories lists the categories in the order docs/rules.md shows them.
var Categories = []Category{CategoryCorrectness, CategorySecurity, CategoryPerformance, CategoryHost, CategoryInput}

// Select expands rule ids and "category:NAME" entries into the ids of
// rules of all.
func Select(all []*Rule, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		c, ok := strings.CutPrefix(n, "category:")
		if !ok {
			if !slices.ContainsFunc(all, func(r *Rule) bool { return r.ID == n }) {
				return nil, fmt.Errorf("%q is not a rule (see nginxtune rules)", n)
			}
			out = append(out, n)
			continue
		}
		found := false
		for _, k := range Categories {
			if string(k) == c {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%q: no such category (%s)", n, categoryNames())
		}
		for _, r := range all {
			if string(r.Category) == c {
				out = append(out, r.ID)
			}
		}
	}
	return out, nil
}

func categoryNames() string {
	var s []string
	for _, c := range Categories {
		s = append(s, "category:"+string(c))
	}
	return strings.Join(s, ", ")
}

// Rule is a check with its documentation, and what the engine needs to
// know of it besides.
type Rule struct {
	Doc
	Check func(*Pass)
	// Slow ranks the checks that take longest on large trees (they look at
	// every server, location or proxy_pass: 20-170 ms on the trees of make
	// bench-lint, where most take under 10): when rules run in parallel the
	// slowest are handed out first, so that no worker is left with one of
	// them while the others have finished. 0 for the rest.
	Slow int
	// LineByLine: nginx judges the rule's matter directive by directive as
	// it reads a file, so its findings before a broken file's first syntax
	// error stand (the directive table's rules).
	LineByLine bool
	// UnusedSuppressions: the rule suppressions that match nothing are
	// reported as.
	UnusedSuppressions bool
	// SyntaxErrors: the rule reports the syntax errors reading the tree
	// found; a broken file is judged on the first of its errors and on what
	// nginx refuses before it.
	SyntaxErrors bool
	// Scope is what the rule's findings depend on: ScopeTree (the
	// default: anything) or ScopeServer (a server block and the levels
	// above it), which lets a run after an edit rerun the rule only over
	// the server blocks the edit touched (RunIncremental).
	Scope Scope
	// Summary writes, for a rule of ScopeSummary, what its findings read
	// of the tree outside the server block they stand in and the levels
	// above it, as a key (ok false: too much to summarise, the rule reruns
	// in full). It is called with a pass over the whole tree in the
	// incremental runs only (RunIncremental), and reports nothing.
	Summary func(*Pass) (key string, ok bool)
}
