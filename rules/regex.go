package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/parser"
)

// Rules about regular expressions and maps.

// regexSyntax calls fn with the index of every character of a PCRE pattern
// that is syntax: outside escapes ("\\.") and character classes ("[^/]",
// "[]a]"). Escapes and classes are skipped whole.
func regexSyntax(re string, fn func(i int)) {
	for i := 0; i < len(re); i++ {
		switch re[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(re) && re[j] == '^' {
				j++
			}
			if j < len(re) && re[j] == ']' {
				j++ // a literal "]" first in the class
			}
			for j < len(re) && re[j] != ']' {
				if re[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		default:
			fn(i)
		}
	}
}

// suffixPattern is a location regex that names a file extension: "\.php",
// "\.(php|phtml)", "\.(?:jpe?g|png)".
var suffixPattern = lazyre.New(`^\\\.(?:[A-Za-z0-9]+|\((?:\?:)?[A-Za-z0-9|?]+\))$`)

var regexUnanchored = &Rule{
	Doc: Doc{
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
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module location", "PHP manual: php-fpm security.limit_extensions"},
	},
	Check: checkRegexUnanchored,
}

func checkRegexUnanchored(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) {
			return
		}
		switch d.Name {
		case "location":
			if len(d.Args) == 2 && (d.Arg(0) == "~" || d.Arg(0) == "~*") && suffixPattern().MatchString(d.Arg(1)) {
				ext := strings.Trim(strings.TrimPrefix(strings.TrimPrefix(d.Arg(1), `\.`), "(?:"), "()")
				ext, _, _ = strings.Cut(ext, "|")
				if d.Block != nil && len(findIn(d.Block, "fastcgi_split_path_info")) > 0 {
					// $ would break PATH_INFO (/index.php/foo/bar): (/|$) keeps it
					p.ReportArgf(d, 1, "%s matches anywhere in the path: /uploads/x.%s.png takes this location too; end it with (/|$), which keeps PATH_INFO for fastcgi_split_path_info ($ alone would break /index.%s/foo)", clip(d.Arg(1)), clip(ext), clip(ext))
					return
				}
				p.ReportArgf(d, 1, "%s matches anywhere in the path: /uploads/x.%s.png and /x.%s/y take this location too; end it with $", clip(d.Arg(1)), clip(ext), clip(ext))
			}
		case "map":
			if d.Block == nil || !pathVars[strings.TrimPrefix(d.Arg(0), "$")] {
				return
			}
			for _, e := range d.Block {
				re := strings.TrimPrefix(strings.TrimPrefix(e.Name, "~"), "*")
				if strings.HasPrefix(e.Name, "~") && suffixPattern().MatchString(re) {
					p.Reportf(e, "the map key %s matches anywhere in %s, not only at the end; end it with $", clip(e.Name), d.Arg(0))
				}
			}
		}
	}, "location", "map")
}

// redosGroup reports the first repeated group of a pattern whose body can
// match the same text in several ways ("(a+)+", "(\w+\s?)*", "(.*)*"): on a
// long string that does not match, backtracking tries every split.
func redosGroup(re string) string {
	var stack []int
	found := ""
	regexSyntax(re, func(i int) {
		switch {
		case found != "":
		case re[i] == '(':
			stack = append(stack, i)
		case re[i] == ')' && len(stack) > 0:
			start := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			q, n := quantifier(re[i+1:])
			if !q.repeats || strings.HasPrefix(re[start:], "(?>") || n < len(re)-i-1 && re[i+1+n] == '+' {
				return // not repeated, atomic, or possessive
			}
			body := re[start+1 : i]
			if strings.HasPrefix(body, "?:") {
				body = body[2:]
			} else if strings.HasPrefix(body, "?") {
				return // lookaround or named group with flags: not judged
			}
			alts := splitTop(body)
			for k, alt := range alts {
				if ambiguous(alt) {
					found = re[start : i+1+n]
					return
				}
				// literal alternatives where one starts another ("a|aa"):
				// a run of a's splits in as many ways
				for _, other := range alts[k+1:] {
					if alt != "" && other != "" && literalChoice(alt) && literalChoice(other) &&
						(strings.HasPrefix(alt, other) || strings.HasPrefix(other, alt)) {
						found = re[start : i+1+n]
						return
					}
				}
			}
		}
	})
	return found
}

type quant struct{ repeats, optional bool }

// quantifier reads a quantifier at the start of s and its length.
func quantifier(s string) (quant, int) {
	if s == "" {
		return quant{}, 0
	}
	switch s[0] {
	case '*':
		return quant{true, true}, 1
	case '+':
		return quant{true, false}, 1
	case '?':
		return quant{false, true}, 1
	case '{':
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return quant{}, 0
		}
		lo, hi, comma := strings.Cut(s[1:end], ",")
		if strings.Trim(lo+hi, "0123456789") != "" {
			return quant{}, 0
		}
		return quant{repeats: comma && (hi == "" || hi != "1" && hi != "0"), optional: lo == "" || lo == "0"}, end + 1
	}
	return quant{}, 0
}

