package knowledge

import (
	_ "embed"
	"strings"
	"sync"
)

// summaries.tsv says in one line what a directive or a built-in variable
// does, in nginxtune's own words (the editor's hover shows it).
//
//go:embed summaries.tsv
var summariesTSV string

var summaries = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(summariesTSV, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if name, text, ok := strings.Cut(l, "\t"); ok {
			m[name] = text
		}
	}
	return m
})

// Summary says in one line what the directive does, "" when the table has
// no line for it.
func Summary(directive string) string { return summaries()[directive] }

// VariableSummary says in one line what the built-in variable (without
// "$") holds: its own line, or its family's ($http_user_agent has one,
// $http_x_api_key the line of $http_), "" when the table has neither.
func VariableSummary(name string) string {
	m := summaries()
	if s, ok := m["$"+name]; ok {
		return s
	}
	best := ""
	for _, proto := range []bool{false, true} {
		_, prefixes := Variables(proto)
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) && len(p) > len(best) && m["$"+p] != "" {
				best = p
			}
		}
	}
	if best == "" {
		return ""
	}
	return m["$"+best]
}
