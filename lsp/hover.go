package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

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

// directiveDoc describes a directive from the table: the form allowed in
// the context, for the nginx version linted for when it is known.
func directiveDoc(name string, names []string, v knowledge.Version) string {
	ds := knowledge.Lookup(name)
	if len(ds) == 0 {
		return ""
	}
	key := rules.ContextKey(names)
	var forms []knowledge.Directive
	for _, x := range ds {
		if key == "" || x.Allows(key) {
			forms = append(forms, x)
		}
	}
	if len(forms) == 0 {
		forms = ds
	}
	d := forms[len(forms)-1]
	defaults := map[string][]string{}
	var order []string
	for _, x := range forms {
		for _, c := range x.Core {
			if v.Known() && c == branchOf(v) {
				d = x
			}
		}
		if x.Default != "" {
			if _, ok := defaults[x.Default]; !ok {
				order = append(order, x.Default)
			}
			defaults[x.Default] = append(defaults[x.Default], x.Core...)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** — %s\n\n", name, d.Args)
	fmt.Fprintf(&b, "Contexts: %s\n\n", strings.Join(d.Contexts, ", "))
	if len(d.Values) > 0 {
		fmt.Fprintf(&b, "Values: %s\n\n", strings.Join(d.Values, ", "))
	}
	switch {
	case v.Known() && d.Default != "":
		fmt.Fprintf(&b, "Default: %s\n\n", d.Default)
	case len(order) == 1:
		fmt.Fprintf(&b, "Default: %s\n\n", order[0])
	case len(order) > 1:
		var parts []string
		for _, def := range order {
			parts = append(parts, fmt.Sprintf("%s (nginx %s)", def, strings.Join(defaults[def], ", ")))
		}
		fmt.Fprintf(&b, "Default: %s\n\n", strings.Join(parts, "; "))
	}
	if d.Extra != "" {
		fmt.Fprintf(&b, "Module: %s (third party)\n\n", d.Extra)
	} else {
		fmt.Fprintf(&b, "Module: %s\n\n", d.Module)
		fmt.Fprintf(&b, "In nginx: %s\n\n", strings.Join(d.Core, ", "))
	}
	if u := docURL(d); u != "" {
		fmt.Fprintf(&b, "[nginx documentation](%s)", u)
	}
	return strings.TrimSpace(b.String())
}

// branchOf is the table's version of v's stable branch (1.22.1 for any
// 1.22.x), "" when the table has none.
func branchOf(v knowledge.Version) string {
	for _, tv := range knowledge.CoreVersions() {
		t := knowledge.MustVersion(tv)
		if t.Major == v.Major && t.Minor == v.Minor {
			return tv
		}
	}
	return ""
}

// docURL is the nginx documentation page of a directive of a module
// nginx ships, "" for third-party modules.
func docURL(d knowledge.Directive) string {
	m := d.Module
	if d.Extra != "" || m == "" {
		return ""
	}
	switch {
	case strings.HasPrefix(m, "ngx_http_"):
		return "https://nginx.org/en/docs/http/" + m + ".html#" + d.Name
	case strings.HasPrefix(m, "ngx_stream_"):
		return "https://nginx.org/en/docs/stream/" + m + ".html#" + d.Name
	case strings.HasPrefix(m, "ngx_mail_"):
		return "https://nginx.org/en/docs/mail/" + m + ".html#" + d.Name
	case m == "ngx_google_perftools_module":
		return "https://nginx.org/en/docs/" + m + ".html#" + d.Name
	}
	return "https://nginx.org/en/docs/ngx_core_module.html#" + d.Name
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
		return b.String()
	}
	if _, err := fmt.Sscanf(name, "%d", new(int)); err == nil {
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
func findingDoc(dg rules.Diagnostic) string {
	text := fmt.Sprintf("**%s** (%s): %s", dg.Rule, dg.Severity, dg.Message)
	if r := rules.ByID(dg.Rule); r != nil {
		text += "\n\n" + strings.Join(strings.Fields(r.Why), " ") + "\n\n*Fix:* " + strings.Join(strings.Fields(r.Fix), " ")
	}
	return text
}
