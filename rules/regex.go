package rules

// Helpers of several rules for reading PCRE patterns.

// regexSyntax calls fn with the index of every character of a PCRE pattern
// that is syntax: outside escapes ("\\.") and character classes ("[^/]",
// "[]a]"). Escapes and classes are skipped whole.
func regexSyntax(re string, fn func(i int)) {
	for i := 0; i < len(re); i++ {
		switch re[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(re) && re[j] == '^' {
				j++
			}
			if j < len(re) && re[j] == ']' {
				j++ // a literal "]" first in the class
			}
			for j < len(re) && re[j] != ']' {
				if re[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		default:
			fn(i)
		}
	}
}
