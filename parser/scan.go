package parser

import (
	"bytes"
	"fmt"
	"strings"
	"unsafe"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/untrusted"
)

// maxDepth (depth.go, depth_js.go) bounds block nesting. nginx accepts
// 10,000 nested locations (its parser is recursive too); real
// configurations stay below 20.

// maxToken mirrors nginx's 4096-byte configuration buffer: a longer single
// parameter is rejected by nginx with "too long parameter".
const maxToken = 4096

type tokKind int

const (
	tWord tokKind = iota
	tSemi
	tOpen
	tClose
	tEOF
)

type token struct {
	kind tokKind
	arg  Arg
	off  int
	line int
}

// syntaxError stops the scan of one file.
type syntaxError struct{ d finding.Diagnostic }

type scanner struct {
	f           *File
	src         []byte
	pos         int
	line        int
	lastTokLine int // line of the last token, to tell trailing comments
	// the column of the last token asked for (colAt): tokens come in
	// order, so the next one's column counts on from there, or from the
	// start of its line when a line break came between them (lineStart,
	// kept wherever the scanner counts a line, so that no token's column
	// searches for one)
	colOff, col int
	lineStart   int
	tok         token // the last token read (next)

	// Statements, their arguments and the lists of a block's statements
	// live in slabs shared by the file: a large file then costs a few
	// hundred allocations instead of three per statement, and no slice is
	// left with spare capacity (see slab). A statement's arguments are
	// written straight into their slab (nothing else is read between
	// them); a block's statements are gathered on stack, since the blocks
	// inside it are read in between, and copied out when it closes.
	stack []*Directive
	dirs  slab[Directive]
	args  slab[Arg]
	ptrs  slab[*Directive]

	// what a walk of the file (WalkFile) would meet, noted on the way
	// (File.Walked); hidden counts the data blocks the scanner is in,
	// whose entries a walk does not meet
	walked Walked
	hidden int
}

// slab hands out pieces of larger arrays, each new array twice the last
// (from 8 up to 512 elements), so that a small file stays small. A piece
// has no spare capacity: appending to it copies.
type slab[T any] struct {
	arr  []T
	used int
	next int
}

func (s *slab[T]) grow(n int) {
	s.next = min(max(2*s.next, 8), 512)
	s.arr, s.used = make([]T, max(n, s.next)), 0
}

func (s *slab[T]) take(n int) []T {
	if s.used+n > len(s.arr) {
		s.grow(n)
	}
	out := s.arr[s.used : s.used+n : s.used+n]
	s.used += n
	return out
}

// push extends run, the last piece taken (or nil), by v in place, moving
// it to a new array when this one is full, and returns it.
func (s *slab[T]) push(run []T, v *T) []T {
	if s.used == len(s.arr) {
		old := run
		s.grow(2*len(old) + 1)
		s.used = copy(s.arr, old)
	}
	start := s.used - len(run)
	s.arr[s.used] = *v
	s.used++
	return s.arr[start:s.used:s.used]
}

// parseFile parses src into f. A syntax error is returned as a finding.Diagnostic;
// the statements completed before it stay in f.Directives.
func parseFile(f *File) *finding.Diagnostic {
	f.newline = newlineOf(f.Src)
	s := &scanner{f: f, src: f.Src, line: 1}
	if len(s.src) >= 3 && s.src[0] == 0xEF && s.src[1] == 0xBB && s.src[2] == 0xBF {
		s.pos = 3    // a UTF-8 byte order mark; nginx itself would read it as part of the first word
		s.colOff = 3 // and editors do not count it as a column (as File.Position)
	}
	dirs, err := s.block(nil, 0)
	f.Directives = dirs
	if err != nil {
		f.Broken = true // a statement cut short is not in the tree: walk it
		return &err.d
	}
	w := s.walked
	f.walked = &w
	return nil
}

func (s *scanner) errAt(off, line int, format string, args ...any) *syntaxError {
	_, col := s.f.Position(off)
	return &syntaxError{finding.Diagnostic{
		Rule: Syntax, Severity: finding.Error, File: s.f.Path,
		Line: line, Col: col, Offset: off, Message: fmt.Sprintf(format, args...),
	}}
}

func (s *scanner) eofLine() int { return s.line }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// colAt returns the column (1-based, in characters) of the byte at off,
// which is past every offset asked before: what File.Position gives,
// without its binary search of the line starts for every token.
func (s *scanner) colAt(off int) int32 {
	if s.lineStart > s.colOff { // a line break since
		s.col = columnOf(s.src[s.lineStart:off])
	} else {
		s.col += columnOf(s.src[s.colOff:off])
	}
	s.colOff = off
	return int32(s.col + 1)
}

