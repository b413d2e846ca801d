package report

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// The tree encoders of "nginxtune parse": JSON shapes of a loaded tree.
// The native shape keeps every position; the crossplane shape matches what
// `crossplane parse` prints so that tools written for it can read
// nginxtune's output.

type JSONPathMap struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type JSONFile struct {
	Path          string          `json:"path"`
	Context       []string        `json:"context,omitempty"`
	ContextSource string          `json:"context_source,omitempty"`
	Broken        bool            `json:"broken,omitempty"`
	Directives    []JSONDirective `json:"directives"`
	Comments      []JSONComment   `json:"comments,omitempty"`
}

type JSONDirective struct {
	JSONHead
	Block    []JSONDirective `json:"block,omitempty"`
	RawBody  string          `json:"raw_body,omitempty"`
	Includes []int           `json:"includes,omitempty"`
}

// JSONHead is what a JSONDirective says before its block (WriteTreeJSON
// writes a block one statement at a time after it).
type JSONHead struct {
	Name    string   `json:"name"`
	Args    []string `json:"args"`
	Raw     []string `json:"raw_args,omitempty"`
	Line    int      `json:"line"`
	Col     int      `json:"col"`
	EndLine int      `json:"end_line"`
	Start   int      `json:"start"`
	End     int      `json:"end"`
}

