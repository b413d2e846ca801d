// Package lazyre holds regular expressions that are compiled when first
// used. Compiling at package initialisation costs every run of the program
// (lint and the pre-commit hook too) tens of microseconds a pattern, whether
// or not the command that needs it runs.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern on its first call and
// returns the same expression on every call. A pattern that does not
// compile panics there, as regexp.MustCompile does: patterns are constants
// of the program, and the package's tests call every one of them.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
