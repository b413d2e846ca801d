package route

import (
	"errors"
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

// RouteTree answers req over a loaded tree as nginx would serve it: a
// tree nginx would not load (a syntax error) or one with no http server
// is an error naming the place, and what the tree could not show is among
// the result's unknowns (Unseen). path names a file in messages.
func RouteTree(t *loader.Tree, req Request, opt Options, path func(string) string) (*Result, error) {
	if path == nil {
		path = func(p string) string { return p }
	}
	if d := Refused(t); d != nil {
		return nil, fmt.Errorf("%s:%d:%d: %s (nginx would not load this configuration)", path(d.File), d.Line, d.Col, d.Message)
	}
	cfg := Build(t)
	if len(cfg.Servers) == 0 {
		return nil, errNoServers
	}
	res := cfg.Route(req, opt)
	res.Unknown = append(res.Unknown, Unseen(t, path)...)
	return res, nil
}

// errNoServers is RouteTree's error for a tree without an http server.
var errNoServers = errors.New("no http server blocks")

// NoServers reports whether RouteTree's error says the tree has no http
// server.
func NoServers(err error) bool { return errors.Is(err, errNoServers) }
