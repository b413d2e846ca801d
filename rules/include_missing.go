package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var includeMissing = &engine.Rule{
	Doc: engine.Doc{
		ID:    "include-missing",
		Title: "An include names a file or directory that does not exist",
		Why: `nginx -t fails when an include without wildcards names a missing file. A pattern whose
directory does not exist matches nothing and nginx says nothing, which usually means a
wrong path: the configuration that was meant to be read is not.`,
		Fix: `Correct the path. When linting a copy of a server's configuration, map the server's
directory onto the copy with --map /etc/nginx=./deploy/nginx (or "map:" in .nginxtune.yaml).`,
		Bad:      "events {}\nhttp {\n    include sites/missing.conf;\n}\n",
		Good:     "events {}\nhttp {\n    include conf.d/*.conf;\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryInput,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_core_module include"},
	},
	Check: check(fromLoader("include-missing")),
}