type JSONComment struct {
	Text     string `json:"text"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Trailing bool   `json:"trailing,omitempty"`
}

type JSONDiag struct {
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Message  string `json:"message"`
}

func fileIndex(t *loader.Tree) map[*parser.File]int {
	idx := map[*parser.File]int{}
	for i, f := range t.Files {
		idx[f] = i
	}
	return idx
}

// WriteTreeJSON writes the tree's native JSON document (roots, files,
// diagnostics, nginx_T_dump, inferred_maps), as EncodeJSON would (two-space
// indentation, through a JSONWriter), one file at a time: a tree of
// hundreds of megabytes of output is never held whole in memory.
func WriteTreeJSON(w io.Writer, t *loader.Tree) error {
	idx := fileIndex(t)
	safe := NewJSONWriter(w)
	bw := bufio.NewWriterSize(safe, 256<<10)
	put := func(prefix string, v any) error {
		b, err := json.MarshalIndent(v, prefix, "  ")
		if err == nil {
			_, err = bw.Write(b)
		}
		return err
	}
	roots := []string{}
	for _, r := range t.Roots {
		roots = append(roots, r.Path)
	}
	bw.WriteString("{\n  \"roots\": ")
	if err := put("  ", roots); err != nil {
		return err
	}
	bw.WriteString(",\n  \"files\": [")
	for i, f := range t.Files {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    ")
		if err := writeJSONFile(bw, put, f, idx); err != nil {
			return err
		}
	}
	if len(t.Files) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"diagnostics\": ")
	if err := put("  ", jsonDiags(t.Diagnostics)); err != nil {
		return err
	}
	if t.Dump {
		bw.WriteString(",\n  \"nginx_T_dump\": true")
	}
	if len(t.Inferred) > 0 {
		var maps []JSONPathMap
		for _, m := range t.Inferred {
			maps = append(maps, JSONPathMap(m))
		}
		bw.WriteString(",\n  \"inferred_maps\": ")
		if err := put("  ", maps); err != nil {
			return err
		}
	}
	bw.WriteString("\n}\n")
	if err := bw.Flush(); err != nil {
		return err
	}
	return safe.Flush()
}

// writeJSONFile writes one file's JSONFile, its top-level directives one
// at a time (a single large file is not held whole either).
func writeJSONFile(bw *bufio.Writer, put func(string, any) error, f *parser.File, idx map[*parser.File]int) error {
	bw.WriteString("{\n      \"path\": ")
	if err := put("      ", f.Path); err != nil {
		return err
	}
	if len(f.Context) > 0 {
		bw.WriteString(",\n      \"context\": ")
		if err := put("      ", f.Context); err != nil {
			return err
		}
	}
	if f.ContextSource != "" {
		bw.WriteString(",\n      \"context_source\": ")
		if err := put("      ", f.ContextSource); err != nil {
			return err
		}
	}
	if f.Broken {
		bw.WriteString(",\n      \"broken\": true")
	}
	bw.WriteString(",\n      \"directives\": [")
	for i, d := range f.Directives {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n        ")
		if err := writeJSONDirective(bw, put, d, "        ", idx); err != nil {
			return err
		}
	}
	if len(f.Directives) > 0 {
		bw.WriteString("\n      ")
	}
	bw.WriteString("]")
	if len(f.Comments) > 0 {
		bw.WriteString(",\n      \"comments\": ")
		if err := put("      ", jsonFile(&parser.File{Comments: f.Comments}, idx).Comments); err != nil {
			return err
		}
	}
	bw.WriteString("\n    }")
	return nil
}

// writeJSONDirective writes d as its JSONDirective encodes at prefix, a
// block one statement at a time: a file whose whole content sits in one
// http block is not held whole either.
func writeJSONDirective(bw *bufio.Writer, put func(string, any) error, d *parser.Directive, prefix string, idx map[*parser.File]int) error {
	jd := jsonDir(d, idx, false)
	if len(d.Block) == 0 || jd.RawBody != "" || len(jd.Includes) > 0 {
		return put(prefix, jsonDir(d, idx, true))
	}
	b, err := json.MarshalIndent(jd.JSONHead, prefix, "  ")
	if err != nil {
		return err
	}
	bw.Write(b[:len(b)-len(prefix)-2]) // without the closing "\n<prefix>}"
	bw.WriteString(",\n" + prefix + "  \"block\": [")
	for i, c := range d.Block {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n" + prefix + "    ")
		if err := writeJSONDirective(bw, put, c, prefix+"    ", idx); err != nil {
			return err
		}
	}
	bw.WriteString("\n" + prefix + "  ]\n" + prefix + "}")
	return nil
}

func jsonFile(f *parser.File, idx map[*parser.File]int) JSONFile {
	jf := JSONFile{Path: f.Path, Context: f.Context, ContextSource: f.ContextSource,
		Broken: f.Broken, Directives: jsonDirs(f.Directives, idx)}
	for _, c := range f.Comments {
		jf.Comments = append(jf.Comments, JSONComment{Text: c.Text, Line: c.Line, Col: c.Col, Trailing: c.Trailing})
	}
	return jf
}

func jsonDiags(ds []finding.Diagnostic) []JSONDiag {
	out := []JSONDiag{}
	for _, d := range ds {
		out = append(out, JSONDiag{Kind: d.Rule, Severity: d.Severity.String(),
			File: d.File, Line: d.Line, Col: d.Col, Message: d.Message})
	}
	return out
}

func jsonDirs(dirs []*parser.Directive, idx map[*parser.File]int) []JSONDirective {
	out := make([]JSONDirective, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, jsonDir(d, idx, true))
	}
	return out
}

// jsonDir is d's JSONDirective, with its block when block is set.
func jsonDir(d *parser.Directive, idx map[*parser.File]int, block bool) JSONDirective {
	jd := JSONDirective{JSONHead: JSONHead{Name: d.Name, Args: d.ArgValues(), Line: int(d.Line), Col: int(d.Col),
		EndLine: int(d.EndLine), Start: int(d.Start), End: int(d.End)}, RawBody: d.RawBody()}
	for _, a := range d.Args {
		if a.Raw != a.Value {
			jd.Raw = make([]string, len(d.Args))
			for i, a := range d.Args {
				jd.Raw[i] = a.Raw
			}
			break
		}
	}
	if block && d.Block != nil {
		jd.Block = jsonDirs(d.Block, idx)
	}
	for _, inc := range d.Includes() {
		jd.Includes = append(jd.Includes, idx[inc])
	}
	return jd
}

// Crossplane payload, as printed by `crossplane parse`.
type CPPayload struct {
	Status string     `json:"status"`
	Errors []CPError  `json:"errors"`
	Config []CPConfig `json:"config"`
}

type CPError struct {
	File  string `json:"file"`
	Line  *int   `json:"line"`
	Error string `json:"error"`
}

type CPConfig struct {
	File   string    `json:"file"`
	Status string    `json:"status"`
	Errors []CPError `json:"errors"`
	Parsed []CPDir   `json:"parsed"`
}

type CPDir struct {
	Directive string   `json:"directive"`
	Line      int      `json:"line"`
	Args      []string `json:"args"`
	Includes  []int    `json:"includes,omitempty"`
	Block     *[]CPDir `json:"block,omitempty"`
}

// Crossplane returns a tree in crossplane's payload shape.
func Crossplane(t *loader.Tree) CPPayload {
	idx := fileIndex(t)
	p := CPPayload{Status: "ok", Errors: []CPError{}, Config: []CPConfig{}}
	byFile := map[string][]CPError{}
	for _, d := range t.Diagnostics {
		if d.Severity != finding.Error {
			continue
		}
		line := d.Line
		e := CPError{File: d.File, Line: &line, Error: d.Message + " in " + d.File + ":" + strconv.Itoa(d.Line)}
		p.Errors = append(p.Errors, e)
		byFile[d.File] = append(byFile[d.File], e)
		p.Status = "failed"
	}
	for _, f := range t.Files {
		c := CPConfig{File: f.Path, Status: "ok", Errors: []CPError{}, Parsed: cpDirs(f.Directives, idx)}
		if errs := byFile[f.Path]; len(errs) > 0 {
			c.Status, c.Errors = "failed", errs
		}
		p.Config = append(p.Config, c)
	}
	return p
}

func cpDirs(dirs []*parser.Directive, idx map[*parser.File]int) []CPDir {
	out := make([]CPDir, 0, len(dirs))
	for _, d := range dirs {
		c := CPDir{Directive: d.Name, Line: int(d.Line), Args: cpArgs(d)}
		switch {
		case d.RawBody() != "":
			// crossplane's Lua support hands the block body over as one argument
			c.Args = append(c.Args, d.RawBody())
		case d.Block != nil:
			b := cpDirs(d.Block, idx)
			c.Block = &b
		}
		for _, inc := range d.Includes() {
			c.Includes = append(c.Includes, idx[inc])
		}
		out = append(out, c)
	}
	return out
}

// cpArgs are a directive's arguments as crossplane writes them: quoted
// arguments without their quotes but with backslash escapes as written
// ("TEST\n" stays backslash-n; nginx's own reading, which the native
// format keeps, turns it into a line feed), and the parentheses of an
// "if" condition removed ("($arg_fail)" is "$arg_fail"), which crossplane's
// builder puts back.
func cpArgs(d *parser.Directive) []string {
	args := make([]string, 0, len(d.Args))
	for _, a := range d.Args {
		raw := a.Raw
		if a.Quote != 0 && len(raw) >= 2 {
			raw = raw[1 : len(raw)-1]
		}
		args = append(args, raw)
	}
	if d.Name != "if" || len(args) == 0 || !strings.HasPrefix(args[0], "(") || !strings.HasSuffix(args[len(args)-1], ")") {
		return args
	}
	if len(args) == 1 {
		inner := strings.TrimSpace(args[0][1 : len(args[0])-1])
		if inner == "" {
			return []string{}
		}
		return []string{inner}
	}
	args[0] = strings.TrimLeft(args[0][1:], " \t")
	last := len(args) - 1
	args[last] = strings.TrimRight(args[last][:len(args[last])-1], " \t")
	if args[last] == "" {
		args = args[:last]
	}
	if len(args) > 0 && args[0] == "" {
		args = args[1:]
	}
	return args
}
