package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var unusedSuppression = &engine.Rule{
	Doc: engine.Doc{
		ID:    "unused-suppression",
		Title: "A suppression comment matches no finding",
		Why: `A "# nginxtune:disable RULE" comment that no longer hides anything is noise, and it will
silently hide a real finding the day someone moves a directive under it.`,
		Fix:      `Remove the comment, or correct the rule id it names.`,
		Bad:      "events {}\nhttp {\n    # nginxtune:disable gzip-comp-level -- not needed\n    gzip_comp_level 5;\n}\n",
		Good:     "events {}\nhttp {\n    # nginxtune:disable gzip-comp-level -- our CPU is idle\n    gzip_comp_level 9;\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryInput,
		Since:    "0.1.0",
		Versions: "all",
	},
	// reported by Run after suppressions are applied
	UnusedSuppressions: true,
}
