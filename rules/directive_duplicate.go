package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var directiveDuplicate = &engine.Rule{
	Doc: engine.Doc{
		ID:    "directive-duplicate",
		Title: "A directive that may appear once per block appears twice",
		Why: `Most directives that set one value (sendfile, root, proxy_pass, keepalive_timeout, ...)
are refused a second time in the same block: nginx -t fails with "is duplicate"; so is a
second limit_req or limit_conn of one zone. An include counts as part of the block it stands
in.`,
		Fix:      `Keep one of them; the message points at the first.`,
		Bad:      "events {}\nhttp {\n    sendfile on;\n    sendfile off;\n}\n",
		Good:     "events {}\nhttp {\n    sendfile on;\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx src/core/ngx_conf_file.c (the ngx_conf_set_*_slot handlers: is duplicate)", "docs/directives.md"},
	},
	Check:      check(runLanguage),
	Scope:      engine.ScopeTree, // one walk with directive-args and unknown-directive, which read upstreams and load_module lines in every server block
	LineByLine: true,
}