// next reads the next token into s.tok, recording comments on the way.
// (A field, not a result: a token returned by value was copied two or
// three times on its way into a statement's arguments.)
func (s *scanner) next() *syntaxError {
	for {
		for s.pos < len(s.src) && isSpace(s.src[s.pos]) {
			if s.src[s.pos] == '\n' {
				s.line++
				s.lineStart = s.pos + 1
			}
			s.pos++
		}
		if s.pos >= len(s.src) {
			s.tok.kind, s.tok.off, s.tok.line = tEOF, s.pos, s.line
			return nil
		}
		c := s.src[s.pos]
		start, line := s.pos, s.line
		switch c {
		case ';':
			s.pos++
			s.lastTokLine = line
			s.tok.kind, s.tok.off, s.tok.line = tSemi, start, line
			return nil
		case '{':
			s.pos++
			s.lastTokLine = line
			s.tok.kind, s.tok.off, s.tok.line = tOpen, start, line
			return nil
		case '}':
			s.pos++
			s.lastTokLine = line
			s.tok.kind, s.tok.off, s.tok.line = tClose, start, line
			return nil
		case '#':
			end := start
			for end < len(s.src) && s.src[end] != '\n' {
				end++
			}
			text := strings.TrimSuffix(srcString(s.src[start+1:end]), "\r")
			col := s.colAt(start)
			s.f.Comments = append(s.f.Comments, Comment{
				Text: text, Line: line, Col: int(col), Offset: start, Trailing: s.lastTokLine == line,
			})
			s.pos = end
			continue
		case '"', '\'':
			return s.quoted(c)
		}
		return s.word()
	}
}

func (s *scanner) quoted(q byte) *syntaxError {
	start, line := s.pos, s.line
	col := s.colAt(start)
	i := s.pos + 1
	escaped := false // a backslash: the value is unescaped, else it is the text
	for {
		if i >= len(s.src) {
			s.pos = i
			e := s.errAt(start, line, "unexpected end of file, expecting %q or \"}\": the quote opened here is never closed", ";")
			e.d.EndLine = s.line
			return e
		}
		c := s.src[i]
		if c == '\n' {
			s.line++
			s.lineStart = i + 1
		}
		if c == '\\' && i+1 < len(s.src) {
			if s.src[i+1] == '\n' {
				s.line++
				s.lineStart = i + 2
			}
			i += 2
			escaped = true
			continue
		}
		if c == q {
			break
		}
		i++
	}
	if i-start-1 >= maxToken {
		e := s.errAt(start, line, "too long parameter, probably missing terminating '%c' character", q)
		e.d.EndLine = s.line
		return e
	}
	s.pos = i + 1
	raw := srcString(s.src[start:s.pos])
	// nginx requires white space, ";", "{" or ")" right after a closing quote.
	if s.pos < len(s.src) {
		c := s.src[s.pos]
		if !isSpace(c) && c != ';' && c != '{' && c != ')' {
			return s.errAt(s.pos, s.line, "unexpected %q after the quoted string %s", string(c), untrusted.Clip(raw))
		}
	}
	s.lastTokLine = s.line
	value := raw[1 : len(raw)-1]
	if escaped {
		value = unescape(value)
	}
	s.setWord(start, line, col, raw, value, q)
	return nil
}

// wordByte marks the bytes a word's loop has nothing to decide on: not
// white space, ";", "{", "\\" or "$" (after which "{" stays in the word).
var wordByte = func() (t [256]bool) {
	for i := range t {
		t[i] = true
	}
	for _, c := range " \t\r\n;{\\$" {
		t[c] = false
	}
	return t
}()

func (s *scanner) word() *syntaxError {
	start, line := s.pos, s.line
	col := s.colAt(start)
	i := s.pos
	variable := false
	escaped := false // a backslash: the value is unescaped, else it is the text
	for i < len(s.src) {
		c := s.src[i]
		if wordByte[c] {
			variable = false
			i++
			continue
		}
		if c == '\\' && i+1 < len(s.src) {
			if s.src[i+1] == '\n' {
				s.line++
				s.lineStart = i + 2
			}
			i += 2
			variable, escaped = false, true
			continue
		}
		if c == '{' && variable { // "${name}" keeps its brace
			variable = false
			i++
			continue
		}
		if isSpace(c) || c == ';' || c == '{' {
			break
		}
		variable = c == '$'
		escaped = escaped || c == '\\'
		i++
	}
	if i-start >= maxToken {
		e := s.errAt(start, line, "too long parameter %q... started", string(s.src[start:start+10]))
		e.d.EndLine = s.line
		return e
	}
	s.pos = i
	raw := srcString(s.src[start:i])
	s.lastTokLine = s.line
	value := raw
	if escaped {
		value = unescape(raw)
	}
	s.setWord(start, line, col, raw, value, 0)
	return nil
}

