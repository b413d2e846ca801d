package rules

import "github.com/nginxtune/nginxtune/finding"

// Rules that report what the parser found while reading the tree.

func fromLoader(kind string) func(*Pass) {
	return func(p *Pass) {
		for _, d := range p.Tree.Diagnostics {
			if d.Kind != kind {
				continue
			}
			*p.diags = append(*p.diags, finding.Diagnostic{Rule: p.rule.ID, Severity: d.Severity, File: d.File,
				Line: d.Line, Col: d.Col, EndLine: max(d.Line, d.NginxLine), Offset: d.Offset, Message: d.Message})
		}
	}
}

var syntax = &Rule{
	Doc: Doc{
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
		Category: CategoryInput,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx src/core/ngx_conf_file.c (ngx_conf_read_token)"},
	},
	Check: fromLoader("syntax"),
}

var includeMissing = &Rule{
	Doc: Doc{
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
		Category: CategoryInput,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_core_module include"},
	},
	Check: fromLoader("include-missing"),
}

var includeCycle = &Rule{
	Doc: Doc{
		ID:       "include-cycle",
		Title:    "Files include each other in a loop",
		Why:      `nginx has no guard against an include loop: it reads the files again and again until it runs out of resources and fails.`,
		Fix:      `Remove the include that leads back to a file that is already being read.`,
		Bad:      "events {}\nhttp {\n    include nginx.conf;\n}\n",
		Good:     "events {}\nhttp {\n    sendfile on;\n}\n",
		Severity: finding.Error,
		Category: CategoryInput,
		Since:    "0.1.0",
		Versions: "all",
	},
	Check: fromLoader("include-cycle"),
}

var unusedSuppression = &Rule{
	Doc: Doc{
		ID:    "unused-suppression",
		Title: "A suppression comment matches no finding",
		Why: `A "# nginxtune:disable RULE" comment that no longer hides anything is noise, and it will
silently hide a real finding the day someone moves a directive under it.`,
		Fix:      `Remove the comment, or correct the rule id it names.`,
		Bad:      "events {}\nhttp {\n    # nginxtune:disable gzip-comp-level -- not needed\n    gzip_comp_level 5;\n}\n",
		Good:     "events {}\nhttp {\n    # nginxtune:disable gzip-comp-level -- our CPU is idle\n    gzip_comp_level 9;\n}\n",
		Severity: finding.Warning,
		Category: CategoryInput,
		Since:    "0.1.0",
		Versions: "all",
	},
	// Reported by Run after suppressions are applied.
}

var includeOutsideTree = &Rule{
	Doc: Doc{
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
		Category: CategoryInput,
		Since:    "0.2.0",
		Versions: "all",
	},
	Check: fromLoader("include-outside-tree"),
}
