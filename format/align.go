package format

import (
	"bytes"
	"sort"
	"unicode/utf8"

	"github.com/nginxtune/nginxtune/parser"
)

// columns works out, for Options.Align, the statements of one level whose
// first argument goes in a column: each run of consecutive statements that
// are one line each, alone on their line, without a block or a comment
// inside, pads its names to the longest name and one space. A blank line,
// a comment on a line of its own, a block or a statement over several
// lines ends a run; the arguments after the first keep the spaces between
// them as written.
func (p *printer) columns(dirs []*parser.Directive) {
	var run []*parser.Directive
	flush := func() {
		if len(run) > 1 {
			w := 0
			for _, d := range run {
				w = max(w, utf8.RuneCountInString(d.Name))
			}
			if p.pad == nil {
				p.pad = map[*parser.Directive]int{}
			}
			for _, d := range run {
				p.pad[d] = w + 1
			}
		}
		run = run[:0]
	}
	for _, d := range dirs {
		if !p.alignable(d) {
			flush()
			continue
		}
		if len(run) > 0 && p.apart(run[len(run)-1], d) {
			flush()
		}
		run = append(run, d)
	}
	flush()
}

// maxColumn is the longest name a column is padded to (nginx's longest
// directive names have 31 characters). A longer name (a map's regular
// expression laid out as a statement) stays out of the column: padding
// every short statement of a run to one long name made the output grow
// with their product (a 4,000-byte name and 20,000 statements of 5 bytes:
// 104 KB in, 80 MB out), where it stays a constant times the input.
const maxColumn = 40

// alignable reports whether a statement can take part in a column: a
// simple statement with an argument, all on one line, its name written
// plain and no longer than maxColumn, no comment inside, and a line of its
// own once formatted.
func (p *printer) alignable(d *parser.Directive) bool {
	if d.BlockOpen >= 0 || len(d.Args) == 0 || d.EndLine != d.Line || d.Args[0].Line != d.Line || utf8.RuneCountInString(d.Name) > maxColumn {
		return false
	}
	if c, ok := p.trailing[int(d.Line)]; ok {
		// a comment after code keeps the statements of its line together
		before := bytes.TrimRight(p.src[:d.Start], " \t")
		if len(before) > 0 && before[len(before)-1] != '\n' || len(bytes.Trim(p.src[d.End:c], " \t")) > 0 {
			return false
		}
	}
	nameEnd := int(d.Start) + len(d.Name)
	if nameEnd > len(p.src) || string(p.src[d.Start:nameEnd]) != d.Name {
		return false
	}
	c := p.commentAt(int(d.Start))
	return c == len(p.f.Comments) || p.f.Comments[c].Offset >= int(d.End)
}

// apart reports whether a blank line or a comment on a line of its own
// stands between two statements.
func (p *printer) apart(a, b *parser.Directive) bool {
	if bytes.Count(p.src[a.End:b.Start], []byte{'\n'}) > 1 {
		return true
	}
	for c := p.commentAt(int(a.End)); c < len(p.f.Comments) && p.f.Comments[c].Offset < int(b.Start); c++ {
		if !p.f.Comments[c].Trailing {
			return true
		}
	}
	return false
}

// commentAt is the index of the first comment at or after off.
func (p *printer) commentAt(off int) int {
	cs := p.f.Comments
	return sort.Search(len(cs), func(i int) bool { return cs[i].Offset >= off })
}
