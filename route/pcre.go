package route

import (
	"fmt"
	"strconv"
	"strings"
)

// A backtracking matcher for the PCRE patterns Go's regexp refuses:
// lookahead and lookbehind, atomic groups, possessive quantifiers and
// back-references. It matches as nginx's PCRE does: bytes, not UTF-8
// (nginx compiles without PCRE2_UTF), ASCII-only caseless matching, "."
// not matching a newline, "$" matching at the end or before a final
// newline. Its work is bounded: a pattern that backtracks past maxSteps
// (or nests deeper than maxDepth) for one subject stops, and route says
// it cannot tell instead of answering.

const (
	// maxSteps bounds the matcher's steps for one subject (all start
	// positions together); PCRE's own default match limit is 10 million.
	maxSteps = 1 << 20
	// maxDepth bounds the matcher's recursion for one subject.
	maxDepth = 1 << 15
)

type pop uint8

const (
	pEmpty pop = iota
	pLit       // one byte, in set
	pSet       // one byte in set
	pConcat
	pAlt
	pCap
	pRepeat
	pAtomic
	pLook
	pBackref
	pAssert
)

type pnode struct {
	op   pop
	set  *[256]bool
	subs []*pnode
	sub  *pnode
	// repeat
	min, max         int // max -1: no bound
	lazy, possessive bool
	// capture index, back-reference group
	n    int
	fold bool // a caseless back-reference
	// lookaround
	neg, behind bool
	lens        []int // lookbehind: the fixed length of each branch of sub
	// assertion: '^', '$', 'A', 'z', 'Z', 'b', 'B', 'G'; multi: (?m)
	assert byte
	multi  bool
	// quoted is a \Q...\E run: a quantifier after it applies to its last
	// byte
	quoted bool
}

// pcre is a compiled pattern.
type pcre struct {
	root     *pnode
	ncap     int
	names    []string
	anchored bool // starts with \A or ^ outside (?m): one start position
}

// errBound is what a match that reached the work bound reports.
const errBound = "the expression backtracks past route's bound of %d steps for this subject (PCRE's match limit may make nginx answer 500); route cannot tell whether it matches"

// pcreParser reads a pattern.
type pcreParser struct {
	p      string
	i      int
	ncap   int
	names  []string
	refs   []int    // back-referenced group numbers, checked at the end
	nrefs  []string // back-referenced names
	totcap int      // capture groups in the whole pattern (for \10 and up)
}

type pflags struct{ i, m, s, x bool }

// compilePCRE parses pattern; the error names what it cannot run.
func compilePCRE(pattern string, caseless bool) (*pcre, error) {
	ps := &pcreParser{p: pattern, names: []string{""}, totcap: countGroups(pattern)}
	f := pflags{i: caseless}
	root, err := ps.alt(&f, 0)
	if err != nil {
		return nil, err
	}
	if ps.i < len(ps.p) {
		return nil, fmt.Errorf("unmatched ) at offset %d", ps.i)
	}
	for _, r := range ps.refs {
		if r > ps.ncap {
			return nil, fmt.Errorf("a back-reference to group %d, which does not exist", r)
		}
	}
	for _, nm := range ps.nrefs {
		if nameIndex(ps.names, nm) < 0 {
			return nil, fmt.Errorf("a back-reference to the group %q, which does not exist", nm)
		}
	}
	// resolve named back-references
	var resolve func(n *pnode)
	resolve = func(n *pnode) {
		if n == nil {
			return
		}
		if n.op == pBackref && n.n < 0 {
			n.n = nameIndex(ps.names, ps.nrefs[-n.n-1])
		}
		resolve(n.sub)
		for _, s := range n.subs {
			resolve(s)
		}
	}
	resolve(root)
	re := &pcre{root: root, ncap: ps.ncap, names: ps.names}
	first := root
	for first.op == pConcat && len(first.subs) > 0 {
		first = first.subs[0]
	}
	re.anchored = first.op == pAssert && (first.assert == 'A' || first.assert == '^' && !first.multi)
	return re, nil
}

func nameIndex(names []string, nm string) int {
	for i, n := range names {
		if i > 0 && n == nm {
			return i
		}
	}
	return -1
}

