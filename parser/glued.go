package parser

// Glued statements: a missing ";" makes nginx read the next line as more
// arguments of the directive before it.

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
)

// gluedStatements reports a statement that swallowed the next one because a
// ";" is missing: an argument that starts a new line and is itself the name
// of a directive. nginx reads both lines as one directive and then either
// fails with "invalid number of arguments" or, for directives that take any
// number of arguments, silently misreads the configuration.
func gluedStatements(f *File, d *Directive, known func(string) bool) *finding.Diagnostic {
	if d.Name == "if" || d.Parent != nil && IsDataBlock(d.Parent.Name) {
		return nil
	}
	prevLine, prevEnd := d.Line, int(d.Start)+len(d.Name)
	for i, a := range d.Args {
		// names are looked up only for an argument on a line of its own
		// (rare), not for every statement
		if a.Line > prevLine && a.Quote == 0 && !paramWords[d.Name][a.Value] && known(a.Value) && known(d.Name) {
			line, col := f.Position(prevEnd)
			before := d.Name
			for _, b := range d.Args[:i] {
				before += " " + b.Raw
			}
			diag := finding.Diagnostic{
				Rule: Syntax, Severity: finding.Error, File: f.Path, Line: line, Col: col, Offset: prevEnd, EndLine: int(d.EndLine),
				Message: fmt.Sprintf("missing \";\" after %q: nginx reads %q on line %d as one more argument of %q",
					untrusted.CutAt(before, 40), a.Value, a.Line, d.Name),
			}
			if freeWords(d.Name) && d.Block == nil {
				// nginx takes any number of any words here: the
				// configuration loads, and the swallowed directive is lost
				diag.Severity = finding.Warning
				diag.Message += fmt.Sprintf("; nginx accepts it (more %s), so %q is silently lost", freeWhat(d.Name), a.Value)
			}
			// set once: a file the loader shares between the trees of
			// an editor (loader.Options.Reuse) is found glued again by
			// every load, and only read then, while rules may read it
			if !d.Glued() {
				d.rareParts().glued = true
			}
			return &diag
		}
		prevLine, prevEnd = a.Line, int(a.Offset)+len(a.Raw)
	}
	return nil
}

// paramWords are parameters that share their name with a directive, so that
// a wrapped line starting with them is not a missing ";".
var paramWords = map[string]map[string]bool{
	"access_log": {"gzip": true},
	"listen":     {"ssl": true, "http2": true, "http3": true, "quic": true, "proxy_protocol": true},
	"rewrite":    {"break": true},
	"server":     {"resolve": true},
}

// freeWords reports whether a directive takes any number of arbitrary
// words, so that nginx loads a configuration where it swallowed the next
// line (measured with nginx 1.22.1: "server_name localhost" without its
// ";" before "client_header_buffer_size 1k;" passes nginx -t).
func freeWords(name string) bool {
	switch name {
	case "server_name", "index", "try_files", "valid_referers":
		return true
	}
	return strings.HasSuffix(name, "_types")
}

func freeWhat(name string) string {
	switch name {
	case "server_name":
		return "server names"
	case "index":
		return "index files"
	case "try_files":
		return "files to try"
	case "valid_referers":
		return "referers"
	}
	return "MIME types"
}

// blocksInData appends to out a block inside the body of a map, geo, types,
// split_clients or charset_map, whose entries nginx reads as words: nginx
// -t fails with 'unexpected "{"' there.
func blocksInData(f *File, d *Directive, out []finding.Diagnostic) []finding.Diagnostic {
	if d.Block == nil || !dataBlock(d.Name) {
		return out
	}
	for _, e := range d.Block {
		if e.Block == nil || e.BlockOpen < 0 {
			continue
		}
		line, col := f.Position(int(e.BlockOpen))
		out = append(out, finding.Diagnostic{
			Rule: Syntax, Severity: finding.Error, File: f.Path, Line: line, Col: col, Offset: int(e.BlockOpen),
			Message: fmt.Sprintf("a block inside %q: its body is a list of entries, and nginx -t fails with 'unexpected \"{\"'", d.Name),
		})
	}
	return out
}

// FileFindings are the syntax findings of one file that only the whole
// file shows (a missing ";" that glued two statements, a block inside a
// map's body); known says which names are directives. The loader adds
// them for every file it reads.
func FileFindings(f *File, known func(string) bool) []finding.Diagnostic {
	// one walk for both kinds; the glued statements come first, in the
	// order of the walk, then the blocks inside data
	var glued, blocks []finding.Diagnostic
	if w := f.walked; w != nil {
		// the scanner noted the statements that may be either
		for _, d := range w.multiLine {
			if g := gluedStatements(f, d, known); g != nil {
				glued = append(glued, *g)
			}
		}
		for _, d := range w.data {
			blocks = blocksInData(f, d, blocks)
		}
		return append(glued, blocks...)
	}
	WalkFile(f.Directives, func(d *Directive) {
		if g := gluedStatements(f, d, known); g != nil {
			glued = append(glued, *g)
		}
		blocks = blocksInData(f, d, blocks)
	})
	return append(glued, blocks...)
}

// FileErrors are the syntax errors of one file that the loader finds once
// it is read (a missing ";" that glued two statements, a block inside a
// map's body), for a file read alone, as standard input is: nginx -t
// refuses each. Names are looked up in the directive table alone.
func FileErrors(f *File) []finding.Diagnostic {
	var out []finding.Diagnostic
	for _, d := range FileFindings(f, knowledge.IsDirective) {
		if d.Severity == finding.Error {
			out = append(out, d)
		}
	}
	SortDiagnostics(out)
	return out
}
