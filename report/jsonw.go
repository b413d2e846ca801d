package report

import (
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/outbuf"
)

// Streaming JSON: --format json writes each finding as it goes, with no
// whole-report value in memory and no reflection per finding. The bytes are
// those encoding/json writes for JSONReport with two-space indentation,
// through a JSONWriter (TestJSONStreamMatchesEncoding checks it on hostile
// strings).

type jw struct {
	safe *JSONWriter // what a terminal or CI log would act on, escaped
	// out is the document's text not yet passed to safe: written to
	// directly (a string quoted, a number formatted in place, not in a
	// buffer of their own copied on), and passed on in pieces of
	// outbuf.Size or more between findings (spill)
	out   []byte
	err   error
	shown shownPaths
}

// newJW starts a document on out.
func newJW(out io.Writer) *jw { return &jw{safe: NewJSONWriter(out)} }

// spill passes what is written on to safe once it holds outbuf.Size or
// more: a report of 20,000 findings is a few hundred writes, and one of a
// few findings one.
func (j *jw) spill() {
	if len(j.out) >= outbuf.Size {
		j.pass()
	}
}

// pass hands what is written to safe; after an error nothing more is
// written, and flush returns the error.
func (j *jw) pass() {
	if j.err == nil && len(j.out) > 0 {
		_, j.err = j.safe.Write(j.out)
	}
	j.out = j.out[:0]
}

// flush ends the document.
func (j *jw) flush() error {
	j.pass()
	if j.err != nil {
		return j.err
	}
	return j.safe.Flush()
}

// shownPaths remembers what a file path is written as: findings name a few
// files many times, and working it out (Meta.Path, escaping, a URI)
// allocates. Every format but GitHub's keeps one per report.
type shownPaths map[string]string

// of returns show(p), worked out once per path.
func (s *shownPaths) of(p string, show func(string) string) string {
	if v, ok := (*s)[p]; ok {
		return v
	}
	if *s == nil {
		*s = shownPaths{}
	}
	v := show(p)
	(*s)[p] = v
	return v
}

func (j *jw) raw(s string) { j.out = append(j.out, s...) }

func (j *jw) str(s string) { j.out = appendJSONString(j.out, s) }

func (j *jw) num(n int) { j.out = strconv.AppendInt(j.out, int64(n), 10) }

// field writes `"name": ` at an indentation. Names are the writers' own
// constants (letters only), written without escaping.
func (j *jw) field(indent, name string) {
	j.out = append(append(append(append(j.out, indent...), '"'), name...), `": `...)
}

const hexDigits = "0123456789abcdef"

// The ASCII bytes encoding/json escapes, as bits: the control characters,
// '"', '&', '<' and '>' (below 64), and '\\' (above). One shift and test a
// byte instead of six comparisons: every message and path of a report
// goes through here.
const (
	escapedBelow64 uint64 = 1<<0x20 - 1 | 1<<'"' | 1<<'&' | 1<<'<' | 1<<'>'
	escapedAbove64 uint64 = 1 << ('\\' - 64)
)

// asciiEscaped reports whether an ASCII byte is written escaped.
func asciiEscaped(c byte) bool {
	if c < 64 {
		return escapedBelow64>>c&1 != 0
	}
	return escapedAbove64>>(c-64)&1 != 0
}

// plainJSON is how many bytes at the start of s appendJSONString copies as
// they are: ASCII that encoding/json does not escape.
func plainJSON(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := word64(s, i)
		// a high bit; a control character (below 0x20); '"' or '&' (each
		// 0x26 with bit 0x04 set); '<' or '>' (0x3e with 0x02 set); '\\'
		if x&highBits != 0 || (x-lowBits*0x20)&^x&highBits != 0 ||
			hasZeroByte((x|lowBits*0x04)^(lowBits*0x26)) || hasZeroByte((x|lowBits*0x02)^(lowBits*0x3e)) ||
			hasZeroByte(x^(lowBits*'\\')) {
			break
		}
	}
	for ; i < len(s) && s[i] < utf8.RuneSelf && !asciiEscaped(s[i]); i++ {
	}
	return i
}

