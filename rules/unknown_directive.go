package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var unknownDirective = &engine.Rule{
	Doc: engine.Doc{
		ID:    "unknown-directive",
		Title: "A directive nginx does not know",
		Why: `nginx refuses to start with "unknown directive" for a name that neither nginx nor a loaded
module defines, one error per reload attempt. The table nginxtune checks against is generated
from the source of nginx itself and of the third-party modules Debian packages
(docs/directives.md), per nginx version, so a directive added in a later version is named
with the version that has it.`,
		Fix: `Correct the name (the message suggests the nearest known one), upgrade nginx for a newer
directive, or load the module that provides it. Directives of in-house modules can be listed
in .nginxtune.yaml ("directives: [name, ...]").`,
		Bad:      "events {}\nhttp {\n    sendfil on;\n}\n",
		Good:     "events {}\nhttp {\n    sendfile on;\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all (table: the nginx versions `nginxtune version` lists, and Debian's third-party modules)",
		Sources:  []string{"nginx src/core/ngx_conf_file.c (ngx_conf_handler: unknown directive)", "docs/directives.md"},
	},
	Check:      check(runLanguage),
	Scope:      engine.ScopeTree, // reads the load_module lines of every server block too (one walk with the other language rules)
	LineByLine: true,
}