// countGroups counts the capturing groups of a pattern, roughly as PCRE
// does before it reads \10 and above as a back-reference or octal.
func countGroups(p string) int {
	n, class := 0, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case class:
			if c == ']' {
				class = false
			}
		case c == '[':
			class = true
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			if i+1 >= len(p) || p[i+1] != '?' && p[i+1] != '*' {
				n++
			} else if strings.HasPrefix(p[i+1:], "?<") && i+3 < len(p) && p[i+3] != '=' && p[i+3] != '!' || strings.HasPrefix(p[i+1:], "?P<") || strings.HasPrefix(p[i+1:], "?'") {
				n++
			}
		}
	}
	return n
}

func (ps *pcreParser) errf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// alt reads alternatives up to ")" or the end.
func (ps *pcreParser) alt(f *pflags, depth int) (*pnode, error) {
	if depth > 200 {
		return nil, ps.errf("groups nested too deep")
	}
	var branches []*pnode
	for {
		b, err := ps.concat(f, depth)
		if err != nil {
			return nil, err
		}
		branches = append(branches, b)
		if ps.i < len(ps.p) && ps.p[ps.i] == '|' {
			ps.i++
			continue
		}
		break
	}
	if len(branches) == 1 {
		return branches[0], nil
	}
	return &pnode{op: pAlt, subs: branches}, nil
}

// concat reads items up to "|", ")" or the end.
func (ps *pcreParser) concat(f *pflags, depth int) (*pnode, error) {
	var items []*pnode
	for ps.i < len(ps.p) {
		c := ps.p[ps.i]
		if c == '|' || c == ')' {
			break
		}
		if f.x && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			ps.i++
			continue
		}
		if f.x && c == '#' {
			for ps.i < len(ps.p) && ps.p[ps.i] != '\n' {
				ps.i++
			}
			continue
		}
		atom, err := ps.atom(f, depth)
		if err != nil {
			return nil, err
		}
		if atom == nil {
			continue // an option setting or a comment
		}
		if atom.quoted {
			items = append(items, atom.subs[:len(atom.subs)-1]...)
			atom = atom.subs[len(atom.subs)-1]
		}
		atom, err = ps.quantifier(atom, f)
		if err != nil {
			return nil, err
		}
		items = append(items, atom)
	}
	switch len(items) {
	case 0:
		return &pnode{op: pEmpty}, nil
	case 1:
		return items[0], nil
	}
	return &pnode{op: pConcat, subs: items}, nil
}

// quantifier reads a quantifier after atom, if one follows.
func (ps *pcreParser) quantifier(atom *pnode, f *pflags) (*pnode, error) {
	for {
		if ps.i >= len(ps.p) {
			return atom, nil
		}
		min, max := 0, 0
		switch ps.p[ps.i] {
		case '*':
			min, max = 0, -1
			ps.i++
		case '+':
			min, max = 1, -1
			ps.i++
		case '?':
			min, max = 0, 1
			ps.i++
		case '{':
			lo, hi, n, ok := readBraces(ps.p[ps.i:])
			if !ok {
				return atom, nil // a literal "{"
			}
			min, max = lo, hi
			ps.i += n
		default:
			return atom, nil
		}
		if max >= 0 && min > max {
			return nil, ps.errf("numbers out of order in {} quantifier")
		}
		if min > 65535 || max > 65535 {
			return nil, ps.errf("number too big in {} quantifier")
		}
		if atom.op == pAssert {
			return nil, ps.errf("a quantifier after an assertion")
		}
		r := &pnode{op: pRepeat, sub: atom, min: min, max: max}
		if ps.i < len(ps.p) {
			switch ps.p[ps.i] {
			case '?':
				r.lazy = true
				ps.i++
			case '+':
				r.possessive = true
				ps.i++
			}
		}
		atom = r
		if ps.i < len(ps.p) && strings.IndexByte("*+?", ps.p[ps.i]) >= 0 {
			return nil, ps.errf("a quantifier does not follow a repeatable item")
		}
	}
}

// readBraces reads "{n}", "{n,}" or "{n,m}" at the start of s.
func readBraces(s string) (min, max, n int, ok bool) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return 0, 0, 0, false
	}
	body := s[1:end]
	lo, hi, comma := strings.Cut(body, ",")
	if lo == "" || strings.Trim(lo, "0123456789") != "" || strings.Trim(hi, "0123456789") != "" {
		return 0, 0, 0, false
	}
	min, err := strconv.Atoi(lo)
	if err != nil {
		min = 1 << 20
	}
	switch {
	case !comma:
		max = min
	case hi == "":
		max = -1
	default:
		if max, err = strconv.Atoi(hi); err != nil {
			max = 1 << 20
		}
	}
	return min, max, end + 1, true
}

