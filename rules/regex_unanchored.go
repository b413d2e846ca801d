package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var regexUnanchored = &engine.Rule{
	Doc: engine.Doc{
		ID:    "regex-unanchored",
		Title: "A regex meant to match a file extension, without \"$\"",
		Why: `A location regex matches anywhere in the path unless anchored: "location ~ \.php" also
takes /uploads/avatar.php.png and /index.php/anything/else.css, so an uploaded image named
x.php.png is handed to PHP, and a stylesheet request lands in the application. A map on the
path keyed "~\.php" misclassifies the same way.`,
		Fix:      `End it with "$" ("location ~ \.php$"), or "(/|$)" where PATH_INFO is wanted.`,
		Bad:      "events {}\nhttp {\n    server {\n        location ~ \\.php {\n            fastcgi_pass unix:/run/php/php-fpm.sock;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location ~ \\.php$ {\n            fastcgi_pass unix:/run/php/php-fpm.sock;\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module location", "PHP manual: php-fpm security.limit_extensions"},
	},
	Check: check(checkRegexUnanchored),
	Scope: engine.ScopeServer,
}

// suffixPattern is a location regex that names a file extension: "\.php",
// "\.(php|phtml)", "\.(?:jpe?g|png)".
var suffixPattern = lazyre.New(`^\\\.(?:[A-Za-z0-9]+|\((?:\?:)?[A-Za-z0-9|?]+\))$`)

func checkRegexUnanchored(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		switch d.Name {
		case "location":
			if len(d.Args) == 2 && (d.Arg(0) == "~" || d.Arg(0) == "~*") && suffixPattern().MatchString(d.Arg(1)) {
				ext := strings.Trim(strings.TrimPrefix(strings.TrimPrefix(d.Arg(1), `\.`), "(?:"), "()")
				ext, _, _ = strings.Cut(ext, "|")
				if d.Block != nil && len(engine.FindIn(d.Block, "fastcgi_split_path_info")) > 0 {
					// $ would break PATH_INFO (/index.php/foo/bar): (/|$) keeps it
					p.ReportArgf(d, 1, "%s matches anywhere in the path: /uploads/x.%s.png takes this location too; end it with (/|$), which keeps PATH_INFO for fastcgi_split_path_info ($ alone would break /index.%s/foo)", engine.Clip(d.Arg(1)), engine.Clip(ext), engine.Clip(ext))
					return
				}
				p.ReportArgf(d, 1, "%s matches anywhere in the path: /uploads/x.%s.png and /x.%s/y take this location too; end it with $", engine.Clip(d.Arg(1)), engine.Clip(ext), engine.Clip(ext))
			}
		case "map":
			if d.Block == nil || !pathVars[strings.TrimPrefix(d.Arg(0), "$")] {
				return
			}
			for _, e := range d.Block {
				re := strings.TrimPrefix(strings.TrimPrefix(e.Name, "~"), "*")
				if strings.HasPrefix(e.Name, "~") && suffixPattern().MatchString(re) {
					p.Reportf(e, "the map key %s matches anywhere in %s, not only at the end; end it with $", engine.Clip(e.Name), d.Arg(0))
				}
			}
		}
	}, "location", "map")
}
