// Package report holds every printer of nginxtune: findings as gcc-style
// text, JSON, SARIF 2.1.0 and GitHub workflow annotations, route's answers
// as text and JSON, a loaded tree as JSON and as crossplane's payload, and
// the files gen makes. It reads no configuration; paths arrive as the caller
// wants them shown, and every byte a configuration contributes is escaped
// (internal/untrusted).
package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/rules/engine"
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
	Category            engine.Category
}

func (m Meta) path(p string) string {
	if m.Path == nil {
		return p
	}
	return m.Path(p)
}

// formats are the output formats by name.
var formats = []string{"text", "json", "sarif", "github"}

// Formats lists the output formats by name.
func Formats() []string { return slices.Clone(formats) }

// IsFormat reports whether Write knows the named format.
func IsFormat(name string) bool { return slices.Contains(formats, name) }

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
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(formats, ", "))
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
	var shown shownPaths
	escaped := func(p string) string { return untrusted.Escape(m.path(p)) }
	// each line appended in one buffer and written whole (fmt formatted
	// the place and then the line, a tenth of a large report's writing)
	var line []byte
	paint := func(code, s string) {
		if color {
			line = append(line, code...)
		}
		line = append(line, s...)
		if color {
			line = append(line, ansiReset...)
		}
	}
	for _, d := range diags {
		line = line[:0]
		if color {
			line = append(line, ansiBold...)
		}
		line = append(line, shown.of(d.File, escaped)...)
		line = append(line, ':')
		line = strconv.AppendInt(line, int64(d.Line), 10)
		line = append(line, ':')
		line = strconv.AppendInt(line, int64(d.Col), 10)
		if color {
			line = append(line, ansiReset...)
		}
		line = append(line, ": "...)
		sev := d.Severity.String()
		switch d.Severity {
		case finding.Error:
			paint(ansiRed+ansiBold, sev)
		case finding.Warning:
			paint(ansiYellow+ansiBold, sev)
		default:
			paint(ansiCyan, sev)
		}
		line = append(line, ": "...)
		line = append(line, untrusted.Escape(d.Message)...)
		line = append(line, ' ')
		if color {
			line = append(line, ansiDim...)
		}
		line = append(append(append(line, '['), d.Rule...), ']')
		if color {
			line = append(line, ansiReset...)
		}
		if d.Fix != nil {
			paint(ansiDim, " (fixable)")
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
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

// Summary is the line a lint says after its report (on standard error,
// so no output format changes): how many files and directives it read, how
// many findings it made, and the nginx it judged for (rules.Assumed).
func Summary(files, directives, findings int, nginx string) string {
	found := "no findings"
	if findings > 0 {
		found = fmt.Sprintf("%d finding%s", findings, plural(findings))
	}
	return fmt.Sprintf("nginxtune: %d file%s, %d directive%s, %s (%s)", files, plural(files), directives, plural(directives), found, nginx)
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

// JSON writes the findings as the document --format json prints, streamed
// (jsonw.go): schema, tool, tool_version, nginx_version, findings (rule,
// severity, file, line, column, end_line, message, fix {description, edits
// [{file, start, end, new}]}, via, related [{file, line, column,
// message}]) and summary {errors, warnings, infos}, described in
// docs/lint-output.schema.json. Its shape is stable: fields are added,
// never renamed or removed, within a schema version.
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
	return untrusted.Escape(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return untrusted.Escape(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}
