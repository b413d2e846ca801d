package lsp

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/parser"
)

// definition answers where what the cursor is on is defined: where a
// variable is set, the files an include reads, a named location, an
// upstream, a certificate or password file a directive names.
func (s *Server) definition(p positionParams) []protocol.Location {
	out := []protocol.Location{}
	a, sp, ok := s.spotOf(p.TextDocument.URI, p.Position)
	if !ok || sp.arg < 0 && sp.varName == "" {
		return out
	}
	out = append(out, a.definedAt(sp)...)
	sortLocations(out)
	return out
}

// definedAt are the places that define what a spot names.
func (a *analysis) definedAt(sp spot) []protocol.Location {
	d := sp.dir
	switch {
	case sp.varName != "":
		return locations(definitions(a.tree, sp.varName))
	case d.Name == "include":
		var out []protocol.Location
		for _, f := range d.Includes() {
			out = append(out, protocol.Location{URI: pathToURI(f.Path)})
		}
		return out
	case strings.HasPrefix(sp.word, "@"):
		return locations(named(namedLocations(a.tree), sp.word))
	case upstreamName(d.Name, sp.word) != "":
		return locations(named(upstreams(a.tree), upstreamName(d.Name, sp.word)))
	case namesFile[d.Name]:
		if path, ok := a.localFile(sp.word); ok {
			return []protocol.Location{{URI: pathToURI(path)}}
		}
	}
	return nil
}

// namesFile are the directives whose argument is a file definition goes
// to.
var namesFile = map[string]bool{
	"ssl_certificate": true, "ssl_certificate_key": true, "ssl_trusted_certificate": true,
	"ssl_client_certificate": true, "auth_basic_user_file": true, "ssl_dhparam": true,
}

// locations are where directives' names are, each file indexed once.
func locations(ds []*parser.Directive) []protocol.Location {
	var out []protocol.Location
	fl := fileLines{}
	for _, d := range ds {
		out = append(out, location(fl, d))
	}
	return out
}

func location(fl fileLines, d *parser.Directive) protocol.Location {
	l := fl.of(d.File)
	return protocol.Location{URI: pathToURI(d.File.Path), Range: protocol.Range{Start: l.position(int(d.Start)), End: l.position(int(d.Start) + len(d.Name))}}
}

// sortLocations orders locations for stable answers.
func sortLocations(ls []protocol.Location) {
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
	path, to := loader.MapPath(a.opt.Maps, filepath.Clean(path))
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
