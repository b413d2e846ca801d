// Package report turns findings into text for people and formats for
// machines: gcc-style text, JSON, SARIF 2.1.0 and GitHub workflow
// annotations. It reads no configuration; paths arrive as the caller wants
// them shown.
package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/nginxtune/nginxtune/finding"
)

// Meta describes the run, for the formats that carry it.
type Meta struct {
	ToolVersion  string
	NginxVersion string
	// Rules describes every rule, for SARIF's rule metadata.
	Rules []Rule
	// Path shows a file path (relative to the working directory).
	Path func(string) string
}

// Rule is what SARIF says of a rule.
type Rule struct {
	ID, Title, Why, Fix string
	Markdown            string // the rule's documentation, as docs/rules.md shows it
	Severity            finding.Severity
	Category            string // "security", "performance", ...
}

func (m Meta) path(p string) string {
	if m.Path == nil {
		return p
	}
	return m.Path(p)
}

// Formats lists the output formats by name.
var Formats = []string{"text", "json", "sarif", "github"}

// Write renders diags in the named format.
func Write(w io.Writer, format string, diags []finding.Diagnostic, m Meta, color bool) error {
	switch format {
	case "text":
		return Text(w, diags, m, color)
	case "json":
		return JSON(w, diags, m)
	case "sarif":
		return SARIF(w, diags, m)
	case "github":
		return GitHub(w, diags, m)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiDim    = "\x1b[2m"
)

// Text writes "file:line:col: severity: message [rule]" lines and a summary.
func Text(w io.Writer, diags []finding.Diagnostic, m Meta, color bool) error {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	var shown shownPaths
	escaped := func(p string) string { return Escape(m.path(p)) }
	for _, d := range diags {
		path := shown.of(d.File, escaped)
		sev := d.Severity.String()
		switch d.Severity {
		case finding.Error:
			sev = paint(ansiRed+ansiBold, sev)
		case finding.Warning:
			sev = paint(ansiYellow+ansiBold, sev)
		default:
			sev = paint(ansiCyan, sev)
		}
		fix := ""
		if d.Fix != nil {
			fix = paint(ansiDim, " (fixable)")
		}
		if _, err := fmt.Fprintf(w, "%s: %s: %s %s%s\n",
			paint(ansiBold, fmt.Sprintf("%s:%d:%d", path, d.Line, d.Col)), sev, Escape(d.Message),
			paint(ansiDim, "["+d.Rule+"]"), fix); err != nil {
			return err
		}
	}
	if len(diags) > 0 {
		c := Count(diags)
		_, err := fmt.Fprintf(w, "%d finding%s: %d error%s, %d warning%s, %d info\n", len(diags), plural(len(diags)),
			c[finding.Error], plural(c[finding.Error]), c[finding.Warning], plural(c[finding.Warning]), c[finding.Info])
		return err
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Count tallies findings by severity.
func Count(diags []finding.Diagnostic) map[finding.Severity]int {
	c := map[finding.Severity]int{}
	for _, d := range diags {
		c[d.Severity]++
	}
	return c
}

// JSONReport is the document --format json prints. Its shape is stable:
// fields are added, never renamed or removed, within a schema version.
type JSONReport struct {
	Schema       int           `json:"schema"`
	Tool         string        `json:"tool"`
	ToolVersion  string        `json:"tool_version"`
	NginxVersion string        `json:"nginx_version"`
	Findings     []JSONFinding `json:"findings"`
	Summary      JSONSummary   `json:"summary"`
}

// JSONFinding is one finding.
type JSONFinding struct {
	Rule     string   `json:"rule"`
	Severity string   `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	EndLine  int      `json:"end_line"`
	Message  string   `json:"message"`
	Fix      *JSONFix `json:"fix,omitempty"`
	// Via is the link path the configuration reads File through.
	Via string `json:"via,omitempty"`
	// Related are other places the message speaks of.
	Related []JSONRelated `json:"related,omitempty"`
}

// JSONFix is a finding's fix: byte ranges of files and what replaces them.
type JSONFix struct {
	Description string     `json:"description"`
	Edits       []JSONEdit `json:"edits"`
}

// JSONEdit replaces bytes Start to End of File with New.
type JSONEdit struct {
	File  string `json:"file"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	New   string `json:"new"`
}

// JSONRelated is another place a finding speaks of.
type JSONRelated struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"column"`
	Message string `json:"message"`
}

// JSONSummary counts findings by severity.
type JSONSummary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// JSON writes the findings as a JSONReport, streamed (jsonw.go).
func JSON(w io.Writer, diags []finding.Diagnostic, m Meta) error { return writeJSON(w, diags, m) }

// GitHub writes workflow commands that GitHub Actions shows as annotations
// on the changed lines.
func GitHub(w io.Writer, diags []finding.Diagnostic, m Meta) error {
	for _, d := range diags {
		level := "notice"
		switch d.Severity {
		case finding.Error:
			level = "error"
		case finding.Warning:
			level = "warning"
		}
		if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level,
			ghProperty(m.path(d.File)), d.Line, d.Col, ghProperty("nginxtune "+d.Rule), ghData(d.Message)); err != nil {
			return err
		}
	}
	return nil
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return Escape(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return Escape(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}

// EscapeLines escapes each line of a text (a diff of a configuration's
// files) and keeps its line breaks: the text's bytes must not reach the
// terminal raw.
func EscapeLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		lines[i] = Escape(body)
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}

// Escape writes control characters (and invalid UTF-8) as \xNN, so that a
// configuration's bytes quoted in a message or a path cannot move the
// cursor, recolour a terminal or forge a line of output. Characters that
// reorder or break text without being control characters (the bidirectional
// overrides and isolates, U+2028 and U+2029) are written as \u{NNNN}: a
// file name must not make a terminal or a review show text other than
// what it is.
func Escape(s string) string {
	// printable ASCII, what nearly every message and path is, needs no
	// look at runes: a byte loop decides it
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	clean := true
	for _, r := range s {
		// RuneError: invalid UTF-8, or a U+FFFD written out (kept below)
		if control(r) || r == utf8.RuneError || reorders(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case control(r) || r == utf8.RuneError && n == 1:
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		case reorders(r):
			fmt.Fprintf(&b, `\u{%04X}`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// control reports the C0 and C1 control characters and DEL.
func control(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }

// reorders reports the characters that reorder or break text without being
// control characters.
func reorders(r rune) bool {
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