// setWord makes s.tok the word read, field by field (an Arg literal was
// built on the stack and copied in 16-byte moves that waited on its
// 8-byte stores).
func (s *scanner) setWord(start, line int, col int32, raw, value string, q byte) {
	t := &s.tok
	t.kind, t.off, t.line = tWord, start, line
	t.arg.Raw, t.arg.Value, t.arg.Quote = raw, value, q
	t.arg.Line, t.arg.Col, t.arg.Offset = int32(line), col, int32(start)
}

// unescape applies the escapes nginx applies to every parameter: \" \' and
// \\ lose their backslash, \t \r \n become control characters, and any other
// backslash stays as written.
func unescape(s string) string {
	// the first backslash that escapes anything; a regular expression's
	// "\." and "\d" stay as written, and so does the whole value
	first := -1
	for i := strings.IndexByte(s, '\\'); i >= 0 && i+1 < len(s); {
		if c := s[i+1]; c == '"' || c == '\'' || c == '\\' || c == 't' || c == 'r' || c == 'n' {
			first = i
			break
		}
		j := strings.IndexByte(s[i+2:], '\\')
		if j < 0 {
			break
		}
		i += 2 + j
	}
	if first < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) - 1)
	b.WriteString(s[:first])
	for i := first; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\'', '\\':
				b.WriteByte(s[i+1])
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case 'r':
				b.WriteByte('\r')
				i++
				continue
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// block reads statements until the closing brace of parent (or the end of
// the file at the top level).
func (s *scanner) block(parent *Directive, depth int) ([]*Directive, *syntaxError) {
	base := len(s.stack)
	dirs := func() []*Directive {
		if len(s.stack) == base {
			return []*Directive{} // a block, even empty, is never nil
		}
		out := s.ptrs.take(len(s.stack) - base)
		copy(out, s.stack[base:])
		clear(s.stack[base:])
		s.stack = s.stack[:base]
		return out
	}
	for {
		if err := s.next(); err != nil {
			return dirs(), err
		}
		t := &s.tok
		switch t.kind {
		case tEOF:
			if parent != nil {
				e := s.errAt(int(parent.BlockOpen), s.lineAt(int(parent.BlockOpen), parent),
					"unexpected end of file, expecting \"}\": the %q block opened here is never closed", untrusted.Clip(parent.Name))
				e.d.EndLine = s.eofLine()
				return dirs(), e
			}
			return dirs(), nil
		case tClose:
			if parent == nil {
				return dirs(), s.errAt(t.off, t.line, "unexpected \"}\"")
			}
			parent.End = int32(t.off + 1)
			parent.EndLine = int32(t.line)
			return dirs(), nil
		case tSemi:
			return dirs(), s.errAt(t.off, t.line, "unexpected \";\"")
		case tOpen:
			return dirs(), s.errAt(t.off, t.line, "unexpected \"{\"")
		}
		// a slab's elements are new and zero: only the fields that are
		// not are written (a whole literal also rewrites the zero
		// pointers, each through the collector's write barrier while it
		// marks)
		d := &s.dirs.take(1)[0]
		d.Name, d.File, d.Parent = t.arg.Value, s.f, parent
		d.Line, d.Col, d.Start, d.BlockOpen = int32(t.line), t.arg.Col, int32(t.off), -1
		if s.hidden == 0 {
			s.walked.Directives++
			if d.Name == "include" {
				s.walked.Includes = append(s.walked.Includes, Include{d, s.walked.Directives})
			}
		}
		if err := s.statement(d, depth); err != nil {
			if d.Block != nil {
				s.stack = append(s.stack, d) // keep the partial block for callers that look
			}
			return dirs(), err
		}
		s.stack = append(s.stack, d)
	}
}

func (s *scanner) lineAt(off int, d *Directive) int {
	l, _ := d.File.Position(off)
	return l
}

