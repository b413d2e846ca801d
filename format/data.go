package format

import (
	"bytes"
	"sort"
	"strings"

	"github.com/nginxtune/nginxtune/parser"
)

// isData reports whether a block's body is data rather than statements:
// the entries of map, geo, types, split_clients and charset_map, or
// another language (*_by_lua_block).
func isData(d *parser.Directive) bool {
	return parser.IsDataBlock(d.Name) || d.RawBody() != ""
}

func isLua(d *parser.Directive) bool {
	return d.RawBody() != "" || strings.HasSuffix(d.Name, "_by_lua_block")
}

// entriesOnBraceLine reports whether a block of entries (not Lua) is
// laid out as other blocks are: it holds nothing, or its first entry is
// written on its "{" line (map $a $b { default 0; }), so that no layout
// of its own is there to keep.
func (p *printer) entriesOnBraceLine(d *parser.Directive) bool {
	if isLua(d) {
		return false
	}
	if len(d.Block) == 0 {
		return !p.commentBefore(int(d.End) - 1)
	}
	line, _ := p.f.Position(int(d.BlockOpen))
	return int(d.Block[0].Line) == line
}

// dataBody writes the body of a data block after its "{" as written, its
// lines moved as a whole: every line by the same step, so that the body
// sits one level inside the block's statement and its "}" lines up with
// it, the indentation of its lines relative to each other kept. A line
// that begins inside a word (a quoted string, or a Lua string or long
// comment, over several lines) is the word's text and is written as it
// is; white space at the end of a line is dropped unless a word goes on
// past it. A body on its "{" line is written as it is.
func (p *printer) dataBody(d *parser.Directive, level int) {
	src := p.src
	open, closeAt := int(d.BlockOpen), int(d.End)-1
	first := bytes.IndexByte(src[open+1:closeAt], '\n')
	if first < 0 {
		p.out.Write(src[open+1 : closeAt+1])
		return
	}
	words := p.multiLineWords(d)
	if isLua(d) && luaUnsure(src, words) {
		p.out.Write(src[open+1 : closeAt+1])
		return
	}
	inside := func(nl int) bool { return inWord(words, nl) }
	comment := "#"
	if isLua(d) {
		comment = "--"
	}
	// the lines after the "{" line, each [start, its '\n'); the last ends at "}"
	type span struct{ start, end int }
	var lines []span
	for at := open + 1 + first; at < closeAt; {
		next := bytes.IndexByte(src[at+1:closeAt], '\n')
		if next < 0 {
			lines = append(lines, span{at + 1, closeAt})
			break
		}
		lines = append(lines, span{at + 1, at + 1 + next})
		at += 1 + next
	}
	last := lines[len(lines)-1]
	closeAlone := !inside(last.start-1) && len(bytes.Trim(src[last.start:closeAt], " \t\r")) == 0
	// the indentation the body's lines share, comments aside (a line
	// commented out at the start of its line is common), unless there is
	// nothing else
	common, have := "", false
	for pass := 0; pass < 2 && !have; pass++ {
		for i, l := range lines {
			if inside(l.start-1) || i == len(lines)-1 && closeAlone {
				continue
			}
			text := strings.TrimLeft(string(src[l.start:l.end]), " \t")
			if strings.TrimRight(text, " \t\r") == "" || pass == 0 && strings.HasPrefix(text, comment) {
				continue
			}
			ws := string(src[l.start : l.end-len(text)])
			if !have {
				common, have = ws, true
			} else {
				common = common[:sharedPrefix(common, ws)]
			}
		}
	}
	step := p.indent(level + 1)
	p.dataLine(open+1, open+1+first, "", "", inside, true)
	for i, l := range lines {
		switch {
		case i < len(lines)-1:
			p.dataLine(l.start, l.end, common, step, inside, false)
		case closeAlone:
			p.out.WriteString(p.indent(level) + "}")
		default:
			p.dataLine(l.start, l.end, common, step, inside, false)
			p.out.WriteByte('}')
		}
	}
}

// dataLine writes the line src[start:end] of a data body and, when end
// is not the "}", its line ending: its indentation common replaced by
// step (a line indented less than common gets step), unless the line
// begins inside a word or keep; white space at its end dropped unless a
// word goes on past it.
func (p *printer) dataLine(start, end int, common, step string, inside func(int) bool, keep bool) {
	text := p.src[start:end]
	ending := ""
	if end < len(p.src) && p.src[end] == '\n' {
		ending = "\n"
		if !inside(end) {
			if bytes.HasSuffix(text, []byte{'\r'}) {
				text, ending = text[:len(text)-1], "\r\n"
			}
			text = bytes.TrimRight(text, " \t")
		}
	}
	if !keep && !inside(start-1) && len(text) > 0 {
		body := bytes.TrimLeft(text, " \t")
		ws := string(text[:len(text)-len(body)])
		p.out.WriteString(step + ws[sharedPrefix(ws, common):])
		text = body
	}
	p.out.Write(text)
	p.out.WriteString(ending)
}

// luaUnsure reports whether Lua may read a body's lines otherwise than
// parser.LuaMultiLine marks them: a quoted string that it ends at a line
// break without its closing quote. Lua goes on past such a break after a
// "\z" escape or a "\" before CRLF, so the scan's view of the lines after
// it (which are code, which are a long string's text) can be wrong, and a
// line of a long string moved; such a body is written as it is.
func luaUnsure(src []byte, words [][2]int) bool {
	for _, w := range words {
		if c := src[w[0]]; (c == '"' || c == '\'') && src[w[1]-1] == '\n' {
			return true
		}
	}
	return false
}

// inWord reports whether the newline at nl is part of one of words
// ([start, end) offsets, in order).
func inWord(words [][2]int, nl int) bool {
	i := sort.Search(len(words), func(i int) bool { return words[i][0] >= nl })
	return i > 0 && nl < words[i-1][1]
}

// sharedPrefix is the length of the longest common prefix of a and b.
func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// multiLineWords are the words of a data block that run over more than
// one line, as [start, end) offsets in the file, in order.
func (p *printer) multiLineWords(d *parser.Directive) [][2]int {
	if isLua(d) {
		base := int(d.BlockOpen) + 1
		words := parser.LuaMultiLine(d.RawBody())
		for i := range words {
			words[i][0] += base
			words[i][1] += base
		}
		return words
	}
	var words [][2]int
	for _, e := range d.Block {
		if c := p.src[e.Start]; c == '"' || c == '\'' {
			// a quoted name, up to the next word
			end := int(e.End) - 1
			if len(e.Args) > 0 {
				end = int(e.Args[0].Offset)
			}
			words = append(words, [2]int{int(e.Start), end})
		}
		for _, a := range e.Args {
			if strings.IndexByte(a.Raw, '\n') >= 0 {
				words = append(words, [2]int{int(a.Offset), int(a.Offset) + len(a.Raw)})
			}
		}
	}
	return words
}

// luaText is what Lua reads of a body: its lines without the white space
// at their start and end, but for the text of strings and long comments
// that run over several lines.
func luaText(body string) string {
	words := parser.LuaMultiLine(body)
	inside := func(nl int) bool { return inWord(words, nl) }
	var b strings.Builder
	start := 0
	for start <= len(body) {
		end := strings.IndexByte(body[start:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += start
		}
		line := body[start:end]
		if start == 0 || !inside(start-1) {
			line = strings.TrimLeft(line, " \t")
		}
		if end == len(body) || !inside(end) {
			line = strings.TrimRight(line, " \t\r")
		}
		b.WriteString(line)
		b.WriteByte('\n')
		start = end + 1
	}
	return b.String()
}
