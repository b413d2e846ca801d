// Package format writes nginx configuration files in one canonical layout:
// one statement per line, blocks indented by the file's own step (tabs or
// N spaces, unless told otherwise), "{" on the statement's line and "}" on
// a line of its own, at most two blank lines in a row and none before "}"
// or at the end, every comment kept where it was (a comment after code
// stays on its line, and so do the statements before it on that line;
// white space at the end of a line is dropped). Arguments are written
// exactly as they were (quotes and escapes byte for byte, and the spaces
// that align them in columns), and the bodies of blocks that are data
// rather than statements (map, geo, types, split_clients, charset_map,
// *_by_lua_block) are kept as they are. A file already laid out so in its
// own style (Debian's and nginx's distributed files) comes out byte for
// byte as it was.
//
// Source reformats from the parser's tree, then parses its own output
// and compares the two: a layout that would change what nginx reads is an
// error, never a write.
package format

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// Options are the layout choices users differ on. The zero value keeps
// each file's own indentation (Indent detects it; 4 spaces when the file
// shows none).
type Options struct {
	Indent int  // spaces per level; 0: the file's own
	Tabs   bool // indent with one tab per level
	// Align lines up the first arguments of consecutive one-line
	// statements of a block in a column (see align.go).
	Align bool
}

// ErrChanged is returned when the formatted text would not read as the
// original: a bug in this package, never a reason to write.
type ErrChanged struct {
	Path   string
	Detail string
}

func (e *ErrChanged) Error() string {
	return fmt.Sprintf("%s: formatting would change what nginx reads (%s); nothing written — please report this", e.Path, e.Detail)
}

// Source formats one parsed file. The file must have parsed without a
// syntax error.
func Source(f *parser.File, opt Options) ([]byte, error) {
	if d := tooDeep(f.Directives, 1); d != nil {
		return nil, fmt.Errorf("%s:%d: blocks nested more than %d deep; fmt indents every level, so its output would grow with the square of the nesting: not formatted", f.Path, d.Line, maxNesting)
	}
	if err := Refused(f); err != nil {
		return nil, err
	}
	unit := indentUnit(opt, f)
	p := &printer{f: f, src: f.Src, unit: unit, nl: f.Newline(), trailing: map[int]int{}, align: opt.Align}
	for _, c := range f.Comments {
		if c.Trailing {
			p.trailing[c.Line] = c.Offset
		}
	}
	if len(p.src) >= 3 && p.src[0] == 0xEF && p.src[1] == 0xBB && p.src[2] == 0xBF {
		p.out.Write(p.src[:3]) // a byte order mark stays
		p.prevEnd, p.bom = 3, 3
	}
	p.block(f.Directives, 0, len(p.src))
	p.flushComments(len(p.src)+1, 0)
	out := bytes.TrimRight(p.out.Bytes(), " \t\r\n")
	if len(out) > 0 {
		out = append(out, p.nl...)
	}
	got, diag := parser.Parse(f.Path, out)
	if diag != nil {
		return nil, &ErrChanged{f.Path, "the result does not parse: " + diag.Message}
	}
	if err := Same(f, got); err != nil {
		return nil, &ErrChanged{f.Path, err.Error()}
	}
	return out, nil
}

// RefusedError is a file nginx would refuse to read where it stands:
// formatting it would only lay out the mistake.
type RefusedError struct{ finding.Diagnostic }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s (not formatted)", e.File, e.Line, e.Col, e.Message)
}

// Refused returns why nginx would refuse to read the file at the place
// the returned error names, nil when nothing tells: a syntax error, a
// missing ";" that glued two statements, a block given to a directive that
// takes none ("listen 80 location / {...}") or none given to one that
// needs it, by every form of the directive the directive table knows (a
// name it does not know is taken as written).
func Refused(f *parser.File) error {
	if f.Broken {
		return fmt.Errorf("%s: has a syntax error; not formatted", f.Path)
	}
	if ds := parser.FileErrors(f); len(ds) > 0 {
		return &RefusedError{ds[0]}
	}
	if d := misshapen(f.Directives); d != nil {
		msg := fmt.Sprintf("%q takes no block: nginx -t fails with 'directive \"%s\" is not terminated by \";\"'", d.Name, d.Name)
		if d.Block == nil {
			msg = fmt.Sprintf("%q opens a block: nginx -t fails with 'directive \"%s\" has no opening \"{\"'", d.Name, d.Name)
		}
		return &RefusedError{finding.Diagnostic{Rule: parser.Syntax, Severity: finding.Error, File: f.Path,
			Line: int(d.Line), Col: int(d.Col), Offset: int(d.Start), Message: msg}}
	}
	return nil
}