// appendJSONString quotes s as encoding/json does: HTML-safe (<, >, & as
// \u003c ...), invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += plainJSON(s[i:]); i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiEscaped(c) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// writeJSON streams the document JSON describes.
func writeJSON(out io.Writer, diags []finding.Diagnostic, m Meta) error {
	j := newJW(out)
	j.raw("{\n")
	j.field("  ", "schema")
	j.raw("1,\n")
	j.field("  ", "tool")
	j.str("nginxtune")
	j.raw(",\n")
	j.field("  ", "tool_version")
	j.str(m.ToolVersion)
	j.raw(",\n")
	j.field("  ", "nginx_version")
	j.str(m.NginxVersion)
	j.raw(",\n")
	j.field("  ", "findings")
	if len(diags) == 0 {
		j.raw("[],\n")
	} else {
		j.raw("[\n")
		for i, d := range diags {
			j.finding(d, m)
			if i < len(diags)-1 {
				j.raw(",")
			}
			j.raw("\n")
			j.spill()
		}
		j.raw("  ],\n")
	}
	c := Count(diags)
	j.field("  ", "summary")
	j.raw("{\n")
	j.field("    ", "errors")
	j.num(c[finding.Error])
	j.raw(",\n")
	j.field("    ", "warnings")
	j.num(c[finding.Warning])
	j.raw(",\n")
	j.field("    ", "infos")
	j.num(c[finding.Info])
	j.raw("\n  }\n}\n")
	return j.flush()
}

func (j *jw) finding(d finding.Diagnostic, m Meta) {
	const in = "      "
	j.raw("    {\n")
	j.field(in, "rule")
	j.str(d.Rule)
	j.raw(",\n")
	j.field(in, "severity")
	j.str(d.Severity.String())
	j.raw(",\n")
	j.field(in, "file")
	j.str(j.shown.of(d.File, m.path))
	j.raw(",\n")
	j.field(in, "line")
	j.num(d.Line)
	j.raw(",\n")
	j.field(in, "column")
	j.num(d.Col)
	j.raw(",\n")
	j.field(in, "end_line")
	j.num(d.EndLine)
	j.raw(",\n")
	j.field(in, "message")
	j.str(d.Message)
	if d.Fix != nil {
		j.raw(",\n")
		j.field(in, "fix")
		j.raw("{\n")
		j.field(in+"  ", "description")
		j.str(d.Fix.Description)
		j.raw(",\n")
		j.field(in+"  ", "edits")
		if len(d.Fix.Edits) == 0 {
			j.raw("[]")
		} else {
			j.raw("[\n")
			for i, e := range d.Fix.Edits {
				j.raw(in + "    {\n")
				j.field(in+"      ", "file")
				j.str(j.shown.of(e.File, m.path))
				j.raw(",\n")
				j.field(in+"      ", "start")
				j.num(e.Start)
				j.raw(",\n")
				j.field(in+"      ", "end")
				j.num(e.End)
				j.raw(",\n")
				j.field(in+"      ", "new")
				j.str(e.New)
				j.raw("\n" + in + "    }")
				if i < len(d.Fix.Edits)-1 {
					j.raw(",")
				}
				j.raw("\n")
			}
			j.raw(in + "  ]")
		}
		j.raw("\n" + in + "}")
	}
	if d.Via != "" {
		j.raw(",\n")
		j.field(in, "via")
		j.str(j.shown.of(d.Via, m.path))
	}
	if len(d.Related) > 0 {
		j.raw(",\n")
		j.field(in, "related")
		j.raw("[\n")
		for i, r := range d.Related {
			j.raw(in + "  {\n")
			j.field(in+"    ", "file")
			j.str(j.shown.of(r.File, m.path))
			j.raw(",\n")
			j.field(in+"    ", "line")
			j.num(r.Line)
			j.raw(",\n")
			j.field(in+"    ", "column")
			j.num(r.Col)
			j.raw(",\n")
			j.field(in+"    ", "message")
			j.str(r.Message)
			j.raw("\n" + in + "  }")
			if i < len(d.Related)-1 {
				j.raw(",")
			}
			j.raw("\n")
		}
		j.raw(in + "]")
	}
	j.raw("\n    }")
}
