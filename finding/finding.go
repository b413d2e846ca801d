// Package finding holds what a check reports: a finding's severity, place,
// message, related places and fix. It is a leaf: the parser (for what
// loading finds), the rules and the output formats all use it, and it
// imports nothing of nginxtune.
package finding

import (
	"fmt"
	"strings"
)

// Severity of a finding. Greater is more severe.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "info"
}

// MarshalText lets severities appear as words in JSON and YAML.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "error":
		return Error, nil
	case "warning", "warn":
		return Warning, nil
	case "info", "note":
		return Info, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// Edit replaces the bytes Start to End of File with New.
type Edit struct {
	File  string
	Start int
	End   int
	New   string
}

// Fix is a set of edits that resolves a finding.
type Fix struct {
	Description string
	Edits       []Edit
	// Key names what the fix creates (such as an upstream block); of fixes
	// with the same key only the first is applied in one pass, so two
	// findings never create the same block twice.
	Key string
}

// Related is another place a finding's message speaks of.
type Related struct {
	File    string
	Line    int
	Col     int
	Message string
}

// Diagnostic is one finding.
type Diagnostic struct {
	Rule     string
	Severity Severity
	File     string
	Line     int
	Col      int
	EndLine  int
	Offset   int
	Message  string
	Fix      *Fix
	// Via is the path the configuration names the file by, when that is a
	// link to File (sites-enabled/x -> ../sites-available/x).
	Via string
	// Related are other places the message speaks of.
	Related []Related
}
