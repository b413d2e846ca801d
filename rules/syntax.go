package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var syntax = &engine.Rule{
	Doc: engine.Doc{
		ID:    "syntax",
		Title: "The configuration cannot be read as nginx reads it",
		Why: `nginx refuses to start or reload on a syntax error, and some mistakes it does not refuse:
a missing ";" makes nginx read the next line as more arguments of the directive before it.
For directives that take any number of arguments (index, server_name, try_files) nginx
accepts that silently and serves something else than was written.`,
		Fix:      `Correct the text at the position given: close the quote or block, add the missing ";".`,
		Bad:      "events {}\nhttp {\n    index index.html\n    sendfile on;\n}\n",
		Good:     "events {}\nhttp {\n    index index.html;\n    sendfile on;\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryInput,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx src/core/ngx_conf_file.c (ngx_conf_read_token)"},
	},
	Check:        check(fromLoader("syntax")),
	SyntaxErrors: true,
}
