package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/rules"
)

// hover answers what the cursor is on: a variable (where it is set), a
// directive (from the table), and the findings of the line with their
// rules' Why and Fix.
func (s *Server) hover(p positionParams) *protocol.Hover {
	a := s.current(p.TextDocument.URI, false)
	if a == nil || a.file == nil {
		return nil
	}
	l := newLines(a.text)
	off := l.offset(p.Position)
	var parts []string
	sp, ok := spotAt(a.file, off)
	if doc := a.spotDoc(sp, ok); doc != "" {
		parts = append(parts, doc)
	}
	for _, dg := range s.findings(p.TextDocument.URI, a) {
		if dg.Line-1 == p.Position.Line {
			parts = append(parts, findingDoc(dg))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	h := &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: strings.Join(parts, "\n\n---\n\n")}}
	if ok && sp.end > sp.start {
		r := protocol.Range{Start: l.position(sp.start), End: l.position(sp.end)}
		h.Range = &r
	}
	return h
}

// directiveDoc describes a directive: what it does, then the table's facts
// for the context, for the nginx version linted for when it is known and
// for every version otherwise, each version named where they differ.
func directiveDoc(name string, names []string, v knowledge.Version) string {
	a, ok := knowledge.Describe(name, rules.ContextKey(names), v)
	if !ok {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", name)
	if a.Summary != "" {
		fmt.Fprintf(&b, " — %s", a.Summary)
	}
	b.WriteString("\n\n")
	if a.Missing != "" {
		fmt.Fprintf(&b, "**Not in nginx %s**, the version linted for: nginx %s has it.\n\n", a.Missing, strings.Join(a.Core, ", "))
	}
	writeByVersion(&b, "Arguments", a, func(f knowledge.Form) string { return f.Args.String() })
	writeByVersion(&b, "Contexts", a, func(f knowledge.Form) string { return strings.Join(f.Contexts, ", ") })
	writeByVersion(&b, "Values", a, func(f knowledge.Form) string { return strings.Join(f.Values, ", ") })
	var defs []string
	for _, d := range a.Defaults {
		if a.Extra != "" || len(d.Core) == len(a.Core) {
			defs = append(defs, d.Value)
		} else {
			defs = append(defs, fmt.Sprintf("%s (nginx %s)", d.Value, strings.Join(d.Core, ", ")))
		}
	}
	if len(defs) > 0 {
		fmt.Fprintf(&b, "Default: %s\n\n", strings.Join(defs, "; "))
	}
	if a.Extra != "" {
		fmt.Fprintf(&b, "Module: %s (third party)\n\n", a.Extra)
	} else {
		fmt.Fprintf(&b, "Module: %s\n\n", a.Module)
		fmt.Fprintf(&b, "In nginx: %s\n\n", strings.Join(a.Core, ", "))
	}
	if a.URL != "" {
		fmt.Fprintf(&b, "[nginx documentation](%s)", a.URL)
	}
	return strings.TrimSpace(b.String())
}

// writeByVersion writes one line of a directive's forms: the value when
// every form has it, else each value with the versions of its forms.
func writeByVersion(b *strings.Builder, label string, a knowledge.About, of func(knowledge.Form) string) {
	var values []string
	versions := map[string][]string{}
	for _, f := range a.Forms {
		x := of(f)
		if _, seen := versions[x]; !seen {
			values = append(values, x)
		}
		versions[x] = append(versions[x], f.Core...)
	}
	switch {
	case len(values) == 1 && values[0] == "":
	case len(values) == 1 || a.Extra != "":
		fmt.Fprintf(b, "%s: %s\n\n", label, values[len(values)-1])
	default:
		var parts []string
		for _, x := range values {
			shown := x
			if shown == "" {
				shown = "none"
			}
			parts = append(parts, fmt.Sprintf("%s (nginx %s)", shown, strings.Join(versions[x], ", ")))
		}
		fmt.Fprintf(b, "%s: %s\n\n", label, strings.Join(parts, "; "))
	}
}

func variableDoc(a *analysis, name string) string {
	defs := definitions(a.tree, name)
	var b strings.Builder
	fmt.Fprintf(&b, "**$%s**", name)
	if len(defs) > 0 {
		b.WriteString(" is set by:\n")
		for _, d := range defs {
			fmt.Fprintf(&b, "\n- `%s` at %s:%d", d.Name, filepath.Base(d.File.Path), d.Line)
		}
		return b.String()
	}
	if knowledge.VariableKnown(strings.ToLower(name), contains(a.ctx, "stream")) {
		b.WriteString(": built into nginx or one of its modules")
		if sum := knowledge.VariableSummary(strings.ToLower(name)); sum != "" {
			b.WriteString(". " + sum)
		}
		return b.String()
	}
	if refs := knowledge.VarRefs("$" + name); len(refs) == 1 && refs[0].Kind == knowledge.Capture && refs[0].End == len(name)+1 {
		b.WriteString(": a capture of the last regular expression that matched")
		return b.String()
	}
	b.WriteString(": set nowhere in the tree, and not a variable nginx defines")
	return b.String()
}

// spotDoc describes what the cursor is on: a variable, or a directive's
// name; "" for anything else.
func (a *analysis) spotDoc(sp spot, ok bool) string {
	switch {
	case ok && sp.varName != "":
		return variableDoc(a, sp.varName)
	case ok && sp.arg == -1:
		return directiveDoc(sp.dir.Name, stack(a, sp.dir), a.cfg.Version)
	}
	return ""
}

// findingDoc describes a finding and its rule's Why and Fix.
func findingDoc(dg finding.Diagnostic) string {
	text := fmt.Sprintf("**%s** (%s): %s", dg.Rule, dg.Severity, dg.Message)
	if r := rules.ByID(dg.Rule); r != nil {
		text += "\n\n" + strings.Join(strings.Fields(r.Why), " ") + "\n\n*Fix:* " + strings.Join(strings.Fields(r.Fix), " ")
	}
	return text
}
