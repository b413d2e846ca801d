package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/loader"
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
	var flat []*parser.Directive // every statement in document order
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
			if flat == nil {
				flat = flatten(f.Directives, nil)
			}
			i := sort.Search(len(flat), func(i int) bool { return int(flat[i].Start) > c.Offset })
			if i < len(flat) {
				s.start, s.end = int(flat[i].Start), int(flat[i].End)
			}
		}
		out = append(out, s)
	}
	return out
}

// flatten lists statements and the statements of their blocks in document
// order (by start offset).
func flatten(dirs []*parser.Directive, out []*parser.Directive) []*parser.Directive {
	WalkDirs(dirs, func(d *parser.Directive) { out = append(out, d) })
	return out
}

// applySuppressions drops the findings the configuration's suppression
// comments cover, and reports the suppressions that covered none as the
// rule of all marked for them (Rule.UnusedSuppressions).
func applySuppressions(t *loader.Tree, all []*Rule, diags []finding.Diagnostic, cfg Config) []finding.Diagnostic {
	var sups []*suppression
	for _, f := range t.Files {
		sups = append(sups, parseSuppressions(f)...)
	}
	if len(sups) == 0 {
		return diags
	}
	ix := indexSuppressions(sups)
	var kept []finding.Diagnostic
	for _, d := range diags {
		if !ix.suppress(d) {
			kept = append(kept, d)
		}
	}
	return append(kept, unusedSuppressions(sups, all, cfg)...)
}

// supKey is a file and a rule suppressions name.
type supKey struct{ file, rule string }

// supRanges are the suppressions of byte ranges of one file and rule,
// sorted by start, with the largest end so far.
type supRanges struct {
	sups   []*suppression
	maxEnd []int
}

// supIndex is the suppressions by file and rule: whole files, lines, and
// byte ranges, so that each finding looks only at the suppressions that
// can cover it.
type supIndex struct {
	whole map[supKey][]*suppression
	lines map[supKey]map[int][]*suppression
	spans map[supKey]*supRanges
}

func indexSuppressions(sups []*suppression) *supIndex {
	ix := &supIndex{whole: map[supKey][]*suppression{}, lines: map[supKey]map[int][]*suppression{}, spans: map[supKey]*supRanges{}}
	for _, s := range sups {
		for _, id := range s.rules {
			k := supKey{s.file.Path, id}
			switch {
			case s.whole:
				ix.whole[k] = append(ix.whole[k], s)
			case s.line > 0:
				if ix.lines[k] == nil {
					ix.lines[k] = map[int][]*suppression{}
				}
				ix.lines[k][s.line] = append(ix.lines[k][s.line], s)
			case s.start >= 0:
				if ix.spans[k] == nil {
					ix.spans[k] = &supRanges{}
				}
				ix.spans[k].sups = append(ix.spans[k].sups, s)
			}
		}
	}
	for _, r := range ix.spans {
		sort.SliceStable(r.sups, func(i, j int) bool { return r.sups[i].start < r.sups[j].start })
		r.maxEnd = make([]int, len(r.sups))
		for i, s := range r.sups {
			r.maxEnd[i] = s.end
			if i > 0 && r.maxEnd[i-1] > s.end {
				r.maxEnd[i] = r.maxEnd[i-1]
			}
		}
	}
	return ix
}

// suppress reports whether suppressions cover d, and marks them used.
func (ix *supIndex) suppress(d finding.Diagnostic) bool {
	k := supKey{d.File, d.Rule}
	suppressed := false
	for _, s := range ix.whole[k] {
		s.used[d.Rule], suppressed = true, true
	}
	for _, s := range ix.lines[k][d.Line] {
		s.used[d.Rule], suppressed = true, true
	}
	if r := ix.spans[k]; r != nil {
		i := sort.Search(len(r.sups), func(i int) bool { return r.sups[i].start > d.Offset }) - 1
		for ; i >= 0 && r.maxEnd[i] > d.Offset; i-- {
			if s := r.sups[i]; d.Offset >= s.start && d.Offset < s.end {
				s.used[d.Rule], suppressed = true, true
			}
		}
	}
	return suppressed
}

// unusedSuppressions reports the suppressions that covered no finding, as
// the rule marked for them, unless it is disabled.
func unusedSuppressions(sups []*suppression, all []*Rule, cfg Config) []finding.Diagnostic {
	var unused *Rule
	for _, r := range all {
		if r.UnusedSuppressions {
			unused = r
		}
	}
	if unused == nil || cfg.Disabled[unused.ID] {
		return nil
	}
	sev := unused.Severity
	if sv, ok := cfg.Severity[unused.ID]; ok {
		sev = sv
	}
	var out []finding.Diagnostic
	for _, s := range sups {
		for _, id := range s.rules {
			var msg string
			switch {
			case s.used[id]:
				continue
			case !slices.ContainsFunc(all, func(r *Rule) bool { return r.ID == id }):
				msg = fmt.Sprintf("%q is not a rule of nginxtune (see nginxtune rules)", id)
			case cfg.Disabled[id]:
				continue // the rule is off, so the suppression cannot match
			case !s.whole && s.line == 0 && s.start < 0:
				msg = fmt.Sprintf("suppression of %s is followed by no statement", id)
			default:
				msg = fmt.Sprintf("suppression of %s matches no finding; remove it", id)
			}
			out = append(out, finding.Diagnostic{Rule: unused.ID, Severity: sev, File: s.file.Path,
				Line: s.comment.Line, Col: s.comment.Col, EndLine: s.comment.Line, Offset: s.comment.Offset, Message: msg})
		}
	}
	return out
}
