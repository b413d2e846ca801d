package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules"
)

// completion answers what may be typed at the cursor: a variable after
// "$", a directive allowed in the block at the start of a statement, an
// argument after a directive's name.
func (s *Server) completion(p positionParams) *protocol.CompletionList {
	a := s.current(p.TextDocument.URI, false)
	out := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	if a == nil {
		return out
	}
	l := newLines(a.text)
	off := l.offset(p.Position)
	blocks, words, partial := lineContext(a.text, off)
	names := append(append([]string(nil), a.ctx...), blocks...)
	switch {
	case strings.HasPrefix(partial, "$") || strings.HasPrefix(partial, "${"):
		out.Items = variableItems(a.tree, contains(names, "stream"))
	case len(words) == 0:
		out.Items = append(out.Items, directiveItems(partial, rules.ContextKey(names), a.cfg.Version)...)
	default:
		out.Items = append(out.Items, argumentItems(a.tree, words[0], partial)...)
	}
	replaceTyped(out.Items, l, off, partial)
	return out
}

// directiveItems are the directives starting with partial that the block
// (its context key) allows and the nginx version linted for has.
func directiveItems(partial, key string, v knowledge.Version) []protocol.CompletionItem {
	var items []protocol.CompletionItem
	for _, n := range knowledge.Names() {
		if !strings.HasPrefix(n, partial) {
			continue
		}
		for _, d := range knowledge.Lookup(n) {
			if (key == "" || d.Allows(key)) && rules.Available(n, v) {
				item := protocol.CompletionItem{Label: n, Kind: protocol.CompletionKeyword, Detail: d.Args.String()}
				if doc := completionDoc(d); doc != "" {
					item.Documentation = &protocol.MarkupContent{Kind: protocol.Markdown, Value: doc}
				}
				items = append(items, item)
				break
			}
		}
	}
	return items
}

// argumentItems are the arguments a directive takes: the tree's upstreams
// after a proxy_pass-like one, its named locations after try_files and
// error_page, on and off for a flag, the values of an enumeration.
func argumentItems(t *loader.Tree, name, partial string) []protocol.CompletionItem {
	var items []protocol.CompletionItem
	switch {
	case knowledge.IsPassHandler(name):
		prefix := ""
		if i := strings.Index(partial, "://"); i >= 0 {
			prefix = partial[:i+3]
		}
		for _, u := range upstreams(t) {
			items = append(items, protocol.CompletionItem{Label: prefix + u.Arg(0), Kind: protocol.CompletionClass, Detail: fmt.Sprintf("upstream at %s:%d", filepath.Base(u.File.Path), u.Line)})
		}
	case (name == "try_files" || name == "error_page") && strings.HasPrefix(partial, "@"):
		for _, n := range namedLocations(t) {
			items = append(items, protocol.CompletionItem{Label: n.Arg(0), Kind: protocol.CompletionVariable})
		}
	}
	for _, d := range knowledge.Lookup(name) {
		if d.Flag {
			return append(items, protocol.CompletionItem{Label: "on", Kind: protocol.CompletionValue}, protocol.CompletionItem{Label: "off", Kind: protocol.CompletionValue})
		}
		if len(d.Values) > 0 {
			for _, v := range d.Values {
				items = append(items, protocol.CompletionItem{Label: v, Kind: protocol.CompletionValue})
			}
			return items
		}
	}
	return items
}

// replaceTyped makes every item replace the whole word typed so far
// ("http://", "$ho", "@fa", "proxy_b"), a range on the cursor's line; one
// in quotes that started on an earlier line gets no edit, and the label is
// inserted.
func replaceTyped(items []protocol.CompletionItem, l *lines, off int, partial string) {
	start := off - len(partial)
	if strings.Contains(partial, "\n") || start < 0 {
		return
	}
	r := protocol.Range{Start: l.position(start), End: l.position(off)}
	for i := range items {
		items[i].TextEdit = &protocol.TextEdit{Range: r, NewText: items[i].Label}
	}
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

func variableItems(t *loader.Tree, stream bool) []protocol.CompletionItem {
	var items []protocol.CompletionItem
	seen := map[string]bool{}
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		var v string
		if i, ok := knowledge.DefinesVariable(d.Name, len(d.Args)); ok {
			v = d.Arg(i)
		}
		if strings.HasPrefix(v, "$") && !seen[v] {
			seen[v] = true
			items = append(items, protocol.CompletionItem{Label: v, Kind: protocol.CompletionVariable, Detail: fmt.Sprintf("%s at %s:%d", d.Name, filepath.Base(d.File.Path), d.Line)})
		}
		return true
	})
	names, prefixes := knowledge.Variables(stream)
	for _, n := range names {
		if !seen["$"+n] {
			items = append(items, protocol.CompletionItem{Label: "$" + n, Kind: protocol.CompletionVariable, Detail: "built in"})
		}
	}
	for _, p := range prefixes {
		items = append(items, protocol.CompletionItem{Label: "$" + p, Kind: protocol.CompletionVariable, Detail: "built in: $" + p + "NAME"})
	}
	return items
}

// completionDoc is a directive's line of summaries.tsv and its page on
// nginx.org, as far as there are.
func completionDoc(d knowledge.Directive) string {
	var parts []string
	if sum := knowledge.Summary(d.Name); sum != "" {
		parts = append(parts, sum)
	}
	if u := d.DocURL(); u != "" {
		parts = append(parts, "[nginx documentation]("+u+")")
	}
	return strings.Join(parts, "\n\n")
}
