package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var includeCycle = &engine.Rule{
	Doc: engine.Doc{
		ID:       "include-cycle",
		Title:    "Files include each other in a loop",
		Why:      `nginx has no guard against an include loop: it reads the files again and again until it runs out of resources and fails.`,
		Fix:      `Remove the include that leads back to a file that is already being read.`,
		Bad:      "events {}\nhttp {\n    include nginx.conf;\n}\n",
		Good:     "events {}\nhttp {\n    sendfile on;\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryInput,
		Since:    "0.1.0",
		Versions: "all",
	},
	Check: check(fromLoader("include-cycle")),
}
