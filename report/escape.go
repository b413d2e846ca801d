package report

import (
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/nginxtune/nginxtune/internal/untrusted"
)

// JSONWriter passes JSON text on to an io.Writer with what Escape
// (internal/untrusted) neutralises and encoding/json leaves raw written as JSON escapes: C1
// control characters and DEL, the characters that reorder or break text
// (\u202e), and "##[" (as #\u0023[). A JSON reader gets the same strings;
// a terminal or CI log showing the JSON shows nothing it would act on.
// Outside strings JSON text is ASCII without "#", so the bytes rewritten
// are always inside a string. Write holds back an incomplete character or
// a trailing "#" until the next write; Flush writes what is held.
type JSONWriter struct {
	w       io.Writer
	pending []byte
	buf     []byte
}

// NewJSONWriter returns a JSONWriter on w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write writes p, escaped, to the underlying writer.
func (j *JSONWriter) Write(p []byte) (int, error) {
	if len(j.pending) == 0 && plainSafe(p) == len(p) {
		// nothing to escape or hold back (most of a report): passed on
		// as it is, not copied
		if _, err := j.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	in := p
	if len(j.pending) > 0 {
		j.pending = append(j.pending, p...)
		in = j.pending
	}
	cut := len(in) - unfinished(in)
	j.buf = appendJSONSafe(j.buf[:0], in[:cut])
	j.pending = append(j.pending[:0], in[cut:]...)
	if _, err := j.w.Write(j.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what Write held back (an incomplete character as \ufffd).
func (j *JSONWriter) Flush() error {
	if len(j.pending) == 0 {
		return nil
	}
	j.buf = appendJSONSafe(j.buf[:0], j.pending)
	j.pending = j.pending[:0]
	_, err := j.w.Write(j.buf)
	return err
}

// unfinished is how many bytes at the end of p the next write may change
// the escaping of: an incomplete UTF-8 sequence, or "#" and "##" (of
// "##[").
func unfinished(p []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(p); k++ {
		if c := p[len(p)-k]; utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && !utf8.FullRune(p[len(p)-k:]) {
				return k
			}
			break
		}
	}
	n := 0
	for n < 2 && n < len(p) && p[len(p)-1-n] == '#' {
		n++
	}
	return n
}

// appendJSONSafe appends JSON text p with the escapes JSONWriter adds.
func appendJSONSafe(b, p []byte) []byte {
	done := 0
	for i := 0; i < len(p); {
		if i += plainSafe(p[i:]); i == len(p) {
			break
		}
		c := p[i]
		var r rune
		n := 1
		switch {
		case c == '#':
			if i+2 >= len(p) || p[i+1] != '#' || p[i+2] != '[' {
				i++
				continue
			}
			b = append(b, p[done:i]...)
			b = append(b, `#\u0023`...)
			i += 2
			done = i
			continue
		case c == 0x7f:
			r = 0x7f
		case c < utf8.RuneSelf:
			i++
			continue
		default:
			r, n = utf8.DecodeRune(p[i:])
			if !(untrusted.Control(r) || untrusted.Reorders(r) || r == utf8.RuneError && n == 1) {
				i += n
				continue
			}
		}
		b = append(b, p[done:i]...)
		b = append(b, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
		i += n
		done = i
	}
	return append(b, p[done:]...)
}

// Eight bytes at a time (SWAR): a report is mostly ASCII that neither
// JSONWriter nor appendJSONString changes, and a byte-by-byte test of each
// was most of what writing a 30 MB SARIF report cost.
const (
	lowBits  uint64 = 0x0101010101010101
	highBits uint64 = 0x8080808080808080
)

// word64 reads 8 bytes of s from i, little-endian (one load).
func word64[S string | []byte](s S, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// hasZeroByte reports whether a byte of x is 0 (exact as to whether, not
// which: "Bit Twiddling Hacks").
func hasZeroByte(x uint64) bool { return (x-lowBits)&^x&highBits != 0 }

// plainSafe is how many bytes at the start of p appendJSONSafe keeps as
// they are without a closer look: ASCII but "#" and DEL.
func plainSafe(p []byte) int {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		x := word64(p, i)
		// a high bit, or DEL (0x7f + 1 sets one where x has none), or "#"
		if (x|(x+lowBits))&highBits != 0 || hasZeroByte(x^(lowBits*'#')) {
			break
		}
	}
	for ; i < len(p) && p[i] < 0x7f && p[i] != '#'; i++ {
	}
	return i
}

// EncodeJSON writes v as encoding/json does with two-space indentation,
// through a JSONWriter.
func EncodeJSON(w io.Writer, v any) error {
	safe := NewJSONWriter(w)
	enc := json.NewEncoder(safe)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return safe.Flush()
}