func single(b byte, fold bool) *pnode {
	var s [256]bool
	s[b] = true
	if fold {
		s[foldByte(b)] = true
	}
	return &pnode{op: pLit, set: &s}
}

func foldByte(b byte) byte {
	switch {
	case b >= 'a' && b <= 'z':
		return b - 32
	case b >= 'A' && b <= 'Z':
		return b + 32
	}
	return b
}

// atom reads one item; nil for an option setting or a comment.
func (ps *pcreParser) atom(f *pflags, depth int) (*pnode, error) {
	c := ps.p[ps.i]
	switch c {
	case '(':
		return ps.group(f, depth)
	case '[':
		ps.i++
		set, err := ps.class(f)
		if err != nil {
			return nil, err
		}
		return &pnode{op: pSet, set: set}, nil
	case '.':
		ps.i++
		var s [256]bool
		for b := range s {
			s[b] = b != '\n' || f.s
		}
		return &pnode{op: pSet, set: &s}, nil
	case '^':
		ps.i++
		return &pnode{op: pAssert, assert: '^', multi: f.m}, nil
	case '$':
		ps.i++
		return &pnode{op: pAssert, assert: '$', multi: f.m}, nil
	case '\\':
		return ps.escape(f)
	case '*', '+', '?':
		return nil, ps.errf("a quantifier does not follow a repeatable item")
	case '{':
		if _, _, _, ok := readBraces(ps.p[ps.i:]); ok {
			return nil, ps.errf("a quantifier does not follow a repeatable item")
		}
	}
	ps.i++
	return single(c, f.i), nil
}

// group reads a parenthesised group.
func (ps *pcreParser) group(f *pflags, depth int) (*pnode, error) {
	rest := ps.p[ps.i+1:]
	inner := *f // options set inside a group end with it
	body := func(n *pnode) (*pnode, error) {
		sub, err := ps.alt(&inner, depth+1)
		if err != nil {
			return nil, err
		}
		if ps.i >= len(ps.p) || ps.p[ps.i] != ')' {
			return nil, ps.errf("missing )")
		}
		ps.i++
		n.sub = sub
		return n, nil
	}
	capture := func(name string, skip int) (*pnode, error) {
		ps.i += 1 + skip
		ps.ncap++
		ps.names = append(ps.names, name)
		return body(&pnode{op: pCap, n: ps.ncap})
	}
	if !strings.HasPrefix(rest, "?") {
		if strings.HasPrefix(rest, "*") {
			return nil, ps.errf("the PCRE verb (*")
		}
		return capture("", 0)
	}
	switch {
	case strings.HasPrefix(rest, "?:"):
		ps.i += 3
		return body(&pnode{op: pConcat})
	case strings.HasPrefix(rest, "?="), strings.HasPrefix(rest, "?!"):
		ps.i += 3
		n, err := body(&pnode{op: pLook, neg: rest[1] == '!'})
		return n, err
	case strings.HasPrefix(rest, "?<="), strings.HasPrefix(rest, "?<!"):
		ps.i += 4
		n, err := body(&pnode{op: pLook, neg: rest[2] == '!', behind: true})
		if err != nil {
			return nil, err
		}
		branches := []*pnode{n.sub}
		if n.sub.op == pAlt {
			branches = n.sub.subs
		}
		for _, b := range branches {
			l := fixedLen(b)
			if l < 0 {
				return nil, ps.errf("a lookbehind that is not of fixed length")
			}
			n.lens = append(n.lens, l)
		}
		n.sub = &pnode{op: pAlt, subs: branches}
		return n, nil
	case strings.HasPrefix(rest, "?>"):
		ps.i += 3
		return body(&pnode{op: pAtomic})
	case strings.HasPrefix(rest, "?#"):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return nil, ps.errf("missing ) after (?# comment")
		}
		ps.i += 1 + end + 1
		return nil, nil
	case strings.HasPrefix(rest, "?P="):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return nil, ps.errf("missing )")
		}
		name := rest[3:end]
		ps.i += 1 + end + 1
		return ps.namedRef(name, f)
	case strings.HasPrefix(rest, "?P<"), strings.HasPrefix(rest, "?<"), strings.HasPrefix(rest, "?'"):
		start, closer := 2, byte('>')
		if rest[1] == 'P' {
			start = 3
		} else if rest[1] == '\'' {
			closer = '\''
		}
		end := strings.IndexByte(rest[start:], closer)
		if end < 0 {
			return nil, ps.errf("a group name without its end")
		}
		name := rest[start : start+end]
		if !validName(name) {
			return nil, ps.errf("the group name %q", name)
		}
		if nameIndex(ps.names, name) >= 0 {
			return nil, ps.errf("two groups named %q", name)
		}
		return capture(name, start+end+1)
	}
	// option settings: (?imsx-imsx) and (?imsx-imsx:...)
	j := 1
	on := true
	nf := *f
	for ; j < len(rest); j++ {
		switch rest[j] {
		case 'i':
			nf.i = on
		case 'm':
			nf.m = on
		case 's':
			nf.s = on
		case 'x':
			nf.x = on
		case '-':
			if !on {
				return nil, ps.errf("the PCRE group (%s", rest[:j+1])
			}
			on = false
		case ')':
			ps.i += 1 + j + 1
			*f = nf // the rest of the enclosing group
			return nil, nil
		case ':':
			ps.i += 1 + j + 1
			inner = nf
			return body(&pnode{op: pConcat})
		default:
			return nil, ps.errf("the PCRE group (%s", rest[:min(j+1, len(rest))])
		}
	}
	return nil, ps.errf("missing )")
}

