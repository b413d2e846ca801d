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
