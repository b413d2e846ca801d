package untrusted

import "unicode/utf8"

// CutAt shortens s to at most n bytes on a character boundary, marking the
// cut with "...".
func CutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// clipLen bounds what a message quotes of the configuration: a config is
// untrusted input, and a message is not the place to copy it out.
const clipLen = 64

// Clip shortens text quoted from the configuration to clipLen bytes, for
// every message that quotes it.
func Clip(s string) string { return CutAt(s, clipLen) }
