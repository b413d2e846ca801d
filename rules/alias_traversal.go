package rules

import (
	"regexp"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var aliasTraversal = &engine.Rule{
	Doc: engine.Doc{
		ID:    "alias-traversal",
		Title: "alias under a location that does not end where the alias does (path traversal)",
		Why: `With "location /static { alias /srv/static/; }" a request for /static../secret.txt
matches the location (its prefix is /static), and nginx replaces the prefix with the alias:
/srv/static/../secret.txt, one directory above what was meant to be served. Any file beside
the aliased directory can be read. A regex location does the same when the capture the alias
appends after a slash can start with ".." right after a name: "location ~ ^/assets(.*)$ { alias
/srv/assets/$1; }" serves /srv/secret.txt for /assets../secret.txt, and "location ~ /site(2)(.*)
{ alias /lol/$2; }" serves /secret.txt for /site2../secret.txt (measured with nginx 1.22.1);
after "^/assets/" the capture cannot start with "..", since nginx resolves "/../" before it
matches. When neither the prefix nor the alias ends with a slash ("location /media { alias
/srv/media; }"), nothing climbs, but /media_old/x is served from /srv/media_old/x: every
sibling directory whose name starts the same is exposed (a warning); so does a capture glued to
the alias's last name ("location ~ /images(.*) { alias /app/static$1; }" serves
/app/static-old/x.txt for /images-old/x.txt). Each regex finding names a request the regex
matches that way.`,
		Fix:      `End the location with a slash when the alias does ("location /static/ { alias /srv/static/; }"); in a regex, put the slash before the capture ("^/assets/(.*)$"); or use root where the path maps one to one.`,
		Bad:      "events {}\nhttp {\n    server {\n        location /static {\n            alias /srv/static/;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /static/ {\n            alias /srv/static/;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module alias", "gixy: alias_traversal (the check's idea; written anew here)"},
	},
	Check: check(checkAliasTraversal),
	Scope: engine.ScopeServer,
}

func checkAliasTraversal(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || c.In() != parser.CtxLocation || len(d.Args) == 0 {
			return
		}
		loc := c.Enclosing(parser.CtxLocation)
		if len(engine.FindIn(loc.Block, "return")) > 0 {
			return // a return answers before any file is read
		}
		alias := d.Arg(0)
		if re, ok := locationRegex(loc); ok {
			checkRegexAlias(p, d, loc, re, alias)
			return
		}
		path, ok := locationIsPrefix(loc)
		if !ok || strings.HasSuffix(path, "/") || templated(path) {
			return
		}
		if !strings.HasSuffix(alias, "/") {
			// neither ends with a slash: no climbing, but siblings that
			// start with the same name are served
			if strings.Contains(alias, "$") || !p.dirLike(alias) {
				return
			}
			diag := p.DiagArg(d, 0, "alias %s under \"location %s\" serves %s_old/x from %s_old/x: every directory beside %s whose name starts the same is exposed; end both with a slash",
				engine.Clip(alias), engine.Clip(path), engine.Clip(path), engine.Clip(alias), engine.Clip(alias))
			diag.Severity = finding.Warning
			p.Report(diag)
			return
		}
		diag := p.DiagArg(d, 0, "alias %s under \"location %s\" lets %s../ reach the directory above %s; write \"location %s/\"",
			engine.Clip(alias), engine.Clip(path), engine.Clip(path), engine.Clip(alias), engine.Clip(path))
		if i := len(loc.Args) - 1; i >= 0 {
			diag.Fix = &finding.Fix{Description: "end the location with a slash", Edits: []finding.Edit{engine.ReplaceArg(loc, i, loc.Args[i].Raw+"/")}}
		}
		p.Report(diag)
	}, "alias")
}

// dirLike reports whether an alias without a trailing slash names a
// directory rather than a file: its last part has no extension.
func (p *Pass) dirLike(alias string) bool {
	last := alias[strings.LastIndex(alias, "/")+1:]
	return last != "" && !strings.Contains(last, ".")
}