func validName(s string) bool {
	if s == "" || len(s) > 32 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (ps *pcreParser) namedRef(name string, f *pflags) (*pnode, error) {
	if !validName(name) {
		return nil, ps.errf("the group name %q", name)
	}
	ps.nrefs = append(ps.nrefs, name)
	return &pnode{op: pBackref, n: -len(ps.nrefs), fold: f.i}, nil
}

// fixedLen is the length every match of n has, or -1.
func fixedLen(n *pnode) int {
	switch n.op {
	case pEmpty, pAssert, pLook:
		return 0
	case pLit, pSet:
		return 1
	case pCap, pAtomic:
		return fixedLen(n.sub)
	case pConcat:
		if n.sub != nil { // a (?:...) group
			return fixedLen(n.sub)
		}
		t := 0
		for _, s := range n.subs {
			l := fixedLen(s)
			if l < 0 {
				return -1
			}
			t += l
		}
		return t
	case pAlt:
		l := -1
		for i, s := range n.subs {
			sl := fixedLen(s)
			if sl < 0 || i > 0 && sl != l {
				return -1
			}
			l = sl
		}
		return l
	case pRepeat:
		if n.min != n.max {
			return -1
		}
		l := fixedLen(n.sub)
		if l < 0 {
			return -1
		}
		return l * n.min
	}
	return -1
}

// classes of the escapes \d \w \s \h \v and their negations.
func escapeClass(c byte) (*[256]bool, bool) {
	var s [256]bool
	lower := c | 0x20
	for b := 0; b < 256; b++ {
		var in bool
		switch lower {
		case 'd':
			in = b >= '0' && b <= '9'
		case 'w':
			in = b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		case 's':
			in = b == ' ' || b >= '\t' && b <= '\r'
		case 'h':
			in = b == ' ' || b == '\t' || b == 0xa0
		case 'v':
			in = b >= '\n' && b <= '\r' || b == 0x85
		default:
			return nil, false
		}
		s[b] = in != (c != lower)
	}
	return &s, true
}

// escape reads a backslash escape outside a class.
func (ps *pcreParser) escape(f *pflags) (*pnode, error) {
	if ps.i+1 >= len(ps.p) {
		return nil, ps.errf("\\ at the end of the pattern")
	}
	c := ps.p[ps.i+1]
	ps.i += 2
	if set, ok := escapeClass(c); ok {
		return &pnode{op: pSet, set: set}, nil
	}
	switch c {
	case 'b', 'B', 'A', 'z', 'Z', 'G':
		return &pnode{op: pAssert, assert: c}, nil
	case 'K':
		return &pnode{op: pEmpty}, nil // resets the start of $0 only
	case 'N':
		var s [256]bool
		for b := range s {
			s[b] = b != '\n'
		}
		return &pnode{op: pSet, set: &s}, nil
	case 'Q':
		end := strings.Index(ps.p[ps.i:], `\E`)
		lit := ps.p[ps.i:]
		if end >= 0 {
			lit = lit[:end]
			ps.i += end + 2
		} else {
			ps.i = len(ps.p)
		}
		if lit == "" {
			return nil, nil
		}
		var items []*pnode
		for k := 0; k < len(lit); k++ {
			items = append(items, single(lit[k], f.i))
		}
		if len(items) == 1 {
			return items[0], nil
		}
		return &pnode{op: pConcat, subs: items, quoted: true}, nil
	case 'E':
		return nil, nil
	case 'g':
		return ps.gRef(f)
	case 'k':
		if ps.i >= len(ps.p) {
			return nil, ps.errf("\\k without a name")
		}
		closer := map[byte]byte{'<': '>', '\'': '\'', '{': '}'}[ps.p[ps.i]]
		end := strings.IndexByte(ps.p[ps.i+1:], closer)
		if closer == 0 || end < 0 {
			return nil, ps.errf("\\k without a name")
		}
		name := ps.p[ps.i+1 : ps.i+1+end]
		ps.i += end + 2
		return ps.namedRef(name, f)
	}
	if c >= '1' && c <= '9' {
		j := ps.i
		for j < len(ps.p) && ps.p[j] >= '0' && ps.p[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(ps.p[ps.i-1 : j])
		if err == nil && (n < 10 || c == '8' || c == '9' || n <= ps.totcap) {
			ps.i = j
			ps.refs = append(ps.refs, n)
			return &pnode{op: pBackref, n: n, fold: f.i}, nil
		}
		ps.i--
		return single(ps.octal(), f.i), nil
	}
	b, err := ps.charEscape(c)
	if err != nil {
		return nil, err
	}
	return single(b, f.i), nil
}

// gRef reads \g's forms: \gN, \g{N}, \g{-N}, \g{name}.
func (ps *pcreParser) gRef(f *pflags) (*pnode, error) {
	arg := ""
	switch {
	case ps.i < len(ps.p) && ps.p[ps.i] == '{':
		end := strings.IndexByte(ps.p[ps.i:], '}')
		if end < 0 {
			return nil, ps.errf("\\g{ without its end")
		}
		arg = ps.p[ps.i+1 : ps.i+end]
		ps.i += end + 1
	case ps.i < len(ps.p) && (ps.p[ps.i] == '<' || ps.p[ps.i] == '\''):
		return nil, ps.errf("a subroutine call (\\g%c)", ps.p[ps.i])
	default:
		j := ps.i
		if j < len(ps.p) && ps.p[j] == '-' {
			j++
		}
		for j < len(ps.p) && ps.p[j] >= '0' && ps.p[j] <= '9' {
			j++
		}
		arg = ps.p[ps.i:j]
		ps.i = j
	}
	if n, err := strconv.Atoi(arg); err == nil {
		if n < 0 {
			n = ps.ncap + 1 + n
		}
		if n <= 0 {
			return nil, ps.errf("\\g%s refers to no group", arg)
		}
		ps.refs = append(ps.refs, n)
		return &pnode{op: pBackref, n: n, fold: f.i}, nil
	}
	return ps.namedRef(arg, f)
}

// braced reads the "{digits}" of \\o{...} or \\x{...} at ps.i: one byte.
func (ps *pcreParser) braced(c byte, base int) (byte, error) {
	end := strings.IndexByte(ps.p[ps.i:], '}')
	if end < 0 {
		return 0, ps.errf("\\%c{ without its end", c)
	}
	digits := ps.p[ps.i+1 : ps.i+end]
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil || v > 255 {
		return 0, ps.errf("the character \\%c{%s} (nginx's PCRE reads bytes)", c, digits)
	}
	ps.i += end + 1
	return byte(v), nil
}

// octal reads up to three octal digits at ps.i.
func (ps *pcreParser) octal() byte {
	v, k := 0, 0
	for ; k < 3 && ps.i < len(ps.p) && ps.p[ps.i] >= '0' && ps.p[ps.i] <= '7'; k++ {
		v = v*8 + int(ps.p[ps.i]-'0')
		ps.i++
	}
	if k == 0 {
		// \8 or \9 as a literal digit
		ps.i++
		return ps.p[ps.i-1]
	}
	return byte(v)
}

// charEscape reads an escape that stands for one byte (c follows the
// backslash; ps.i is after it).
func (ps *pcreParser) charEscape(c byte) (byte, error) {
	switch c {
	case 'n':
		return '\n', nil
	case 't':
		return '\t', nil
	case 'r':
		return '\r', nil
	case 'f':
		return '\f', nil
	case 'e':
		return 0x1b, nil
	case 'a':
		return 0x07, nil
	case '0':
		ps.i--
		return ps.octal(), nil
	case 'o':
		if ps.i >= len(ps.p) || ps.p[ps.i] != '{' {
			return 0, ps.errf("\\o without {")
		}
		return ps.braced('o', 8)
	case 'x':
		if ps.i < len(ps.p) && ps.p[ps.i] == '{' {
			return ps.braced('x', 16)
		}
		v, k := 0, 0
		for ; k < 2 && ps.i < len(ps.p) && unhex(ps.p[ps.i]) >= 0; k++ {
			v = v*16 + unhex(ps.p[ps.i])
			ps.i++
		}
		return byte(v), nil
	case 'c':
		if ps.i >= len(ps.p) || ps.p[ps.i] < 0x20 || ps.p[ps.i] > 0x7e {
			return 0, ps.errf("\\c without a printable character")
		}
		b := ps.p[ps.i]
		ps.i++
		if b >= 'a' && b <= 'z' {
			b -= 32
		}
		return b ^ 0x40, nil
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return 0, ps.errf("the PCRE escape \\%c", c)
	}
	return c, nil // an escaped punctuation character or byte
}

var posixClasses = map[string]func(b int) bool{
	"alnum": func(b int) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' },
	"alpha": func(b int) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' },
	"ascii": func(b int) bool { return b < 128 },
	"blank": func(b int) bool { return b == ' ' || b == '\t' },
	"cntrl": func(b int) bool { return b < 32 || b == 127 },
	"digit": func(b int) bool { return b >= '0' && b <= '9' },
	"graph": func(b int) bool { return b > 32 && b < 127 },
	"lower": func(b int) bool { return b >= 'a' && b <= 'z' },
	"print": func(b int) bool { return b >= 32 && b < 127 },
	"punct": func(b int) bool {
		return b > 32 && b < 127 && !(b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z')
	},
	"space": func(b int) bool { return b == ' ' || b >= '\t' && b <= '\r' },
	"upper": func(b int) bool { return b >= 'A' && b <= 'Z' },
	"word": func(b int) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	},
	"xdigit": func(b int) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' },
}

// class reads a character class after its "[".
func (ps *pcreParser) class(f *pflags) (*[256]bool, error) {
	var s [256]bool
	neg := false
	if ps.i < len(ps.p) && ps.p[ps.i] == '^' {
		neg = true
		ps.i++
	}
	first := true
	prev := -1 // the last single byte read, for a range
	for {
		if ps.i >= len(ps.p) {
			return nil, ps.errf("missing terminating ] for character class")
		}
		c := ps.p[ps.i]
		if c == ']' && !first {
			ps.i++
			break
		}
		first = false
		if c == '[' && ps.i+1 < len(ps.p) && ps.p[ps.i+1] == ':' {
			end := strings.Index(ps.p[ps.i:], ":]")
			if end > 0 {
				name := ps.p[ps.i+2 : ps.i+end]
				nneg := strings.HasPrefix(name, "^")
				fn := posixClasses[strings.TrimPrefix(name, "^")]
				if fn == nil {
					return nil, ps.errf("unknown POSIX class name %q", name)
				}
				for b := 0; b < 256; b++ {
					if fn(b) != nneg {
						s[b] = true
					}
				}
				ps.i += end + 2
				prev = -1
				continue
			}
		}
		var b byte
		if c == '\\' {
			if ps.i+1 >= len(ps.p) {
				return nil, ps.errf("\\ at the end of the pattern")
			}
			e := ps.p[ps.i+1]
			ps.i += 2
			if set, ok := escapeClass(e); ok {
				for k := range s {
					s[k] = s[k] || set[k]
				}
				prev = -1
				continue
			}
			switch {
			case e == 'b':
				b = 0x08
			case e == 'Q' || e == 'E' || e == 'N' || e == 'p' || e == 'P' || e == 'X' || e == 'R':
				return nil, ps.errf("the PCRE escape \\%c in a character class", e)
			case e >= '1' && e <= '9':
				ps.i--
				b = ps.octal()
			default:
				var err error
				if b, err = ps.charEscape(e); err != nil {
					return nil, err
				}
			}
		} else {
			b = c
			ps.i++
		}
		// a range "x-y" (a "-" before "]" is a literal)
		if prev < 0 && ps.i+1 < len(ps.p) && ps.p[ps.i] == '-' && ps.p[ps.i+1] != ']' {
			save := ps.i
			ps.i++
			hc := ps.p[ps.i]
			var hi byte
			isRange := true
			switch {
			case hc == '\\':
				if ps.i+1 >= len(ps.p) {
					return nil, ps.errf("\\ at the end of the pattern")
				}
				e := ps.p[ps.i+1]
				if _, ok := escapeClass(e); ok {
					isRange = false // "a-\d": "-" is a literal
					break
				}
				ps.i += 2
				if e == 'b' {
					hi = 0x08
				} else if e >= '1' && e <= '9' {
					ps.i--
					hi = ps.octal()
				} else {
					var err error
					if hi, err = ps.charEscape(e); err != nil {
						return nil, err
					}
				}
			case hc == '[' && ps.i+1 < len(ps.p) && ps.p[ps.i+1] == ':':
				isRange = false
			default:
				hi = hc
				ps.i++
			}
			if isRange {
				if hi < b {
					return nil, ps.errf("range out of order in character class")
				}
				for k := int(b); k <= int(hi); k++ {
					s[k] = true
				}
				continue
			}
			ps.i = save
		}
		s[b] = true
		prev = -1
	}
	if f.i {
		for k := 'a'; k <= 'z'; k++ {
			if s[k] || s[k-32] {
				s[k], s[k-32] = true, true
			}
		}
	}
	if neg {
		for k := range s {
			s[k] = !s[k]
		}
	}
	return &s, nil
}

// pmatch is one match attempt's state.
type pmatch struct {
	s          string
	caps       []int
	steps      int
	depth      int
	over       bool
	matchStart int
}

// run finds the leftmost match of re in s: the submatch indexes as
// regexp.FindStringSubmatchIndex returns them (nil: no match), and over
// when the work bound stopped it.
func (re *pcre) run(s string) (idx []int, over bool) {
	m := &pmatch{s: s, caps: make([]int, 2*(re.ncap+1))}
	last := len(s)
	if re.anchored {
		last = 0
	}
	for start := 0; start <= last; start++ {
		for k := range m.caps {
			m.caps[k] = -1
		}
		m.matchStart = start
		found := m.match(re.root, start, func(j int) bool {
			m.caps[0], m.caps[1] = start, j
			return true
		})
		if m.over {
			return nil, true
		}
		if found {
			return append([]int(nil), m.caps...), false
		}
	}
	return nil, false
}

func isWord(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// match matches n at i and then the rest, k.
func (m *pmatch) match(n *pnode, i int, k func(int) bool) bool {
	m.steps++
	if m.steps > maxSteps || m.depth > maxDepth {
		m.over = true
	}
	if m.over {
		return false
	}
	m.depth++
	defer func() { m.depth-- }()
	s := m.s
	switch n.op {
	case pEmpty:
		return k(i)
	case pLit, pSet:
		return i < len(s) && n.set[s[i]] && k(i+1)
	case pConcat:
		if n.sub != nil {
			return m.match(n.sub, i, k)
		}
		return m.seq(n.subs, i, k)
	case pAlt:
		for _, b := range n.subs {
			if m.match(b, i, k) {
				return true
			}
			if m.over {
				return false
			}
		}
		return false
	case pCap:
		return m.match(n.sub, i, func(j int) bool {
			plo, phi := m.caps[2*n.n], m.caps[2*n.n+1]
			m.caps[2*n.n], m.caps[2*n.n+1] = i, j
			if k(j) {
				return true
			}
			m.caps[2*n.n], m.caps[2*n.n+1] = plo, phi
			return false
		})
	case pRepeat:
		if n.possessive {
			return m.atomic(&pnode{op: pRepeat, sub: n.sub, min: n.min, max: n.max}, i, k)
		}
		if n.sub.op == pLit || n.sub.op == pSet {
			return m.repeatByte(n, i, k)
		}
		return m.repeat(n, 0, i, k)
	case pAtomic:
		return m.atomic(n.sub, i, k)
	case pLook:
		saved := append([]int(nil), m.caps...)
		found := false
		if n.behind {
			for bi, b := range n.sub.subs {
				l := n.lens[bi]
				if i-l < 0 {
					continue
				}
				if m.match(b, i-l, func(j int) bool { return j == i }) {
					found = true
					break
				}
			}
		} else {
			found = m.match(n.sub, i, func(int) bool { return true })
		}
		if m.over {
			return false
		}
		if found == n.neg {
			copy(m.caps, saved)
			return false
		}
		if n.neg {
			copy(m.caps, saved)
		}
		if k(i) {
			return true
		}
		copy(m.caps, saved)
		return false
	case pBackref:
		lo, hi := m.caps[2*n.n], m.caps[2*n.n+1]
		if lo < 0 {
			return false // an unset group matches nothing
		}
		ref := s[lo:hi]
		if len(s)-i < len(ref) {
			return false
		}
		got := s[i : i+len(ref)]
		if got != ref && !(n.fold && asciiEqualFold(got, ref)) {
			return false
		}
		return k(i + len(ref))
	case pAssert:
		if m.assert(n, i) {
			return k(i)
		}
		return false
	}
	return false
}

func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] && foldByte(a[i]) != b[i] {
			return false
		}
	}
	return true
}