func (s *scanner) statement(d *Directive, depth int) *syntaxError {
	prevLine := d.Line // of the word before
	for {
		if err := s.next(); err != nil {
			return err
		}
		t := &s.tok
		switch t.kind {
		case tWord:
			if ml := s.walked.multiLine; t.arg.Line > prevLine && s.hidden == 0 && (len(ml) == 0 || ml[len(ml)-1] != d) {
				s.walked.multiLine = append(ml, d) // a glued statement, maybe (FileFindings)
			}
			prevLine = t.arg.Line
			d.Args = s.args.push(d.Args, &t.arg)
		case tSemi:
			d.End, d.EndLine = int32(t.off+1), int32(t.line)
			return nil
		case tClose:
			return s.errAt(t.off, t.line, "unexpected \"}\": the %q directive is not terminated by \";\"", untrusted.Clip(d.Name))
		case tEOF:
			e := s.errAt(int(d.Start), int(d.Line), "unexpected end of file, expecting \";\" or \"}\": the %q directive is not terminated", untrusted.Clip(d.Name))
			e.d.EndLine = s.eofLine()
			return e
		case tOpen:
			d.BlockOpen = int32(t.off)
			d.Block = []*Directive{}
			if strings.HasSuffix(d.Name, "_by_lua_block") {
				return s.luaBody(d)
			}
			if depth+1 >= maxDepth {
				return s.errAt(t.off, t.line, "blocks nested more than %d deep", maxDepth)
			}
			hide := s.hidden > 0 || dataBlock(d.Name)
			if hide {
				if s.hidden == 0 {
					s.walked.data = append(s.walked.data, d)
				}
				s.hidden++
			}
			body, err := s.block(d, depth+1)
			if hide {
				s.hidden--
			}
			d.Block = body
			if err != nil {
				d.End, d.EndLine = int32(len(s.src)), int32(s.line)
			}
			return err
		}
	}
}

// luaBody skips the Lua source of a *_by_lua_block up to its matching brace,
// honouring Lua strings, long brackets and comments, and keeps it raw.
func (s *scanner) luaBody(d *Directive) *syntaxError {
	src := s.src
	if i := luaScan(src, s.pos, nil); i >= 0 {
		s.line += bytes.Count(src[s.pos:i], []byte{'\n'})
		if k := bytes.LastIndexByte(src[s.pos:i], '\n'); k >= 0 {
			s.lineStart = s.pos + k + 1
		}
		d.rareParts().rawBody = string(src[s.pos:i])
		d.End, d.EndLine = int32(i+1), int32(s.line)
		s.pos = i + 1
		s.lastTokLine = s.line
		return nil
	}
	s.line += bytes.Count(src[s.pos:], []byte{'\n'})
	s.pos = len(src)
	e := s.errAt(int(d.BlockOpen), int(d.Line), "unexpected end of file, expecting \"}\": the %q block opened here is never closed", untrusted.Clip(d.Name))
	e.d.EndLine = s.line
	return e
}

// luaScan reads Lua source from i, one level inside a block, and returns
// the offset of the "}" that closes that block, -1 when none does. It
// honours Lua strings, long brackets and comments, and calls span, when
// not nil, with the start and end of each of them.
func luaScan(src []byte, i int, span func(from, to int)) int {
	depth := 1
	token := func(from, to int) int {
		to = min(to, len(src))
		if span != nil {
			span(from, to)
		}
		return to
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			if lvl, ok := longBracket(src, i+2); ok {
				i = token(i, closeLong(src, i+2+lvl+2, lvl))
				continue
			}
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '[':
			if lvl, ok := longBracket(src, i); ok {
				i = token(i, closeLong(src, i+lvl+2, lvl))
				continue
			}
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = token(i, j+1)
			continue
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return -1
}

// LuaMultiLine returns the strings, long strings and long comments of a
// *_by_lua_block body (as RawBody returns it) that run over more than one
// line, as offsets in body: their inner lines are Lua's text, where white
// space is content.
func LuaMultiLine(body string) [][2]int {
	var out [][2]int
	luaScan([]byte(body), 0, func(from, to int) {
		if strings.IndexByte(body[from:to], '\n') >= 0 {
			out = append(out, [2]int{from, to})
		}
	})
	return out
}

// longBracket reports whether src[i:] opens a Lua long bracket "[==[" and
// its level (the number of "=").
func longBracket(src []byte, i int) (int, bool) {
	if i >= len(src) || src[i] != '[' {
		return 0, false
	}
	j := i + 1
	for j < len(src) && src[j] == '=' {
		j++
	}
	if j < len(src) && src[j] == '[' {
		return j - i - 1, true
	}
	return 0, false
}

// closeLong returns the offset just past the "]==]" of the given level that
// closes a long bracket whose body starts at from.
func closeLong(src []byte, from, lvl int) int {
	closer := []byte("]" + strings.Repeat("=", lvl) + "]")
	if k := bytes.Index(src[min(from, len(src)):], closer); k >= 0 {
		return from + k + len(closer)
	}
	return len(src)
}

// srcString is the text of a token without copying it: the string shares
// the file's source buffer, which the tree keeps for as long as it lives and
// which nothing writes after it is read (fixes build new buffers). On a
// 20,000-server tree this saves a copy of every word of the source, a few
// hundred thousand small allocations.
func srcString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// Parse reads one file's source without following its includes: for a
// formatter, an editor buffer, or a tool that keeps its files elsewhere. A
// syntax error is returned as a finding.Diagnostic, with the statements completed
// before it in the file.
func Parse(path string, src []byte) (*File, *finding.Diagnostic) {
	f := &File{Path: path, Src: src}
	d := parseFile(f)
	return f, d
}