// misshapen returns the first statement written with a block where every
// form of it the directive table knows takes none, or the reverse.
func misshapen(dirs []*parser.Directive) *parser.Directive {
	for _, d := range dirs {
		if d.RawBody() != "" {
			continue
		}
		if rows := knowledge.Lookup(d.Name); len(rows) > 0 && !d.Glued() {
			fits := false
			for _, r := range rows {
				fits = fits || r.Args.Block == (d.Block != nil)
			}
			if !fits {
				return d
			}
		}
		if d.Block != nil && !parser.IsDataBlock(d.Name) {
			if x := misshapen(d.Block); x != nil {
				return x
			}
		}
	}
	return nil
}

// maxNesting is the deepest block fmt lays out. nginx reads 10,000 nested
// blocks and real configurations stay below 20; fmt indents each level, so
// its output is at most a constant times its input only when the depth is
// bounded (19,990 nested locations, 240 KB, would be 1.6 GB of spaces).
const maxNesting = 64

// tooDeep returns the first block nested deeper than maxNesting, at depth
// for dirs.
func tooDeep(dirs []*parser.Directive, depth int) *parser.Directive {
	for _, d := range dirs {
		if d.BlockOpen < 0 {
			continue
		}
		if depth > maxNesting {
			return d
		}
		if x := tooDeep(d.Block, depth+1); x != nil {
			return x
		}
	}
	return nil
}

type printer struct {
	f        *parser.File
	src      []byte
	unit     string // one level of indentation
	nl       string
	bom      int // the length of the byte order mark written first
	out      bytes.Buffer
	ci       int  // the next comment to write
	prevEnd  int  // the end offset of what was written last
	lineOpen bool // the last line written can take a trailing comment
	// trailing maps a line that ends in a comment after code to the
	// comment's offset. While joinLine (else 0), such a line, is written,
	// every statement that starts on it stays on it, and so does a "}"
	// that closes there: the comment keeps the code it followed (lint reads
	// "# nginxtune:disable RULE" at the end of a line as covering that line).
	trailing map[int]int
	joinLine int
	align    bool
	// pad is, with align, the width a statement's name is padded to
	// before its first argument
	pad map[*parser.Directive]int
}

func (p *printer) indent(level int) string {
	return strings.Repeat(p.unit, level)
}

// newline ends the current line.
func (p *printer) newline() {
	p.out.WriteString(p.nl)
	p.lineOpen = false
	p.joinLine = 0
}

// maxBlank is the most blank lines kept in a row: Debian's nginx.conf
// has two before its commented-out mail block.
const maxBlank = 2

// blankLines writes the empty lines the source has between the last thing
// written and off, at most maxBlank; at the start of the file too (nginx's
// mime.types and fastcgi_params begin with one).
func (p *printer) blankLines(off int) {
	if p.prevEnd < 0 || p.prevEnd >= off {
		return
	}
	n := bytes.Count(p.src[p.prevEnd:off], []byte{'\n'})
	if p.out.Len() > p.bom {
		n-- // the line of what was written last ends first
	}
	for range min(n, maxBlank) {
		p.out.WriteString(p.nl)
	}
}

// join starts writing the statement at off on a fresh line: when its line
// ends in a comment after it, the statements up to that comment stay on
// the line.
func (p *printer) join(line, off int) {
	if c, ok := p.trailing[line]; ok && c > off {
		p.joinLine = line
	}
}

// joined reports whether something of source line line goes on the line
// being written.
func (p *printer) joined(line int) bool {
	return p.lineOpen && p.joinLine != 0 && line == p.joinLine
}

// rejoin is join after text written as it was that ended at off, on
// whatever line that was.
func (p *printer) rejoin(text []byte, off int) {
	if bytes.IndexByte(text, '\n') >= 0 {
		p.joinLine = 0
		line, _ := p.f.Position(off)
		p.join(line, off-1)
	}
}

