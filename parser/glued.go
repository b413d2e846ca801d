package parser

// Glued statements: a missing ";" makes nginx read the next line as more
// arguments of the directive before it.

import (
	"fmt"
)

// gluedStatements finds statements that swallowed the next one because a
// ";" is missing: an argument that starts a new line and is itself the name
// of a directive. nginx reads both lines as one directive and then either
// fails with "invalid number of arguments" or, for directives that take any
// number of arguments, silently misreads the configuration.
func gluedStatements(f *File, known func(string) bool) []Diagnostic {
	var out []Diagnostic
	walkFileDirs(f.Directives, func(d *Directive) {
		if d.Name == "if" || d.Parent != nil && IsDataBlock(d.Parent.Name) {
			return
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
				out = append(out, Diagnostic{
					Kind: "syntax", Severity: SevError, File: f.Path, Line: line, Col: col, Offset: prevEnd, NginxLine: int(d.EndLine),
					Message: fmt.Sprintf("missing \";\" after %q: nginx reads %q on line %d as one more argument of %q",
						truncate(before, 40), a.Value, a.Line, d.Name),
				})
				break
			}
			prevLine, prevEnd = a.Line, int(a.Offset)+len(a.Raw)
		}
	})
	return out
}

// paramWords are parameters that share their name with a directive, so that
// a wrapped line starting with them is not a missing ";".
var paramWords = map[string]map[string]bool{
	"access_log": {"gzip": true},
	"listen":     {"ssl": true, "http2": true, "http3": true, "quic": true, "proxy_protocol": true},
	"rewrite":    {"break": true},
	"server":     {"resolve": true},
}