// checkRegexAlias reports an alias that appends a capture of the location's
// regex where the capture can leave the aliased directory: after a slash,
// when the capture can start with ".." right after a character that is
// not a slash in the path (nginx resolves "/../" before it matches, but
// "/site2../" is a name); glued to a name ("/app/static$1"), when the
// capture can start with something other than a slash, which reaches every
// directory beside it whose name starts the same. Each finding names a
// request the compiled regex really matches that way.
func checkRegexAlias(p *Pass, d, loc *parser.Directive, re, alias string) {
	fold := loc.Arg(0) == "~*" || strings.HasPrefix(loc.Arg(0), "~*")
	for _, r := range knowledge.VarRefs(alias) {
		n := 0
		if r.Kind == knowledge.Capture {
			n = int(r.Name[0] - '0')
		} else if n = namedGroup(re, r.Name); n == 0 {
			continue
		}
		if r.Start > 0 && alias[r.Start-1] == '/' {
			if regexAliasClimbs(p, d, re, fold, n, r, alias) {
				return
			}
			continue
		}
		// glued to the last name of the alias, and the alias's last part
		name := alias[strings.LastIndex(alias[:r.Start], "/")+1 : r.Start]
		if name == "" || strings.Contains(name, "$") || r.End != len(alias) {
			continue
		}
		u, found, _ := captureWitness(re, fold, n, []string{"-old/x.txt", "_old/x", "-old/", "old/x", "2/x"}, func(u string, lo, hi int) bool {
			capt := u[lo:hi]
			return capt != "" && capt[0] != '/' && strings.Contains(capt, "/")
		})
		if !found {
			continue
		}
		capt := capturedBy(re, fold, n, u)
		diag := p.DiagArg(d, 0, "alias %s appends $%s to the name %s and the capture may start without a slash: %s reads %s, beside %s; put the slash in the regex before the capture",
			engine.Clip(alias), r.Name, engine.Clip(name), engine.Clip(u), engine.Clip(alias[:r.Start]+capt), engine.Clip(alias[:r.Start]))
		diag.Severity = finding.Warning
		p.Report(diag)
		return
	}
}

// regexAliasClimbs reports (and says) whether capture n, which the alias
// appends after a slash, can start with ".." after a character of a name.
func regexAliasClimbs(p *Pass, d *parser.Directive, re string, fold bool, n int, r knowledge.VarRef, alias string) bool {
	u, found, known := captureWitness(re, fold, n, []string{"../secret.txt", "../secret", "../", ".."}, func(u string, lo, hi int) bool {
		capt := u[lo:hi]
		return lo > 0 && u[lo-1] != '/' && (capt == ".." || strings.HasPrefix(capt, "../"))
	})
	if known {
		if !found {
			return false
		}
		p.ReportArgf(d, 0, "alias %s appends $%s after a slash, but the regex lets that capture start with \"..\" after a name: %s reads %s, outside %s; put the slash in the regex before the capture",
			engine.Clip(alias), r.Name, engine.Clip(u), engine.Clip(alias[:r.Start]+capturedBy(re, fold, n, u)), engine.Clip(alias[:r.Start]))
		return true
	}
	// a pattern Go cannot read (PCRE-only syntax): judged by its text. The
	// capture must follow a literal character of a path segment
	// ("^/assets(.*)"); at the start of the regex, or after a class or a
	// repetition, PCRE's leftmost match begins it at a "/" or a segment's
	// start, where nginx has resolved every ".."
	before, frag, ok := groupContext(re, n)
	if !ok || before == "" || !strings.ContainsAny(before[len(before)-1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ||
		len(before) > 1 && before[len(before)-2] == '\\' || !canStartWithDots(frag) {
		return false
	}
	example := "a request whose capture starts with \"..\""
	if lit := strings.TrimPrefix(before, "^"); literalChoice(strings.ReplaceAll(lit, "/", "")) && !strings.Contains(lit, "|") {
		example = lit + "../secret"
	}
	p.ReportArgf(d, 0, "alias %s appends $%s after a slash, but the regex has no slash before that capture: %s reads %s; put the slash in the regex before the capture",
		engine.Clip(alias), r.Name, engine.Clip(example), engine.Clip(alias[:r.Start]+"../secret"))
	return true
}

// capturedBy is the text capture n of re takes in u.
func capturedBy(re string, fold bool, n int, u string) string {
	if fold {
		re = "(?i)" + re
	}
	m := regexp.MustCompile(re).FindStringSubmatch(u)
	return m[n]
}

// groupContext returns the regex text before capture group n (without
// the group's own "(") and the group's pattern.
func groupContext(re string, n int) (before, frag string, ok bool) {
	count, at := 0, -1
	regexSyntax(re, func(i int) {
		if at < 0 && re[i] == '(' && capturing(re, i) {
			if count++; count == n {
				at = i
			}
		}
	})
	if at < 0 {
		return "", "", false
	}
	frag, ok = groupPattern(re, n)
	return re[:at], frag, ok
}

// canStartWithDots reports whether a capture's pattern can match "../x".
func canStartWithDots(frag string) bool {
	re, err := regexp.Compile(`^(?:` + frag + `)`)
	if err != nil {
		return true
	}
	return re.MatchString("../x") && strings.HasPrefix(re.FindString("../x"), "..")
}
