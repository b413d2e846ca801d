package rules

import "github.com/nginxtune/nginxtune/finding"

// fromLoader is the check of the rules that report what the parser found
// while reading the tree (syntax, include-missing, include-cycle,
// include-outside-tree): the tree's findings of kind.
func fromLoader(kind string) func(*Pass) {
	return func(p *Pass) {
		for _, d := range p.Tree.Diagnostics {
			if d.Rule != kind {
				continue
			}
			p.Report(finding.Diagnostic{Severity: d.Severity, File: d.File,
				Line: d.Line, Col: d.Col, EndLine: max(d.Line, d.EndLine), Offset: d.Offset, Message: d.Message})
		}
	}
}
