package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var directiveContext = &engine.Rule{
	Doc: engine.Doc{
		ID:    "directive-context",
		Title: "A directive in a block where nginx does not allow it",
		Why: `Each directive is allowed in some contexts only (proxy_pass in location, not in server;
worker_connections in events): nginx -t fails with "directive is not allowed here". A snippet
is checked in the context it is included in; one linted on its own where its context is
declared ("# nginxtune: context=location"), never by a guess, except by the blocks it opens
itself: a directive no server, location, upstream or if block allows is refused wherever the
fragment is included (limit_req_zone in a server block).`,
		Fix:      `Move the directive into a block the message names.`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 80;\n        proxy_pass http://127.0.0.1:8080;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        listen 80;\n        location / {\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx src/core/ngx_conf_file.c (ngx_conf_handler: is not allowed here)", "docs/directives.md"},
	},
	Check:      check(runLanguage),
	Scope:      engine.ScopeTree, // one walk with directive-args and unknown-directive, which read upstreams and load_module lines in every server block
	LineByLine: true,
}
