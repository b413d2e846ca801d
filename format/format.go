// Package format writes nginx configuration files in one canonical layout:
// one statement per line, blocks indented by a fixed step, "{" on the
// statement's line and "}" on a line of its own, at most one blank line
// in a row and none after "{" or before "}", every comment kept where it
// was (a comment after a statement stays on its line; white space at the
// end of a line is dropped). Arguments are
// written exactly as they were (quotes and escapes byte for byte), and the
// bodies of blocks that are data rather than statements (map, geo, types,
// split_clients, charset_map, *_by_lua_block) are kept as they are.
//
// Source reformats from the parser's tree, then parses its own output
// and compares the two: a layout that would change what nginx reads is an
// error, never a write.
package format

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/parser"
)

// Options are the layout choices users differ on.
type Options struct {
	Indent int  // spaces per level (default 4, as nginx's own files)
	Tabs   bool // indent with one tab per level
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
	if f.Broken {
		return nil, fmt.Errorf("%s: has a syntax error; not formatted", f.Path)
	}
	if opt.Indent <= 0 {
		opt.Indent = 4
	}
	if d := tooDeep(f.Directives, 1); d != nil {
		return nil, fmt.Errorf("%s:%d: blocks nested more than %d deep; fmt indents every level, so its output would grow with the square of the nesting: not formatted", f.Path, d.Line, maxNesting)
	}
	p := &printer{f: f, src: f.Src, opt: opt, nl: f.Newline()}
	if len(p.src) >= 3 && p.src[0] == 0xEF && p.src[1] == 0xBB && p.src[2] == 0xBF {
		p.out.Write(p.src[:3]) // a byte order mark stays
		p.prevEnd = 3
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
	opt      Options
	nl       string
	out      bytes.Buffer
	ci       int  // the next comment to write
	prevEnd  int  // the end offset of what was written last
	lineOpen bool // the last line written can take a trailing comment
}

func (p *printer) indent(level int) string {
	if p.opt.Tabs {
		return strings.Repeat("\t", level)
	}
	return strings.Repeat(" ", level*p.opt.Indent)
}

// newline ends the current line.
func (p *printer) newline() {
	p.out.WriteString(p.nl)
	p.lineOpen = false
}

// blankBefore reports whether the source has an empty line between the
// last thing written and off.
func (p *printer) blankBefore(off int) bool {
	if p.prevEnd >= off || p.prevEnd < 0 {
		return false
	}
	gap := p.src[p.prevEnd:off]
	return bytes.Count(gap, []byte{'\n'}) >= 2
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
			if p.blankBefore(c.Offset) && p.out.Len() > 0 && !p.afterOpen() {
				p.newline()
			}
			p.out.WriteString(p.indent(level) + text)
			p.newline()
		}
		p.prevEnd = c.Offset + 1 + len(c.Text)
	}
}

// afterOpen reports whether the output ends with a block's opening line.
func (p *printer) afterOpen() bool {
	b := bytes.TrimRight(p.out.Bytes(), "\r\n")
	return len(b) > 0 && b[len(b)-1] == '{'
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
	for _, d := range dirs {
		p.flushComments(int(d.Start), level)
		if p.lineOpen {
			p.newline()
		}
		if p.blankBefore(int(d.Start)) && p.out.Len() > 0 && !p.afterOpen() {
			p.newline()
		}
		p.statement(d, level)
	}
	p.flushComments(end, level)
}

// statement writes one statement (and its block) at a level.
func (p *printer) statement(d *parser.Directive, level int) {
	head := p.head(d, level)
	if head == "" {
		// a name written quoted, or a comment between the arguments:
		// written as it was, only its first line re-indented
		end := int(d.End)
		if d.BlockOpen >= 0 {
			end = int(d.BlockOpen) + 1
		}
		p.out.WriteString(p.indent(level))
		p.out.Write(p.src[d.Start:end])
		p.skipComments(end)
		head = "verbatim"
		if d.BlockOpen < 0 {
			p.lineOpen, p.prevEnd = true, int(d.End)
			return
		}
	} else {
		p.out.WriteString(head)
	}
	if d.BlockOpen < 0 {
		p.out.WriteString(";")
		p.lineOpen, p.prevEnd = true, int(d.End)
		return
	}
	open, closeAt := int(d.BlockOpen), int(d.End)-1
	if head != "verbatim" {
		p.out.WriteString(" {")
	}
	p.lineOpen, p.prevEnd = true, open+1
	if parser.IsDataBlock(d.Name) || d.RawBody() != "" {
		// data: the body as written
		p.out.Write(p.src[open+1 : closeAt+1])
		p.skipComments(closeAt)
		p.lineOpen, p.prevEnd = true, closeAt+1
		return
	}
	if len(d.Block) == 0 && !p.commentBefore(closeAt) {
		p.out.WriteString("}")
		p.lineOpen, p.prevEnd = true, closeAt+1
		return
	}
	// a comment on the "{" line stays there
	p.flushTrailing(open)
	if p.lineOpen {
		p.newline()
	}
	p.block(d.Block, level+1, closeAt)
	if p.lineOpen {
		p.newline()
	}
	p.out.WriteString(p.indent(level) + "}")
	p.lineOpen, p.prevEnd = true, closeAt+1
}

// flushTrailing writes a comment that trails the line of off.
func (p *printer) flushTrailing(off int) {
	if p.ci < len(p.f.Comments) {
		c := p.f.Comments[p.ci]
		line, _ := p.f.Position(off)
		if c.Trailing && c.Line == line {
			p.flushComments(c.Offset+1, 0)
		}
	}
}

func (p *printer) commentBefore(off int) bool {
	return p.ci < len(p.f.Comments) && p.f.Comments[p.ci].Offset < off
}

// head is the statement's name and arguments as they will be written, or
// "" when the statement must be written as it was.
func (p *printer) head(d *parser.Directive, level int) string {
	end := int(d.End)
	if d.BlockOpen >= 0 {
		end = int(d.BlockOpen)
	}
	if p.commentBefore(end) && p.f.Comments[p.ci].Offset > int(d.Start) {
		return ""
	}
	name := string(p.src[d.Start:min(int(d.Start)+len(d.Name), len(p.src))])
	if name != d.Name {
		return "" // quoted or escaped
	}
	var b strings.Builder
	b.WriteString(p.indent(level))
	b.WriteString(d.Name)
	prevLine := d.Line
	for _, a := range d.Args {
		if a.Line != prevLine {
			// an argument on a line of its own stays on one, a level in
			b.WriteString(p.nl + p.indent(level+1))
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(a.Raw)
		prevLine = a.Line + int32(strings.Count(a.Raw, "\n"))
	}
	return b.String()
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
		if x.RawBody() != y.RawBody() {
			return fmt.Errorf("the body of %s at line %d changed", x.Name, x.Line)
		}
		if parser.IsDataBlock(x.Name) && x.Block != nil && string(x.File.Src[x.BlockOpen:x.End]) != string(y.File.Src[y.BlockOpen:y.End]) {
			return fmt.Errorf("the body of %s at line %d changed", x.Name, x.Line)
		}
		if err := sameLevel(x.Block, y.Block, x.Name+" at line "+fmt.Sprint(x.Line)); err != nil {
			return err
		}
	}
	return nil
}
