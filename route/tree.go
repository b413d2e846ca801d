package route

import (
	"fmt"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// RouteTree answers req over a loaded tree as nginx would serve it: a
// tree nginx would not load (a syntax error) or one with no http server
// is an error naming the place, and what the tree could not show (an
// include missing or not read, a cycle) is among the result's unknowns.
// path names a file in messages.
func RouteTree(t *loader.Tree, req Request, opt Options, path func(string) string) (*Result, error) {
	if path == nil {
		path = func(p string) string { return p }
	}
	for _, d := range t.Diagnostics {
		if d.Severity == finding.Error && d.Rule == parser.Syntax {
			return nil, fmt.Errorf("%s:%d:%d: %s (nginx would not load this configuration)", path(d.File), d.Line, d.Col, d.Message)
		}
	}
	cfg := Build(t)
	if len(cfg.Servers) == 0 {
		return nil, errNoServers
	}
	res := cfg.Route(req, opt)
	for _, d := range t.Diagnostics {
		if (d.Rule == loader.IncludeMissing || d.Rule == loader.IncludeCycle) && d.Severity >= finding.Warning {
			res.Unknown = append(res.Unknown, fmt.Sprintf("%s:%d: %s", path(d.File), d.Line, d.Message))
		}
	}
	if t.HasUnread() {
		res.Unknown = append(res.Unknown, "some included files were not read (outside the tree or missing): servers or locations in them are not seen")
	}
	return res, nil
}

// errNoServers is RouteTree's error for a tree without an http server.
var errNoServers = fmt.Errorf("no http server blocks")

// NoServers reports whether RouteTree's error says the tree has no http
// server.
func NoServers(err error) bool { return err == errNoServers }
