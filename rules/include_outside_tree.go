package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var includeOutsideTree = &engine.Rule{
	Doc: engine.Doc{
		ID:    "include-outside-tree",
		Title: "An include names a file outside the linted tree, which is not read",
		Why: `A configuration under review (a pull request, a copy of a server's tree) is untrusted: an
include of /proc/self/environ, /etc/shadow or a symbolic link out of the repository would put
the runner's secrets into the report. Outside a live tree (/etc/nginx and the like), nginxtune
reads only files inside the linted directory and its path maps, never /proc, /sys, /dev or
anything that is not a regular file, and says so here without quoting any content; findings
that depend on the file are missing.`,
		Fix: `When the file belongs to the configuration, lint a tree that contains it, map its directory
onto a copy with --map, or allow the directory with --allow-outside DIR.`,
		Bad:      "events {}\nhttp {\n    include /proc/self/environ;\n}\n",
		Good:     "events {}\nhttp {\n    include conf.d/*.conf;\n}\n",
		Severity: finding.Info,
		Category: engine.CategoryInput,
		Since:    "0.2.0",
		Versions: "all",
	},
	Check: check(fromLoader("include-outside-tree")),
}
