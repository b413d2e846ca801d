package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var regexRedos = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"PCRE2 documentation: pcre2perform (backtracking), match_limit", "OWASP: Regular expression Denial of Service"},
	},
	Check: check(checkRegexRedos),
	Scope: engine.ScopeServer,
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

func checkRegexRedos(p *Pass) {
	check := func(d *parser.Directive, i int, re string) {
		if g := redosGroup(re); g != "" {
			p.ReportArgf(d, i, "%s repeats a group that can match the same text in several ways: a crafted request makes PCRE backtrack exponentially; make each round need a separator, or repeat one class", engine.Clip(g))
		}
	}
	p.Each(func(d *parser.Directive, c *parser.Context) {
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
						p.Reportf(e, "%s repeats a group that can match the same text in several ways: a crafted value makes PCRE backtrack exponentially; make each round need a separator, or repeat one class", engine.Clip(g))
					}
				}
			}
		}
	}, "location", "rewrite", "if", "server_name", "map")
}
