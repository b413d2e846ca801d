package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nginxtune/nginxtune/format"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules"
)

// spot is what the cursor is on.
type spot struct {
	dir *parser.Directive // the innermost statement around the cursor
	arg int               // the argument's index; -1 on the name
	// word is the text of the name or argument, varName a "$name" the
	// cursor is on inside it ("" when none)
	word    string
	varName string
	start   int // byte offsets of word (or varName) in the file
	end     int
}

// spotAt finds the statement and word at a byte offset of a file.
func spotAt(f *parser.File, off int) (spot, bool) {
	var found *parser.Directive
	var walk func(dirs []*parser.Directive)
	walk = func(dirs []*parser.Directive) {
		for _, d := range dirs {
			if off < int(d.Start) || off > int(d.End) {
				continue
			}
			found = d
			if d.Block != nil && d.BlockOpen >= 0 && off > int(d.BlockOpen) {
				walk(d.Block)
			}
			return
		}
	}
	walk(f.Directives)
	if found == nil {
		return spot{}, false
	}
	d := found
	if off >= int(d.Start) && off <= int(d.Start)+len(d.Name) {
		return spot{dir: d, arg: -1, word: d.Name, start: int(d.Start), end: int(d.Start) + len(d.Name)}, true
	}
	for i, a := range d.Args {
		s, e := int(a.Offset), int(a.Offset)+len(a.Raw)
		if off < s || off > e {
			continue
		}
		sp := spot{dir: d, arg: i, word: a.Value, start: s, end: e}
		// a variable inside the argument
		raw := a.Raw
		for j := 0; j < len(raw); j++ {
			if raw[j] != '$' {
				continue
			}
			k := j + 1
			brace := k < len(raw) && raw[k] == '{'
			if brace {
				k++
			}
			n := k
			for n < len(raw) && (raw[n] == '_' || raw[n] >= 'a' && raw[n] <= 'z' || raw[n] >= 'A' && raw[n] <= 'Z' || raw[n] >= '0' && raw[n] <= '9') {
				n++
			}
			if off >= s+j && off <= s+n && n > k {
				sp.varName, sp.start, sp.end = raw[k:n], s+j, s+n+boolInt(brace)
			}
			j = n - 1
		}
		return sp, true
	}
	return spot{dir: d, arg: -2}, true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stack is the context names around a statement: the file's context, then
// the blocks around it in the file.
func stack(a *analysis, d *parser.Directive) []string {
	var names []string
	for p := d.Parent; p != nil; p = p.Parent {
		names = append([]string{p.Name}, names...)
	}
	return append(append([]string(nil), a.ctx...), names...)
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

func (s *Server) hover(p positionParams) *Hover {
	a := s.current(p.TextDocument.URI, false)
	if a == nil || a.file == nil {
		return nil
	}
	l := newLines(a.text)
	off := l.offset(p.Position)
	var parts []string
	sp, ok := spotAt(a.file, off)
	if ok && sp.varName != "" {
		parts = append(parts, variableDoc(a, sp.varName))
	} else if ok && sp.arg == -1 {
		if doc := directiveDoc(sp.dir.Name, stack(a, sp.dir), a.cfg.Version); doc != "" {
			parts = append(parts, doc)
		}
	}
	for _, dg := range s.findings(p.TextDocument.URI, a) {
		if dg.Line-1 != p.Position.Line {
			continue
		}
		text := fmt.Sprintf("**%s** (%s): %s", dg.Rule, dg.Severity, dg.Message)
		if r := rules.ByID(dg.Rule); r != nil {
			text += "\n\n" + strings.Join(strings.Fields(r.Why), " ") + "\n\n*Fix:* " + strings.Join(strings.Fields(r.Fix), " ")
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return nil
	}
	h := &Hover{Contents: MarkupContent{Kind: "markdown", Value: strings.Join(parts, "\n\n---\n\n")}}
	if ok && sp.end > sp.start {
		r := Range{l.position(sp.start), l.position(sp.end)}
		h.Range = &r
	}
	return h
}

// findings are the rules' findings for the analysed text: those of a
// full analysis of the same text, none while the rules have not run.
func (s *Server) findings(uri string, a *analysis) []rules.Diagnostic {
	if a.full {
		return a.diags
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.results[uri]; r != nil && r.full && r.gen == a.gen {
		return r.diags
	}
	return nil
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

// definitions lists where a variable is set in the tree: set, map, geo,
// split_clients, perl_set, js_set, and named captures of regexes.
func definitions(t *parser.Tree, name string) []*parser.Directive {
	var out []*parser.Directive
	want := "$" + strings.ToLower(name)
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		switch d.Name {
		case "set", "perl_set", "js_set", "set_real_ip_from":
			if strings.EqualFold(d.Arg(0), want) {
				out = append(out, d)
			}
		case "map", "split_clients":
			if strings.EqualFold(d.Arg(len(d.Args)-1), want) {
				out = append(out, d)
			}
		case "geo":
			if strings.EqualFold(d.Arg(len(d.Args)-1), want) {
				out = append(out, d)
			}
		}
		for _, a := range d.Args {
			if strings.Contains(a.Raw, "(?<"+name+">") || strings.Contains(a.Raw, "(?P<"+name+">") || strings.Contains(a.Raw, "(?'"+name+"'") {
				out = append(out, d)
				break
			}
		}
		return true
	})
	return out
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

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// lineContext reads the text before the cursor: the enclosing blocks and
// the statement typed so far on the line.
func lineContext(text string, off int) (blocks []string, words []string, partial string) {
	var stmt []string
	word := strings.Builder{}
	inWord := false
	flush := func() {
		if inWord {
			stmt = append(stmt, word.String())
			word.Reset()
			inWord = false
		}
	}
	for i := 0; i < off && i < len(text); i++ {
		c := text[i]
		switch {
		case c == '#' && !inWord:
			for i < off && i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			q := c
			inWord = true
			word.WriteByte(c)
			for i++; i < off && i < len(text); i++ {
				word.WriteByte(text[i])
				if text[i] == '\\' && i+1 < len(text) {
					i++
					word.WriteByte(text[i])
					continue
				}
				if text[i] == q {
					break
				}
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			flush()
		case c == ';':
			flush()
			stmt = nil
		case c == '{':
			flush()
			name := ""
			if len(stmt) > 0 {
				name = stmt[0]
			}
			blocks = append(blocks, name)
			stmt = nil
		case c == '}':
			flush()
			if len(blocks) > 0 {
				blocks = blocks[:len(blocks)-1]
			}
			stmt = nil
		default:
			inWord = true
			word.WriteByte(c)
		}
	}
	if inWord {
		partial = word.String()
	}
	return blocks, stmt, partial
}

func (s *Server) completion(p positionParams) *CompletionList {
	a := s.current(p.TextDocument.URI, false)
	out := &CompletionList{Items: []CompletionItem{}}
	if a == nil {
		return out
	}
	l := newLines(a.text)
	off := l.offset(p.Position)
	blocks, words, partial := lineContext(a.text, off)
	names := append(append([]string(nil), a.ctx...), blocks...)
	stream := contains(names, "stream")
	switch {
	case strings.HasPrefix(partial, "$") || strings.HasPrefix(partial, "${"):
		out.Items = variableItems(a.tree, stream)
	case len(words) == 0:
		key := rules.ContextKey(names)
		for _, n := range knowledge.Names() {
			if !strings.HasPrefix(n, partial) {
				continue
			}
			for _, d := range knowledge.Lookup(n) {
				if (key == "" || d.Allows(key)) && rules.Available(n, a.cfg.Version) {
					item := CompletionItem{Label: n, Kind: 14, Detail: d.Args.String()}
					if u := docURL(d); u != "" {
						item.Documentation = &MarkupContent{Kind: "markdown", Value: "[nginx documentation](" + u + ")"}
					}
					out.Items = append(out.Items, item)
					break
				}
			}
		}
	default:
		name := words[0]
		switch name {
		case "proxy_pass", "grpc_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "memcached_pass":
			prefix := ""
			if i := strings.Index(partial, "://"); i >= 0 {
				prefix = partial[:i+3]
			}
			for _, u := range upstreams(a.tree) {
				out.Items = append(out.Items, CompletionItem{Label: prefix + u.Arg(0), Kind: 7, Detail: fmt.Sprintf("upstream at %s:%d", filepath.Base(u.File.Path), u.Line)})
			}
		case "try_files", "error_page":
			if strings.HasPrefix(partial, "@") {
				for _, n := range namedLocations(a.tree) {
					out.Items = append(out.Items, CompletionItem{Label: n.Arg(0), Kind: 6})
				}
			}
		}
		for _, d := range knowledge.Lookup(name) {
			if d.Flag {
				out.Items = append(out.Items, CompletionItem{Label: "on", Kind: 12}, CompletionItem{Label: "off", Kind: 12})
				break
			}
			if len(d.Values) > 0 {
				for _, v := range d.Values {
					out.Items = append(out.Items, CompletionItem{Label: v, Kind: 12})
				}
				break
			}
		}
	}
	// every item replaces the whole word typed so far ("http://", "$ho",
	// "@fa", "proxy_b"), a range on the cursor's line; one in quotes that
	// started on an earlier line gets no edit, and the label is inserted
	if start := off - len(partial); !strings.Contains(partial, "\n") && start >= 0 {
		r := Range{Start: l.position(start), End: l.position(off)}
		for i := range out.Items {
			out.Items[i].TextEdit = &TextEdit{Range: r, NewText: out.Items[i].Label}
		}
	}
	return out
}

func variableItems(t *parser.Tree, stream bool) []CompletionItem {
	var items []CompletionItem
	seen := map[string]bool{}
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		var v string
		switch d.Name {
		case "set", "perl_set", "js_set":
			v = d.Arg(0)
		case "map", "geo", "split_clients":
			v = d.Arg(len(d.Args) - 1)
		}
		if strings.HasPrefix(v, "$") && !seen[v] {
			seen[v] = true
			items = append(items, CompletionItem{Label: v, Kind: 6, Detail: fmt.Sprintf("%s at %s:%d", d.Name, filepath.Base(d.File.Path), d.Line)})
		}
		return true
	})
	names, prefixes := knowledge.Variables(stream)
	for _, n := range names {
		if !seen["$"+n] {
			items = append(items, CompletionItem{Label: "$" + n, Kind: 6, Detail: "built in"})
		}
	}
	for _, p := range prefixes {
		items = append(items, CompletionItem{Label: "$" + p, Kind: 6, Detail: "built in: $" + p + "NAME"})
	}
	return items
}

func upstreams(t *parser.Tree) []*parser.Directive {
	var out []*parser.Directive
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == "upstream" && d.Block != nil && len(d.Args) == 1 {
			out = append(out, d)
		}
		return true
	})
	return out
}

func namedLocations(t *parser.Tree) []*parser.Directive {
	var out []*parser.Directive
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == "location" && len(d.Args) == 1 && strings.HasPrefix(d.Arg(0), "@") {
			out = append(out, d)
		}
		return true
	})
	return out
}

