package rules

import (
	"regexp"
	resyntax "regexp/syntax"
	"strings"
)

// Witnesses for alias-traversal's regex locations: a request path that a
// location's regex matches with a chosen capture holding a chosen text,
// found by building candidate paths from the regex's own syntax tree and
// keeping the first one the compiled regex (leftmost-first, as PCRE)
// really matches that way. A witness is a request the finding names; no
// witness, no finding.

// witnessMax bounds the texts kept per node of the syntax tree, and
// witnessLen their length: the regex comes from the configuration, so the
// work is bounded by its size, not by what it spells.
const (
	witnessMax = 24
	witnessLen = 256
)

// captureWitness returns a normalized request path that re (matched
// case-insensitively when fold) matches with capture n at u[lo:hi] such
// that accept(u, lo, hi) holds, trying the texts caps for the capture.
// known is false when Go cannot read the pattern (PCRE-only syntax): the
// caller then falls back to reading the pattern's text.
func captureWitness(re string, fold bool, n int, caps []string, accept func(u string, lo, hi int) bool) (u string, found, known bool) {
	flags := resyntax.Perl
	prefix := ""
	if fold {
		flags |= resyntax.FoldCase
		prefix = "(?i)"
	}
	tree, err := resyntax.Parse(re, flags)
	if err != nil || tree.MaxCap() < n {
		return "", false, false
	}
	compiled, err := regexp.Compile(prefix + re)
	if err != nil {
		return "", false, false
	}
	g := witnessGen{n: n, fold: prefix, caps: caps}
	for _, s := range g.gen(tree) {
		for _, u := range []string{s, "/" + s} {
			if !strings.HasPrefix(u, "/") || !normalizedPath(u) {
				continue
			}
			m := compiled.FindStringSubmatchIndex(u)
			if len(m) <= 2*n+1 || m[2*n] < 0 {
				continue
			}
			if accept(u, m[2*n], m[2*n+1]) {
				return u, true, true
			}
		}
	}
	return "", false, true
}

// normalizedPath reports whether a path is one nginx can match a location
// against: it resolves "/./" and "/../" and merges slashes before it
// matches, so a path holding them never reaches a regex.
func normalizedPath(u string) bool {
	return !strings.Contains(u, "//") && !strings.Contains(u, "/./") && !strings.Contains(u, "/../") &&
		!strings.HasSuffix(u, "/.") && !strings.HasSuffix(u, "/..")
}

// witnessGen builds candidate texts for a syntax tree: a few per node,
// the capture n taking the texts caps that its own pattern matches.
type witnessGen struct {
	n     int
	fold  string
	caps  []string
	steps int // texts tried: the work, bounded per node of the tree
}

func (g *witnessGen) gen(t *resyntax.Regexp) []string {
	switch t.Op {
	case resyntax.OpLiteral:
		if t.Flags&resyntax.FoldCase != 0 {
			return []string{strings.ToLower(string(t.Rune))}
		}
		return []string{string(t.Rune)}
	case resyntax.OpCharClass:
		return classSamples(t.Rune)
	case resyntax.OpAnyChar, resyntax.OpAnyCharNotNL:
		return []string{"a", ".", "/", "-"}
	case resyntax.OpCapture:
		if t.Cap == g.n {
			return g.capture(t.Sub[0])
		}
		return g.gen(t.Sub[0])
	case resyntax.OpStar:
		return g.repeat(t.Sub[0], 0, 2)
	case resyntax.OpQuest:
		return g.repeat(t.Sub[0], 0, 1)
	case resyntax.OpPlus:
		return g.repeat(t.Sub[0], 1, 2)
	case resyntax.OpRepeat:
		if t.Min > 16 {
			return nil
		}
		hi := t.Min + 1
		if t.Max >= 0 && t.Max < hi {
			hi = t.Max
		}
		return g.repeat(t.Sub[0], t.Min, hi)
	case resyntax.OpConcat:
		out := []string{""}
		for _, s := range t.Sub {
			out = g.cross(out, g.gen(s))
			if len(out) == 0 {
				return nil
			}
		}
		return out
	case resyntax.OpAlternate:
		var out []string
		for _, s := range t.Sub {
			out = appendWitnesses(out, g.gen(s)...)
		}
		return out
	case resyntax.OpEmptyMatch, resyntax.OpBeginLine, resyntax.OpEndLine, resyntax.OpBeginText, resyntax.OpEndText,
		resyntax.OpWordBoundary, resyntax.OpNoWordBoundary:
		return []string{""}
	}
	return nil
}

// capture is the texts the capture takes: each of caps, and each of them
// followed by what its pattern spells, that its pattern matches whole.
func (g *witnessGen) capture(sub *resyntax.Regexp) []string {
	whole, err := regexp.Compile(g.fold + `^(?:` + sub.String() + `)$`)
	if err != nil {
		return nil
	}
	var out []string
	rest := g.gen(sub)
	for _, c := range g.caps {
		for _, s := range append([]string{""}, rest...) {
			if g.steps++; whole.MatchString(c + s) {
				out = appendWitnesses(out, c+s)
			}
		}
	}
	return out
}

// repeat is sub repeated lo to hi times.
func (g *witnessGen) repeat(sub *resyntax.Regexp, lo, hi int) []string {
	one := g.gen(sub)
	var out []string
	cur := []string{""}
	for k := 0; k <= hi; k++ {
		if k >= lo {
			out = appendWitnesses(out, cur...)
		}
		if cur = g.cross(cur, one); len(cur) == 0 {
			break
		}
	}
	return out
}

// cross is every a followed by every b, bounded.
func (g *witnessGen) cross(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if len(out) >= witnessMax {
				return out
			}
			g.steps++
			if len(x)+len(y) <= witnessLen {
				out = appendWitnesses(out, x+y)
			}
		}
	}
	return out
}

// appendWitnesses adds texts not already in out, up to witnessMax.
func appendWitnesses(out []string, more ...string) []string {
	for _, s := range more {
		if len(out) >= witnessMax {
			break
		}
		dup := false
		for _, o := range out {
			dup = dup || o == s
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// classSamples picks the characters of a class that tell paths apart: a
// letter, a dot, a dash, a slash, a digit, else the class's first.
func classSamples(ranges []rune) []string {
	var out []string
	for _, c := range "a.-/_0" {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= c && c <= ranges[i+1] {
				out = append(out, string(c))
				break
			}
		}
	}
	if len(out) == 0 && len(ranges) > 0 {
		out = append(out, string(ranges[0]))
	}
	return out
}
