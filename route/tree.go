package route

import (
	"fmt"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// Refused returns the syntax error for which nginx would not load t, or
// nil: route answers for a configuration nginx runs.
func Refused(t *loader.Tree) *finding.Diagnostic {
	for i, d := range t.Diagnostics {
		if d.Severity == finding.Error && d.Rule == parser.Syntax {
			return &t.Diagnostics[i]
		}
	}
	return nil
}

// Unseen lists what of t an answer cannot have seen, for Result.Unknown:
// each include that found nothing or went round in a cycle ("FILE:LINE:
// message", the file as name gives it), and whether included files were
// not read.
func Unseen(t *loader.Tree, name func(string) string) []string {
	var out []string
	for _, d := range t.Diagnostics {
		if (d.Rule == loader.IncludeMissing || d.Rule == loader.IncludeCycle) && d.Severity >= finding.Warning {
			out = append(out, fmt.Sprintf("%s:%d: %s", name(d.File), d.Line, d.Message))
		}
	}
	if t.HasUnread() {
		out = append(out, "some included files were not read (outside the tree or missing): servers or locations in them are not seen")
	}
	return out
}