// flushComments writes the comments that start before off: one that
// trails code stays on the line written last, the others get their own
// lines at the level's indentation.
func (p *printer) flushComments(off, level int) {
	for p.ci < len(p.f.Comments) && p.f.Comments[p.ci].Offset < off {
		c := p.f.Comments[p.ci]
		p.ci++
		text := "#" + strings.TrimRight(c.Text, " \t\r")
		if c.Trailing && p.lineOpen {
			p.out.WriteString(" " + text)
			p.newline()
		} else {
			if p.lineOpen {
				p.newline()
			}
			p.blankLines(c.Offset)
			p.out.WriteString(p.indent(level) + text)
			p.newline()
		}
		p.prevEnd = c.Offset + 1 + len(c.Text)
	}
}

// skipComments passes over comments inside a stretch written verbatim.
func (p *printer) skipComments(end int) {
	for p.ci < len(p.f.Comments) && p.f.Comments[p.ci].Offset < end {
		p.ci++
	}
}

// block writes the statements of one level; end is where the level ends
// (its "}" or the end of the file).
func (p *printer) block(dirs []*parser.Directive, level, end int) {
	if p.align {
		p.columns(dirs)
	}
	for _, d := range dirs {
		p.flushComments(int(d.Start), level)
		if p.joined(int(d.Line)) {
			p.out.WriteByte(' ')
		} else {
			if p.lineOpen {
				p.newline()
			}
			p.blankLines(int(d.Start))
			p.out.WriteString(p.indent(level))
			p.join(int(d.Line), int(d.Start))
		}
		p.statement(d, level)
	}
	p.flushComments(end, level)
}

// statement writes one statement (and its block) at a level, its
// indentation already written.
func (p *printer) statement(d *parser.Directive, level int) {
	if head, ok := p.head(d, level); ok {
		p.out.WriteString(head)
		if d.BlockOpen < 0 {
			p.out.WriteString(";")
			p.lineOpen, p.prevEnd = true, int(d.End)
			return
		}
		p.out.WriteString(" {")
	} else {
		// a name written quoted, or a comment between the arguments:
		// written as it was, only its first line re-indented
		end := int(d.End)
		if d.BlockOpen >= 0 {
			end = int(d.BlockOpen) + 1
		}
		p.out.Write(p.src[d.Start:end])
		p.skipComments(end)
		p.rejoin(p.src[d.Start:end], end)
		if d.BlockOpen < 0 {
			p.lineOpen, p.prevEnd = true, int(d.End)
			return
		}
	}
	open, closeAt := int(d.BlockOpen), int(d.End)-1
	p.lineOpen, p.prevEnd = true, open+1
	if isData(d) && !p.entriesOnBraceLine(d) {
		// data laid out by hand: its lines as written, moved as a whole
		p.dataBody(d, level)
		p.skipComments(closeAt)
		p.rejoin(p.src[open+1:closeAt+1], closeAt+1)
		p.lineOpen, p.prevEnd = true, closeAt+1
		return
	}
	if len(d.Block) == 0 && !p.commentBefore(closeAt) {
		p.out.WriteString("}")
		p.lineOpen, p.prevEnd = true, closeAt+1
		return
	}
	// a comment on the "{" line stays there (block writes it before the
	// first statement on a later line)
	p.block(d.Block, level+1, closeAt)
	if p.joined(int(d.EndLine)) {
		p.out.WriteString(" }")
	} else {
		if p.lineOpen {
			p.newline()
		}
		p.out.WriteString(p.indent(level) + "}")
	}
	p.lineOpen, p.prevEnd = true, closeAt+1
}

func (p *printer) commentBefore(off int) bool {
	return p.ci < len(p.f.Comments) && p.f.Comments[p.ci].Offset < off
}

// head is the statement's name and arguments as they will be written,
// false when the statement must be written as it was.
func (p *printer) head(d *parser.Directive, level int) (string, bool) {
	end := int(d.End)
	if d.BlockOpen >= 0 {
		end = int(d.BlockOpen)
	}
	if p.commentBefore(end) && p.f.Comments[p.ci].Offset > int(d.Start) {
		return "", false
	}
	nameEnd := min(int(d.Start)+len(d.Name), len(p.src))
	if string(p.src[d.Start:nameEnd]) != d.Name || !wordEnds(p.src, nameEnd) {
		return "", false // quoted (an empty name too: '') or escaped
	}
	var b strings.Builder
	b.WriteString(d.Name)
	prevLine, prevEnd := d.Line, nameEnd
	for _, a := range d.Args {
		if a.Line != prevLine {
			// an argument on a line of its own stays on one, a level in
			b.WriteString(p.nl + p.indent(level+1))
		} else if w, ok := p.pad[d]; ok && prevEnd == nameEnd {
			b.WriteString(strings.Repeat(" ", w-utf8.RuneCountInString(d.Name)))
		} else {
			b.WriteString(gap(p.src[prevEnd:a.Offset]))
		}
		b.WriteString(a.Raw)
		prevLine = a.Line + int32(strings.Count(a.Raw, "\n"))
		prevEnd = int(a.Offset) + len(a.Raw)
	}
	return b.String(), true
}

