package rules

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/parser"
)

// A suppression is read from a comment in the configuration:
//
//	# nginxtune:disable RULE[,RULE] -- reason
//
// On a line of its own it covers the next statement, and for a block the
// whole block; at the end of a line it covers that line.
//
//	# nginxtune:disable-file RULE[,RULE] -- reason
//
// covers the whole file. A suppression that covers no finding is reported as
// unused-suppression, so stale ones do not pile up.
type suppression struct {
	file       *parser.File
	comment    parser.Comment
	rules      []string
	start, end int // byte range covered; line is used for trailing comments
	line       int
	whole      bool
	used       map[string]bool
}

const (
	disableTag     = "nginxtune:disable"
	disableFileTag = "nginxtune:disable-file"
)

func parseSuppressions(f *parser.File) []*suppression {
	var out []*suppression
	for _, c := range f.Comments {
		text := strings.TrimSpace(c.Text)
		var whole bool
		var rest string
		switch {
		case strings.HasPrefix(text, disableFileTag+" "):
			whole, rest = true, text[len(disableFileTag):]
		case strings.HasPrefix(text, disableTag+" "):
			rest = text[len(disableTag):]
		default:
			continue
		}
		if i := strings.Index(rest, "--"); i >= 0 {
			rest = rest[:i]
		}
		s := &suppression{file: f, comment: c, whole: whole, used: map[string]bool{}, start: -1, end: -1}
		for _, id := range strings.Split(rest, ",") {
			if id = strings.TrimSpace(id); id != "" {
				s.rules = append(s.rules, id)
			}
		}
		switch {
		case whole:
		case c.Trailing:
			s.line = c.Line
		default:
			if d := nextDirective(f.Directives, c.Offset); d != nil {
				s.start, s.end = d.Start, d.End
			}
		}
		out = append(out, s)
	}
	return out
}

// nextDirective returns the first statement that starts after off.
func nextDirective(dirs []*parser.Directive, off int) *parser.Directive {
	for _, d := range dirs {
		if d.Start > off {
			return d
		}
		if d.Block != nil && d.End > off {
			if n := nextDirective(d.Block, off); n != nil {
				return n
			}
		}
	}
	return nil
}

func (s *suppression) covers(d Diagnostic) bool {
	if d.File != s.file.Path {
		return false
	}
	switch {
	case s.whole:
		return true
	case s.line > 0:
		return d.Line == s.line
	default:
		return d.Offset >= s.start && d.Offset < s.end
	}
}

func applySuppressions(t *parser.Tree, diags []Diagnostic, cfg Config) []Diagnostic {
	var sups []*suppression
	for _, f := range t.Files {
		sups = append(sups, parseSuppressions(f)...)
	}
	if len(sups) == 0 {
		return diags
	}
	var kept []Diagnostic
	for _, d := range diags {
		suppressed := false
		for _, s := range sups {
			for _, id := range s.rules {
				if id == d.Rule && s.covers(d) {
					s.used[id] = true
					suppressed = true
				}
			}
		}
		if !suppressed {
			kept = append(kept, d)
		}
	}
	if cfg.Disabled[unusedSuppression.ID] {
		return kept
	}
	for _, s := range sups {
		for _, id := range s.rules {
			var msg string
			switch {
			case s.used[id]:
				continue
			case ByID(id) == nil:
				msg = fmt.Sprintf("%q is not a rule of nginxtune (see nginxtune rules)", id)
			case cfg.Disabled[id]:
				continue // the rule is off, so the suppression cannot match
			case !s.whole && s.line == 0 && s.start < 0:
				msg = fmt.Sprintf("suppression of %s is followed by no statement", id)
			default:
				msg = fmt.Sprintf("suppression of %s matches no finding; remove it", id)
			}
			sev := unusedSuppression.Severity
			if sv, ok := cfg.Severity[unusedSuppression.ID]; ok {
				sev = sv
			}
			kept = append(kept, Diagnostic{Rule: unusedSuppression.ID, Severity: sev, File: s.file.Path,
				Line: s.comment.Line, Col: s.comment.Col, EndLine: s.comment.Line, Offset: s.comment.Offset, Message: msg})
		}
	}
	return kept
}
