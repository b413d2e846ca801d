package engine

import (
	"fmt"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// Pass is what a rule's check receives.
type Pass struct {
	Tree    *loader.Tree
	Version knowledge.Version // the nginx version linted for; zero when unknown
	// Host holds the facts of the machine the configuration runs on, or nil
	// when the lint is not host-aware.
	Host *host.Source
	// Extra names directives of modules nginxtune does not know
	// ("directives:" in .nginxtune.yaml): never unknown, never checked.
	Extra map[string]bool

	rule *Rule
	// the rules of the run, enabled or not (IsRule, For), and those
	// disabled
	rules    []*Rule
	disabled map[string]bool
	diags    *[]finding.Diagnostic
	index    *levelIndex
	visits   *visits
	// what the caller keeps (Config.Only) and the severity the rule's
	// findings get, for wanted
	only     map[string]bool
	severity finding.Severity
	dropped  *int // findings past MaxFindings, counted by Report
}

// IsRule reports whether a rule of the run has the id.
func (p *Pass) IsRule(id string) bool {
	for _, r := range p.rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// For is the pass of another rule of the run that reports with p: a check
// that judges for several rules in one walk reports each finding as its
// rule. nil when the rule is disabled or not in the run.
func (p *Pass) For(id string) *Pass {
	if p.disabled[id] {
		return nil
	}
	for _, r := range p.rules {
		if r.ID == id {
			q := *p
			q.rule = r
			return &q
		}
	}
	return nil
}

// Wanted reports whether the caller keeps a finding of this rule at d: any
// finding, unless Config.Only names the files it keeps; then one at those
// files, or anywhere when the rule's findings are errors (as configured, or
// declared). A rule asks before it reads a costly input for d, so a
// pre-commit run on a site file does not read the host's file limits for
// nginx.conf's worker_connections, a finding it would drop. It is right
// for rules that report at the severity they declare.
func (p *Pass) Wanted(d *parser.Directive) bool {
	return p.only == nil || p.severity == finding.Error || d != nil && p.only[d.File.Path]
}

// Report records a finding. It takes a value: what the rule changes in its
// copy afterwards does not reach the report, and no report can lose a fix
// set through a pointer into a slice that has since grown.
func (p *Pass) Report(d finding.Diagnostic) {
	if d.Rule == "" {
		d.Rule = p.rule.ID
	}
	if len(*p.diags) >= MaxFindings {
		// past the run's bound in this rule alone: counted, not kept (a
		// tree of a million unknown names held 1.1 GB of findings that
		// were then cut)
		if p.dropped != nil {
			*p.dropped++
		}
		return
	}
	*p.diags = append(*p.diags, d)
}

// Diag builds a finding at a directive with the rule's severity, for the
// rule to complete (a fix, related places) and Report.
func (p *Pass) Diag(d *parser.Directive, format string, args ...any) finding.Diagnostic {
	return finding.Diagnostic{
		Rule: p.rule.ID, Severity: p.rule.Severity, File: d.File.Path, Line: int(d.Line), Col: int(d.Col),
		EndLine: int(d.EndLine), Offset: int(d.Start), Message: fmt.Sprintf(format, args...),
	}
}

// DiagArg is Diag at one argument of a directive.
func (p *Pass) DiagArg(d *parser.Directive, i int, format string, args ...any) finding.Diagnostic {
	diag := p.Diag(d, format, args...)
	if i < len(d.Args) {
		diag.Line, diag.Col, diag.Offset = int(d.Args[i].Line), int(d.Args[i].Col), int(d.Args[i].Offset)
	}
	return diag
}

// Reportf records a finding at a directive.
func (p *Pass) Reportf(d *parser.Directive, format string, args ...any) {
	p.Report(p.Diag(d, format, args...))
}

// ReportArgf records a finding at one argument of a directive.
func (p *Pass) ReportArgf(d *parser.Directive, i int, format string, args ...any) {
	p.Report(p.DiagArg(d, i, format, args...))
}

// ReportSeverityf records a finding with a severity other than the rule's
// default (for example an error where nginx -t would fail).
func (p *Pass) ReportSeverityf(sev finding.Severity, d *parser.Directive, format string, args ...any) {
	diag := p.Diag(d, format, args...)
	diag.Severity = sev
	p.Report(diag)
}

// RelatedTo names a directive as a related place.
func RelatedTo(d *parser.Directive, what string) finding.Related {
	return finding.Related{File: d.File.Path, Line: int(d.Line), Col: int(d.Col), Message: what}
}

// DiagSev is Diag with a severity other than the rule's default.
func (p *Pass) DiagSev(sev finding.Severity, d *parser.Directive, format string, args ...any) finding.Diagnostic {
	diag := p.Diag(d, format, args...)
	diag.Severity = sev
	return diag
}