// wordEnds reports whether an unquoted word that reaches up to off ends
// there, as nginx reads words: at white space, ";", "{" or the end.
func wordEnds(src []byte, off int) bool {
	if off >= len(src) {
		return true
	}
	switch src[off] {
	case ' ', '\t', '\r', '\n', ';', '{':
		return true
	}
	return false
}

// gap is what separates two words of a statement on one line: the spaces
// and tabs written there, which line arguments up in columns as nginx's
// own files do (fastcgi_params, the official nginx.conf), else one space.
// Words written together stay together: nginx ends a quoted word at its
// quote, so `if ($a != "")` reads ")" as a word of its own.
func gap(ws []byte) string {
	if len(ws) == 0 {
		return ""
	}
	if len(bytes.Trim(ws, " \t")) > 0 {
		return " "
	}
	return string(ws)
}

// indentUnit is one level of indentation: as opt says, else the file's
// own, else four spaces.
func indentUnit(opt Options, f *parser.File) string {
	switch {
	case opt.Tabs:
		return "\t"
	case opt.Indent > 0:
		return strings.Repeat(" ", opt.Indent)
	}
	if u := Indentation(f); u != "" {
		return u
	}
	return "    "
}

// Indentation is the step a file indents its blocks by: the white space
// most statements one level in begin their line with, when that is one
// tab or 1 to 8 spaces (the first seen wins a tie); "" when the file shows
// none.
func Indentation(f *parser.File) string {
	votes := map[string]int{}
	best := ""
	for _, top := range f.Directives {
		if top.BlockOpen < 0 || top.RawBody() != "" {
			continue
		}
		for _, d := range top.Block {
			ws := lineIndent(f.Src, int(d.Start))
			if ws == "\t" || ws != "" && len(ws) <= 8 && strings.Trim(ws, " ") == "" {
				votes[ws]++
				if best == "" || votes[ws] > votes[best] {
					best = ws
				}
			}
		}
	}
	return best
}

// lineIndent is the white space before off when off begins its line, else "".
func lineIndent(src []byte, off int) string {
	i := off
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] != '\n' {
		return ""
	}
	return string(src[i:off])
}

// Same reports how two parses of one file differ in what nginx reads:
// statement names, arguments as written, nesting, data bodies, comments.
func Same(a, b *parser.File) error {
	if err := sameLevel(a.Directives, b.Directives, "top level"); err != nil {
		return err
	}
	if len(a.Comments) != len(b.Comments) {
		return fmt.Errorf("%d comments became %d", len(a.Comments), len(b.Comments))
	}
	for i := range a.Comments {
		// trailing white space in a comment is dropped
		if strings.TrimRight(a.Comments[i].Text, " \t\r") != strings.TrimRight(b.Comments[i].Text, " \t\r") {
			return fmt.Errorf("comment %q became %q", a.Comments[i].Text, b.Comments[i].Text)
		}
	}
	return nil
}

func sameLevel(a, b []*parser.Directive, where string) error {
	if len(a) != len(b) {
		return fmt.Errorf("%s: %d statements became %d", where, len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Name != y.Name || len(x.Args) != len(y.Args) || (x.Block == nil) != (y.Block == nil) {
			return fmt.Errorf("%s: %q at line %d became %q", where, x.Name, x.Line, y.Name)
		}
		for j := range x.Args {
			if x.Args[j].Raw != y.Args[j].Raw || x.Args[j].Value != y.Args[j].Value {
				return fmt.Errorf("%s: argument %q of %s at line %d became %q", where, x.Args[j].Raw, x.Name, x.Line, y.Args[j].Raw)
			}
		}
		// a Lua body may move as a whole; the entries of other data
		// blocks are statements, compared as such below
		if x.RawBody() != y.RawBody() && luaText(x.RawBody()) != luaText(y.RawBody()) {
			return fmt.Errorf("the body of %s at line %d changed", x.Name, x.Line)
		}
		if err := sameLevel(x.Block, y.Block, x.Name+" at line "+fmt.Sprint(x.Line)); err != nil {
			return err
		}
	}
	return nil
}