// upstreamName is the upstream a proxy_pass-like argument names, "" when
// none.
func upstreamName(directive, arg string) string {
	switch directive {
	case "proxy_pass", "grpc_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "memcached_pass":
	default:
		return ""
	}
	rest := arg
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/:"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

func location(fl fileLines, d *parser.Directive) Location {
	l := fl.of(d.File)
	return Location{URI: pathToURI(d.File.Path), Range: Range{l.position(int(d.Start)), l.position(int(d.Start) + len(d.Name))}}
}

// spotOf reads the tree of a document and what a position is on.
func (s *Server) spotOf(p positionParams) (*analysis, spot, bool) {
	a := s.current(p.TextDocument.URI, false)
	if a == nil || a.file == nil {
		return nil, spot{}, false
	}
	sp, ok := spotAt(a.file, newLines(a.text).offset(p.Position))
	return a, sp, ok
}

func (s *Server) definition(p positionParams) []Location {
	out := []Location{}
	a, sp, ok := s.spotOf(p)
	if !ok || sp.arg < 0 && sp.varName == "" {
		return out
	}
	d := sp.dir
	fl := fileLines{}
	switch {
	case sp.varName != "":
		for _, x := range definitions(a.tree, sp.varName) {
			out = append(out, location(fl, x))
		}
	case d.Name == "include":
		for _, f := range d.Includes() {
			out = append(out, Location{URI: pathToURI(f.Path)})
		}
	case strings.HasPrefix(sp.word, "@"):
		for _, n := range namedLocations(a.tree) {
			if n.Arg(0) == sp.word {
				out = append(out, location(fl, n))
			}
		}
	case upstreamName(d.Name, sp.word) != "":
		name := upstreamName(d.Name, sp.word)
		for _, u := range upstreams(a.tree) {
			if u.Arg(0) == name {
				out = append(out, location(fl, u))
			}
		}
	case d.Name == "ssl_certificate" || d.Name == "ssl_certificate_key" || d.Name == "ssl_trusted_certificate" ||
		d.Name == "ssl_client_certificate" || d.Name == "auth_basic_user_file" || d.Name == "ssl_dhparam":
		if path, ok := a.localFile(sp.word); ok {
			out = append(out, Location{URI: pathToURI(path)})
		}
	}
	sortLocations(out)
	return out
}

func (s *Server) references(p referenceParams) []Location {
	out := []Location{}
	a, sp, ok := s.spotOf(p.positionParams)
	if !ok {
		return out
	}
	upstream := ""
	switch {
	case sp.varName != "":
	case sp.dir.Name == "upstream" && sp.arg == 0:
		upstream = sp.word
	case sp.arg >= 0:
		upstream = upstreamName(sp.dir.Name, sp.word)
	}
	if sp.varName == "" && upstream == "" {
		return out
	}
	fl := fileLines{}
	a.tree.Walk(func(d *parser.Directive, c *parser.Context) bool {
		for _, arg := range d.Args {
			hit := false
			switch {
			case sp.varName != "":
				hit = refersTo(arg.Raw, sp.varName)
			case d.Name == "upstream":
				hit = arg.Value == upstream && p.Context.IncludeDeclaration
			default:
				hit = upstreamName(d.Name, arg.Value) == upstream
			}
			if hit {
				l := fl.of(d.File)
				out = append(out, Location{URI: pathToURI(d.File.Path), Range: Range{l.position(int(arg.Offset)), l.position(int(arg.Offset) + len(arg.Raw))}})
			}
		}
		return true
	})
	return out
}

// refersTo reports whether an argument names $name (or ${name}).
func refersTo(raw, name string) bool {
	for _, form := range []string{"$" + name, "${" + name + "}"} {
		i := strings.Index(raw, form)
		for i >= 0 {
			end := i + len(form)
			if form[1] == '{' || end == len(raw) || !isNameByte(raw[end]) {
				return true
			}
			j := strings.Index(raw[end:], form)
			if j < 0 {
				break
			}
			i = end + j
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (s *Server) symbols(uri string) []DocumentSymbol {
	a := s.current(uri, false)
	out := []DocumentSymbol{}
	if a == nil || a.file == nil {
		return out
	}
	l := newLines(a.text)
	var walk func(dirs []*parser.Directive) []DocumentSymbol
	walk = func(dirs []*parser.Directive) []DocumentSymbol {
		var syms []DocumentSymbol
		for _, d := range dirs {
			if d.Block == nil {
				continue
			}
			sym := DocumentSymbol{Name: d.Name, Kind: 19,
				Range:          Range{l.position(int(d.Start)), l.position(int(d.End))},
				SelectionRange: Range{l.position(int(d.Start)), l.position(int(d.Start) + len(d.Name))}}
			switch d.Name {
			case "server":
				sym.Kind = 5
				for _, x := range d.Block {
					switch x.Name {
					case "server_name":
						sym.Name = "server " + strings.Join(x.ArgValues(), " ")
					case "listen":
						if sym.Detail == "" {
							sym.Detail = "listen " + strings.Join(x.ArgValues(), " ")
						}
					}
				}
			case "location", "upstream", "map", "geo", "split_clients", "if", "limit_except":
				sym.Kind = 6
				if d.Name == "map" || d.Name == "geo" {
					sym.Kind = 13
				}
				sym.Name = d.Name + " " + strings.Join(d.ArgValues(), " ")
			case "http", "stream", "mail", "events":
				sym.Kind = 2
			}
			if !parser.IsDataBlock(d.Name) {
				sym.Children = walk(d.Block)
			}
			syms = append(syms, sym)
		}
		return syms
	}
	if syms := walk(a.file.Directives); syms != nil {
		out = syms
	}
	return out
}

func (s *Server) codeActions(p codeActionParams) []CodeAction {
	a := s.current(p.TextDocument.URI, true)
	out := []CodeAction{}
	if a == nil {
		return out
	}
	l := newLines(a.text)
	files := fileLines{}
	for _, dg := range a.diags {
		if dg.Fix == nil || len(dg.Fix.Edits) == 0 {
			continue
		}
		ld := s.toDiagnostic(dg, a, l)
		if ld.Range.End.Line < p.Range.Start.Line || ld.Range.Start.Line > p.Range.End.Line {
			continue
		}
		edit := WorkspaceEdit{Changes: map[string][]TextEdit{}}
		ok := true
		for _, e := range dg.Fix.Edits {
			f := a.tree.File(e.File)
			if f == nil {
				ok = false
				break
			}
			fl := files.of(f)
			uri := pathToURI(f.Path)
			if f == a.file {
				uri = p.TextDocument.URI
			}
			edit.Changes[uri] = append(edit.Changes[uri], TextEdit{Range: Range{fl.position(e.Start), fl.position(e.End)}, NewText: e.New})
		}
		if !ok {
			continue
		}
		out = append(out, CodeAction{Title: dg.Fix.Description, Kind: "quickfix", Diagnostics: []Diagnostic{ld}, IsPreferred: true, Edit: edit})
	}
	return out
}

func (s *Server) formatting(p formattingParams) ([]TextEdit, *rpcError) {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	var text string
	if d != nil {
		text = d.text
	}
	s.mu.Unlock()
	if d == nil {
		return nil, &rpcError{codeInvalidParams, "the document is not open"}
	}
	f, diag := parser.Parse(d.path, []byte(text))
	if diag != nil {
		return []TextEdit{}, nil // a buffer with a syntax error is not formatted
	}
	opt := format.Options{Indent: p.Options.TabSize, Tabs: !p.Options.InsertSpaces && p.Options.TabSize > 0}
	if cfg := s.fmtSettings(d.path); cfg != nil {
		// the settings' step, else the editor's; their columns
		if cfg.Indent > 0 || cfg.Tabs {
			opt.Indent, opt.Tabs = cfg.Indent, cfg.Tabs
		}
		opt.Align = cfg.Align
	}
	out, err := format.Source(f, opt)
	if err != nil {
		return nil, &rpcError{codeInternalError, err.Error()}
	}
	if string(out) == text {
		return []TextEdit{}, nil
	}
	l := newLines(text)
	return []TextEdit{{Range: Range{Position{0, 0}, l.position(len(text))}, NewText: string(out)}}, nil
}

// fmtSettings reads fmt's layout from the settings the command line uses
// for this file, when the server was given a reader for them.
func (s *Server) fmtSettings(path string) *format.Options {
	if s.opt.FmtSettings == nil || path == "" {
		return nil
	}
	return s.opt.FmtSettings(path)
}

// sortLocations orders locations for stable answers.
func sortLocations(ls []Location) {
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].URI != ls[j].URI {
			return ls[i].URI < ls[j].URI
		}
		return ls[i].Range.Start.Line < ls[j].Range.Start.Line
	})
}

// localFile is where a file a directive names (a certificate, a password
// file) is on this machine, when the tree may look there: nginx's relative
// paths are relative to the configuration directory, an absolute one goes
// through the tree's path maps, and the file must lie in the tree, a mapped
// directory or one the user allowed — reached without a link out of it
// (os.Root) — unless the tree is the live one. Outside, the file is not
// looked at, as the loader never looks outside the tree: a configuration
// cannot make the editor test what exists on the machine.
func (a *analysis) localFile(name string) (string, bool) {
	if a.tree == nil || a.tree.Dir == "" || name == "" {
		return "", false
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(a.tree.Dir, path)
	}
	dirs := []string{a.tree.Dir}
	path, to := parser.MapPath(a.opt.Maps, filepath.Clean(path))
	if to != "" {
		dirs = append(dirs, to)
	}
	if a.opt.Live {
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			return path, true
		}
		return "", false
	}
	for _, d := range append(dirs, a.opt.AllowOutside...) {
		abs, err := filepath.Abs(d)
		if err != nil || !boundedread.Within(path, abs) {
			continue
		}
		rel, err := filepath.Rel(abs, path)
		if err != nil {
			continue
		}
		r, err := os.OpenRoot(abs)
		if err != nil {
			continue
		}
		st, err := r.Stat(rel)
		r.Close()
		if err == nil && st.Mode().IsRegular() {
			return path, true
		}
	}
	return "", false
}