func (m *pmatch) assert(n *pnode, i int) bool {
	s := m.s
	switch n.assert {
	case '^':
		return i == 0 || n.multi && s[i-1] == '\n'
	case '$':
		if n.multi {
			return i == len(s) || s[i] == '\n'
		}
		return i == len(s) || i == len(s)-1 && s[i] == '\n'
	case 'A':
		return i == 0
	case 'z':
		return i == len(s)
	case 'Z':
		return i == len(s) || i == len(s)-1 && s[i] == '\n'
	case 'b':
		return isWord(s, i-1) != isWord(s, i)
	case 'B':
		return isWord(s, i-1) == isWord(s, i)
	case 'G':
		return i == m.matchStart
	}
	return false
}

func (m *pmatch) seq(items []*pnode, i int, k func(int) bool) bool {
	if len(items) == 0 {
		return k(i)
	}
	return m.match(items[0], i, func(j int) bool { return m.seq(items[1:], j, k) })
}

// atomic matches n once, its first way, and then k: no backtracking into
// n.
func (m *pmatch) atomic(n *pnode, i int, k func(int) bool) bool {
	saved := append([]int(nil), m.caps...)
	end := -1
	if !m.match(n, i, func(j int) bool { end = j; return true }) {
		copy(m.caps, saved)
		return false
	}
	if k(end) {
		return true
	}
	copy(m.caps, saved)
	return false
}

