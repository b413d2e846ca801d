package route

import (
	"regexp/syntax"
	"strings"
	"unicode"
)

// Sample returns up to n strings a regular expression matches, each built
// by a different choice of alternatives and repeat counts, for generating
// requests that reach regex locations and server names.
func Sample(pattern string, caseless bool, n int) []string {
	flags := syntax.Perl
	if caseless {
		flags |= syntax.FoldCase
	}
	re, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	var out []string
	seen := map[string]bool{}
	for variant := 0; variant < n*3 && len(out) < n; variant++ {
		var b strings.Builder
		gen(re, &b, variant)
		s := b.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// gen writes one string re matches; variant picks alternatives and
// repeat counts so that different variants give different strings.
func gen(re *syntax.Regexp, b *strings.Builder, variant int) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune, variant))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte("abz"[variant%3])
	case syntax.OpCapture:
		gen(re.Sub[0], b, variant)
	case syntax.OpConcat:
		for i, s := range re.Sub {
			gen(s, b, variant+i*7)
		}
	case syntax.OpAlternate:
		gen(re.Sub[variant%len(re.Sub)], b, variant/len(re.Sub))
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		min, max := 0, 2
		switch re.Op {
		case syntax.OpPlus:
			min = 1
		case syntax.OpQuest:
			max = 1
		case syntax.OpRepeat:
			min, max = re.Min, re.Max
			if max < 0 {
				max = min + 2
			}
		}
		count := min
		if max > min {
			count = min + variant%(max-min+1)
		}
		for i := 0; i < count; i++ {
			gen(re.Sub[0], b, variant+i)
		}
	}
}

// pickRune picks a character of a class, preferring ones that are safe
// in a URI path unescaped.
func pickRune(ranges []rune, variant int) rune {
	var good []rune
	for i := 0; i+1 < len(ranges) && len(good) < 64; i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && len(good) < 64; r++ {
			if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-._~", r)) {
				good = append(good, r)
			}
		}
	}
	if len(good) == 0 {
		if len(ranges) > 0 && ranges[0] > ' ' && ranges[0] < 127 && ranges[0] != '?' && ranges[0] != '#' && ranges[0] != '%' {
			return ranges[0]
		}
		return 'a'
	}
	return good[variant%len(good)]
}

// NameSamples returns host names a server_name value matches: two samples
// of a regular expression, a wildcard instantiated twice, an exact name
// itself; none for "" and "_".
func NameSamples(nm Name) []string {
	v := nm.Value
	switch {
	case nm.re != nil:
		var out []string
		for _, x := range Sample(strings.TrimPrefix(v, "~"), true, 2) {
			out = append(out, strings.Trim(x, "^$"))
		}
		return out
	case strings.HasPrefix(v, "*."):
		return []string{"a" + v[1:], "b.c" + v[1:]}
	case strings.HasPrefix(v, "."):
		return []string{v[1:], "w" + v}
	case strings.HasSuffix(v, ".*"):
		return []string{v[:len(v)-1] + "com", v[:len(v)-1] + "co.uk"}
	case v != "" && v != "_":
		return []string{v}
	}
	return nil
}