// splitTop splits a group body at its top-level "|".
func splitTop(body string) []string {
	var out []string
	depth, last := 0, 0
	regexSyntax(body, func(i int) {
		switch body[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, body[last:i])
				last = i + 1
			}
		}
	})
	return append(out, body[last:])
}

// ambiguous reports whether a sequence has a repeated item and every other
// item is optional, so that one repetition of the enclosing group can be
// split into several.
func ambiguous(seq string) bool {
	repeated, required := 0, 0
	for i := 0; i < len(seq); {
		// one atom
		j := i
		switch seq[i] {
		case '\\':
			j = i + 2
		case '[':
			j = i + 1
			if j < len(seq) && seq[j] == '^' {
				j++
			}
			if j < len(seq) && seq[j] == ']' {
				j++
			}
			for j < len(seq) && seq[j] != ']' {
				if seq[j] == '\\' {
					j++
				}
				j++
			}
			j++
		case '(':
			depth := 0
			for j = i; j < len(seq); j++ {
				if seq[j] == '\\' {
					j++
					continue
				}
				if seq[j] == '(' {
					depth++
				} else if seq[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			j++
		case '^', '$':
			i++
			continue
		default:
			j = i + 1
		}
		if j > len(seq) {
			j = len(seq)
		}
		q, n := quantifier(seq[j:])
		if n > 0 && j+n < len(seq) && seq[j+n] == '+' {
			q.repeats = false // possessive
		}
		switch {
		case q.repeats:
			repeated++
			if !q.optional {
				required++
			}
		case !q.optional:
			required++
		}
		i = j + n
		if i < len(seq) && (seq[i] == '?' || seq[i] == '+') && n > 0 {
			i++ // lazy or possessive marker
		}
	}
	return repeated > 0 && required <= 1
}

var regexRedos = &Rule{
	Doc: Doc{
		ID:    "regex-redos",
		Title: "A regex with nested repetition (catastrophic backtracking)",
		Why: `A repeated group whose body can itself match text in several ways — "(a+)+", "(\w+\s?)*",
"(.*)*" — makes PCRE try every way of splitting the input when the rest of the pattern fails.
The work doubles with each character: a request path of a few dozen bytes keeps a worker busy
until PCRE's match limit (10 million steps by default) stops it, and every other connection
of that worker waits. The client chooses the input: it is the path, a header or an argument.`,
		Fix:      `Make the repetition unambiguous: require a separator in each round ("(\w+/)+" instead of "(\w+/?)+"), or repeat a single class ("[\w/]+").`,
		Bad:      "events {}\nhttp {\n    server {\n        location ~ ^/(\\w+/?)+\\.html$ {\n            root /srv/www;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location ~ ^/[\\w/]+\\.html$ {\n            root /srv/www;\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"PCRE2 documentation: pcre2perform (backtracking), match_limit", "OWASP: Regular expression Denial of Service"},
	},
	Check: checkRegexRedos,
}

func checkRegexRedos(p *Pass) {
	check := func(d *parser.Directive, i int, re string) {
		if g := redosGroup(re); g != "" {
			p.ReportArgf(d, i, "%s repeats a group that can match the same text in several ways: a crafted request makes PCRE backtrack exponentially; make each round need a separator, or repeat one class", clip(g))
		}
	}
	p.each(func(d *parser.Directive, c *parser.Context) {
		switch d.Name {
		case "location":
			if len(d.Args) == 2 && strings.HasPrefix(d.Arg(0), "~") {
				check(d, 1, d.Arg(1))
			}
		case "rewrite":
			check(d, 0, d.Arg(0))
		case "if":
			if _, op, re, ok := ifCondition(d); ok && strings.HasPrefix(strings.TrimPrefix(op, "!"), "~") {
				check(d, len(d.Args)-2, re)
			}
		case "server_name":
			for i, a := range d.Args {
				if strings.HasPrefix(a.Value, "~") {
					check(d, i, a.Value[1:])
				}
			}
		case "map":
			for _, e := range d.Block {
				if strings.HasPrefix(e.Name, "~") {
					if g := redosGroup(strings.TrimPrefix(e.Name[1:], "*")); g != "" {
						p.Reportf(e, "%s repeats a group that can match the same text in several ways: a crafted value makes PCRE backtrack exponentially; make each round need a separator, or repeat one class", clip(g))
					}
				}
			}
		}
	}, "location", "rewrite", "if", "server_name", "map")
}

// denyValues are the values a map uses to say "no".
var denyValues = map[string]bool{"0": true, "off": true, "no": true, "false": true, "deny": true, "denied": true}

var mapDefaultMissing = &Rule{
	Doc: Doc{
		ID:    "map-default-missing",
		Title: "A map that routes or guards access has no default",
		Why: `A map without "default" yields an empty string for every value it does not list. Used to
pick a backend, root or redirect, an unlisted value sends the request nowhere (proxy_pass
with an empty host fails with a 500 error) or to the site's root. Used in an access check
that tests for the "no" value ("if ($allowed = 0) { return 403; }"), an unlisted client is
empty, not 0, and is let through.`,
		Fix:      `Add the value you mean for everything else: "default 0;" (or the fallback backend).`,
		Bad:      "events {}\nhttp {\n    map $http_x_api_key $key_ok {\n        \"k-7f3a\" 1;\n        \"k-legacy\" 0;\n    }\n    server {\n        location /api/ {\n            if ($key_ok = 0) {\n                return 403;\n            }\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    map $http_x_api_key $key_ok {\n        default 0;\n        \"k-7f3a\" 1;\n    }\n    server {\n        location /api/ {\n            if ($key_ok = 0) {\n                return 403;\n            }\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_map_module (default: an empty string)"},
	},
	Check: checkMapDefaultMissing,
}

// mayHaveDefault reports whether a map has a default, or an include whose
// list may hold one.
func mayHaveDefault(m *parser.Directive) bool {
	for _, e := range m.Block {
		if e.Name == "default" || e.Name == "include" {
			return true
		}
	}
	return false
}

func checkMapDefaultMissing(p *Pass) {
	maps := map[string]*parser.Directive{} // by variable, the (last) map without a default
	for name, list := range p.taintScope().maps {
		for _, d := range list {
			if !mayHaveDefault(d) {
				maps[name] = d
			}
		}
	}
	// geo blocks too: an address no entry lists gets an empty string
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Block == nil || len(d.Args) == 0 || mayHaveDefault(d) {
			return
		}
		maps[strings.TrimPrefix(d.Arg(len(d.Args)-1), "$")] = d
	}, "geo")
	if len(maps) == 0 {
		return
	}
	// a source drawn from a fixed range (set_random $v 1 3) may be listed whole
	random := map[string]bool{}
	p.each(func(d *parser.Directive, c *parser.Context) { random[d.Arg(0)] = true }, "set_random")
	for n, m := range maps {
		if random[m.Arg(0)] {
			delete(maps, n)
		}
	}
	reported := map[*parser.Directive]bool{}
	report := func(m *parser.Directive, use *parser.Directive, how string) {
		if reported[m] {
			return
		}
		reported[m] = true
		v := m.Arg(len(m.Args) - 1)
		diag := p.Diag(m, "%s %s has no default: a value it does not list gives an empty string, and %s at %s then %s; add \"default ...;\"", m.Name, v, use.Name, where(use), how)
		diag.Related = []finding.Related{relatedTo(use, "where "+v+" is used")}
		p.Report(diag)
	}
	p.each(func(d *parser.Directive, c *parser.Context) {
		switch d.Name {
		case "if":
			v, op, operand, ok := ifCondition(d)
			if !ok || op != "=" || !denyValues[strings.ToLower(operand)] {
				return
			}
			m := maps[strings.TrimPrefix(v, "$")]
			if m == nil {
				return
			}
			for _, x := range level(d.Block) {
				if x.Name == "return" && (strings.HasPrefix(x.Arg(0), "4") || x.Arg(0) == "444") {
					report(m, d, "lets it through")
					return
				}
			}
		default:
			if len(d.Args) == 0 {
				return
			}
			arg := d.Arg(0)
			if d.Name == "return" {
				if len(d.Args) < 2 {
					return
				}
				arg = d.Arg(1)
			}
			for _, r := range varsIn(arg) {
				if m := maps[r.name]; m != nil && !guarded(c, r.name) {
					report(m, d, "has no target")
					return
				}
			}
		}
	}, "if", "proxy_pass", "fastcgi_pass", "grpc_pass", "uwsgi_pass", "scgi_pass", "root", "alias", "return")
}

// guarded reports whether the place is inside an "if" that tests the
// variable for a value ("if ($v)", "if ($v != "")"), so that an empty
// result never reaches it.
func guarded(c *parser.Context, name string) bool {
	for _, b := range c.Blocks {
		if b.Name != "if" {
			continue
		}
		v, op, operand, ok := ifCondition(b)
		if ok && strings.TrimPrefix(v, "$") == name && (op == "" || op == "!=" && operand == "") {
			return true
		}
	}
	return false
}
