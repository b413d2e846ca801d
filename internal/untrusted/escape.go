// Package untrusted is the one definition of how text that nginxtune does
// not control (a configuration's bytes, file names, arguments, facts read
// from a host) is shortened and neutralised before any output shows it: a
// terminal, a CI log, an editor. Every printer and every message that
// quotes such text goes through it.
package untrusted

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How every output neutralises untrusted text (a configuration's bytes,
// file names, arguments): the one definition, used by text (Escape), diffs
// (EscapeLines) and JSON (report.JSONWriter, with Control and Reorders).
//
//   - Control characters and invalid UTF-8 cannot move the cursor,
//     recolour a terminal or end a line: \xNN in text, \uNNNN in JSON.
//   - Characters that reorder or break text without being control
//     characters (bidirectional marks, overrides, isolates, U+2028,
//     U+2029) cannot make a terminal or a review show text other than what
//     it is: \u{NNNN} in text, \uNNNN in JSON.
//   - Nothing starts a GitHub Actions workflow command. The runner reads a
//     line whose start, after blanks, is "::" as a command, and "##[" as a
//     legacy one anywhere in a line: the second "#" of "##[" is written as
//     \x23 (\u0023 in JSON), the first ":" of a line's leading "::" as
//     \x3a. JSON needs only the first: its lines start with structure.

// Escape neutralises s for one line of output, a message or a path quoted
// in it: control characters (tab and line breaks too) and invalid UTF-8 as
// \xNN, the characters that reorder or break text as \u{NNNN}, and the
// workflow commands above, for s may begin a line. The result has none of
// these, so escaping it again changes nothing.
func Escape(s string) string { return escape(s, false) }

// EscapeLines is Escape for a text of many lines (a diff of a
// configuration's files): its line breaks and tabs stay, and a carriage
// return before a line break, so that the diff is still a patch (git apply
// and patch take it). A carriage return elsewhere is escaped: it would
// overwrite the line on a terminal and start a new one for the runner.
func EscapeLines(s string) string { return escape(s, true) }

// escape is Escape, or with lines EscapeLines. It allocates only when
// something changes.
func escape(s string, lines bool) string {
	var b strings.Builder
	changed := false
	done := 0                  // s[:done] is written to b
	colon := command(s, lines) // a line's leading "::", or -1
	for i := 0; i < len(s); {
		var rep string
		n := 1
		if c := s[i]; c < utf8.RuneSelf {
			switch {
			case i == colon:
				rep = `\x3a`
			case lines && c == '\n':
				if next := command(s[i+1:], lines); next >= 0 {
					colon = i + 1 + next
				}
				i++
				continue
			case lines && (c == '\t' || c == '\r' && i+1 < len(s) && s[i+1] == '\n'):
				i++
				continue
			case c < 0x20 || c == 0x7f:
				rep = hexByte(c)
			case c == '#' && strings.HasPrefix(s[i:], "##["):
				rep, n = `#\x23`, 2
			default:
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			n = size
			switch {
			case Control(r) || r == utf8.RuneError && size == 1: // RuneError: invalid UTF-8 (a U+FFFD written out is kept)
				rep = ""
				for _, c := range []byte(s[i : i+size]) {
					rep += hexByte(c)
				}
			case Reorders(r):
				rep = fmt.Sprintf(`\u{%04X}`, r)
			default:
				i += size
				continue
			}
		}
		if !changed {
			changed = true
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[done:i])
		b.WriteString(rep)
		i += n
		done = i
	}
	if !changed {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

const hexDigits = "0123456789abcdef"

func hexByte(c byte) string { return `\x` + string(hexDigits[c>>4]) + string(hexDigits[c&0xF]) }

// command returns where the "::" of a workflow command starts in the line
// s begins, after the blanks the runner trims (char.IsWhiteSpace, as
// unicode.IsSpace) that escape writes as they are (a tab only in lines),
// or -1. A byte order mark counts as one: the runner's reader drops it at
// the start of a stream.
func command(s string, lines bool) int {
	j := 0
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if !(r == ' ' || lines && r == '\t' || r == '\ufeff' || r > 0x7f && unicode.IsSpace(r) && !Control(r) && !Reorders(r)) {
			break
		}
		j += n
	}
	if strings.HasPrefix(s[j:], "::") {
		return j
	}
	return -1
}

// Control reports the C0 and C1 control characters and DEL.
func Control(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }

// Reorders reports the characters that reorder or break text without being
// control characters.
func Reorders(r rune) bool {
	switch {
	case r == 0x061c || r == 0x200e || r == 0x200f: // bidirectional marks
		return true
	case r >= 0x202a && r <= 0x202e: // embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // isolates
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}
