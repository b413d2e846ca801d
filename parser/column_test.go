package parser

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// columnOf counts eight ASCII bytes at a time: the same count as one
// byte at a time, for every length and every place of a multi-byte
// character (and of a stray continuation byte) in the word.
func TestColumnOfCountsCharacters(t *testing.T) {
	for n := 0; n <= 24; n++ {
		for at := 0; at <= n; at++ {
			for _, mb := range []string{"é", "€", "😀", "\x80", "\xff"} {
				b := []byte(strings.Repeat("a", at) + mb + strings.Repeat("b", n-at))
				want := 0
				for _, c := range b {
					if c&0xC0 != 0x80 {
						want++
					}
				}
				if got := columnOf(b); got != want {
					t.Fatalf("columnOf(%q) = %d, want %d", b, got, want)
				}
				if utf8.Valid(b) && want != utf8.RuneCount(b) {
					t.Fatalf("%q: %d columns, %d characters", b, want, utf8.RuneCount(b))
				}
			}
		}
	}
}

// unescape returns a value without an escape as it is (a regular
// expression's "\." allocates nothing) and otherwise what applying the
// escapes byte by byte gives: every string of up to five bytes over the
// characters that matter.
func TestUnescapeMatchesByteByByte(t *testing.T) {
	ref := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) {
				if r, ok := map[byte]byte{'"': '"', '\'': '\'', '\\': '\\', 't': '\t', 'r': '\r', 'n': '\n'}[s[i+1]]; ok {
					b.WriteByte(r)
					i++
					continue
				}
			}
			b.WriteByte(s[i])
		}
		return b.String()
	}
	const alphabet = "\\\"'trn.a"
	var gen func(prefix string)
	gen = func(prefix string) {
		if got, want := unescape(prefix), ref(prefix); got != want {
			t.Fatalf("unescape(%q) = %q, want %q", prefix, got, want)
		}
		if len(prefix) == 5 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			gen(prefix + alphabet[i:i+1])
		}
	}
	gen("")
	if n := testing.AllocsPerRun(10, func() { unescape(`^/a\.(css|js)\d+$`) }); n != 0 {
		t.Errorf("a regular expression's value: %.0f allocations, want none", n)
	}
}