// repeatByte repeats a one-byte item without recursing per byte.
func (m *pmatch) repeatByte(n *pnode, i int, k func(int) bool) bool {
	s, set := m.s, n.sub.set
	count := 0
	for i+count < len(s) && (n.max < 0 || count < n.max) && set[s[i+count]] {
		count++
	}
	if count < n.min {
		return false
	}
	try := func(c int) bool {
		m.steps++
		if m.steps > maxSteps {
			m.over = true
		}
		return !m.over && k(i+c)
	}
	if n.lazy {
		for c := n.min; c <= count; c++ {
			if try(c) {
				return true
			}
			if m.over {
				return false
			}
		}
		return false
	}
	for c := count; c >= n.min; c-- {
		if try(c) {
			return true
		}
		if m.over {
			return false
		}
	}
	return false
}

// repeat matches the count-th and later repetitions of n.sub at i.
func (m *pmatch) repeat(n *pnode, count, i int, k func(int) bool) bool {
	more := func() bool {
		return m.match(n.sub, i, func(j int) bool {
			if j == i && count+1 >= n.min {
				return k(j) // an empty repetition ends the loop
			}
			return m.repeat(n, count+1, j, k)
		})
	}
	switch {
	case count < n.min:
		return more()
	case n.max >= 0 && count >= n.max:
		return k(i)
	case n.lazy:
		return k(i) || !m.over && more()
	}
	return more() || !m.over && k(i)
}
