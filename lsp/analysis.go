package lsp

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/lint"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// analysis is a document linted inside its tree.
type analysis struct {
	gen   uint64
	full  bool // the rules ran (diags is set)
	text  string
	tree  *loader.Tree
	file  *parser.File // the document's file in the tree
	diags []finding.Diagnostic
	cfg   engine.Config
	ctx   []string // the context the document's top level is read in
	// opt are the options the tree was loaded with: its path maps, the
	// directories allowed outside it, whether it is the live one
	opt loader.Options
	// inc is what the rules' run keeps for the next analysis of the
	// document (engine.RunIncremental): the rules rerun only where the
	// files that changed can move their findings
	inc *engine.Incremental
}

// current returns the analysis of a document's present text, making it
// when the last one is older: the tree only, or with the rules' findings
// when full is set. A hover or a completion reads the tree and does not
// wait for the rules.
func (s *Server) current(uri string, full bool) *analysis {
	s.mu.Lock()
	d := s.docs[uri]
	a := s.results[uri]
	s.mu.Unlock()
	if d == nil {
		return nil
	}
	if a != nil && a.gen == d.gen && (a.full || !full) {
		return a
	}
	return s.analyze(uri, full)
}

// analyze lints a document inside the tree that includes it: the nearest
// nginx.conf above it (not above the workspace folder) whose tree reads
// it, else the file alone, with every open buffer read in place of its
// file.
func (s *Server) analyze(uri string, full bool) *analysis {
	if full {
		s.analyzing.Lock()
		defer s.analyzing.Unlock()
	}
	s.mu.Lock()
	d := s.docs[uri]
	if d == nil {
		s.mu.Unlock()
		return nil
	}
	gen, text, path, given := d.gen, d.text, d.path, d.given
	overlay := map[string][]byte{}
	for _, o := range s.docs {
		if o.path != "" {
			overlay[o.path] = []byte(o.text)
		}
	}
	root := s.root
	var prev *engine.Incremental
	if old := s.results[uri]; old != nil && full {
		prev = old.inc
	}
	s.mu.Unlock()
	a := &analysis{gen: gen, text: text, full: full}
	if path == "" || !fileExists(path) {
		// a buffer with no file on disk: read it alone
		f, _ := parser.Parse("untitled", []byte(text))
		a.file = f
		a.tree = &loader.Tree{Roots: []*parser.File{f}, Files: []*parser.File{f}}
		f.Context = []string{"main"}
		a.ctx = f.Context
		s.store(uri, a)
		return a
	}
	// A file that is a link out of the workspace folder (else out of the
	// directory it was opened in) is read as lint reads it when named so:
	// loader.Load of the path as given, which refuses a link out of the
	// tree unless the tree is the live one. No nginx.conf is looked for
	// beside the link's target: its tree lies outside. Inside, the tree is
	// that of the nginx.conf that includes it, never above the same bound
	// (lint.IncludedBy), with the main file's settings.
	var tree *loader.Tree
	var cfg engine.Config
	var topt loader.Options
	var settingsErr error // the settings file could not be read: defaults used
	if bound := realDir(root, given); !boundedread.Within(path, bound) {
		path = given
	} else if _, t := lint.IncludedBy(path, bound, func(main string) (*loader.Tree, error) {
		var err error
		if cfg, topt, err = s.settings(main); err != nil {
			s.logf("%s: %v", main, err)
			settingsErr = err
			return nil, err
		}
		topt.Overlay, topt.Reuse = overlay, &s.reuse
		return loader.Load(main, topt)
	}); t != nil {
		tree = t
	}
	if tree == nil {
		fcfg, opt, err := s.settings(path)
		if err != nil {
			s.logf("%s: %v", path, err)
			settingsErr = err
		}
		opt.Overlay, opt.Reuse = overlay, &s.reuse
		cfg, topt = fcfg, opt
		t, err := loader.Load(path, opt)
		if err != nil {
			s.logf("%s: %v", path, err)
			f, _ := parser.Parse(path, []byte(text))
			t = &loader.Tree{Roots: []*parser.File{f}, Files: []*parser.File{f}}
			f.Context = []string{"main"}
		}
		tree = t
	}
	a.tree, a.cfg, a.opt = tree, cfg, topt
	a.file = tree.File(path)
	if a.file == nil && len(tree.Roots) > 0 {
		a.file = tree.Roots[0]
	}
	a.ctx = fileContext(tree, a.file)
	if full {
		var diags []finding.Diagnostic
		diags, a.inc = s.safeRun(tree, withOnly(cfg, tree, path), prev)
		for _, dg := range diags {
			if dg.File == path || dg.Via == path {
				a.diags = append(a.diags, dg)
			}
		}
		if settingsErr != nil {
			// said where the user looks, not only in the server's log:
			// the findings are then those of the default settings
			a.diags = append(a.diags, finding.Diagnostic{Rule: SettingsError, Severity: finding.Error, File: path, Line: 1, Col: 1, EndLine: 1,
				Message: fmt.Sprintf("the settings file could not be read, so this file is linted with the default settings: %v", settingsErr)})
		}
	}
	s.store(uri, a)
	return a
}

// SettingsError is the code of the finding that says a file's
// .nginxtune.yaml could not be read.
const SettingsError = "settings-file"

func (s *Server) store(uri string, a *analysis) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.results[uri]; old == nil || old.gen < a.gen || old.gen == a.gen && !old.full {
		s.results[uri] = a
	}
}

// findings are the rules' findings for the analysed text: those of a
// full analysis of the same text, none while the rules have not run.
func (s *Server) findings(uri string, a *analysis) []finding.Diagnostic {
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

// withOnly is cfg telling the rules which files' findings the document
// keeps (engine.Config.Only): its own, as named or read through a link. A
// run keeps for them exactly what a full run gives, and skips costly work
// for the rest.
func withOnly(cfg engine.Config, t *loader.Tree, path string) engine.Config {
	only := map[string]bool{path: true}
	for _, f := range t.Files {
		if f.Path == path || f.Via == path {
			only[f.Path] = true
		}
	}
	cfg.Only = only
	return cfg
}

// safeRun runs the rules, again only where the tree changed since the
// run that kept prev (engine.RunIncremental), and returns what the next
// run keeps; a rule's panic costs its findings, not the server.
func (s *Server) safeRun(t *loader.Tree, cfg engine.Config, prev *engine.Incremental) (out []finding.Diagnostic, next *engine.Incremental) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("internal error in the rules: %v", r)
			out, next = nil, nil
		}
	}()
	out, _, next = engine.RunIncremental(t, rules.All, cfg, prev)
	return out, next
}

// realDir is the directory a file the editor opened as given must lie in,
// its links resolved: the workspace folder root, else given's directory.
func realDir(root, given string) string {
	dir := root
	if dir == "" {
		dir = filepath.Dir(given)
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return dir
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// fileContext is the context a file's top level is read in: the root's
// own, or that of the place that includes it first (where a walk of the
// tree first meets one of its top-level directives).
func fileContext(t *loader.Tree, f *parser.File) []string {
	if f == nil {
		return []string{"main"}
	}
	if f.Context != nil {
		return f.Context
	}
	if len(f.Directives) > 0 {
		for _, r := range t.Roots {
			// the context names on one stack, pushed and popped: a walk
			// that builds a context per block allocated on every keystroke
			names := append([]string(nil), r.Context...)
			if ctx, ok := includedAt(r.Directives, f, &names); ok {
				return ctx
			}
		}
	}
	return []string{"main"}
}

// includedAt returns the context names of the first place below dirs,
// in the order nginx reads them, where an include reads f.
func includedAt(dirs []*parser.Directive, f *parser.File, names *[]string) ([]string, bool) {
	for _, d := range dirs {
		for _, inc := range d.Includes() {
			if inc == f {
				return append([]string(nil), *names...), true
			}
			if ctx, ok := includedAt(inc.Directives, f, names); ok {
				return ctx, true
			}
		}
		if d.Block == nil || parser.IsDataBlock(d.Name) {
			continue
		}
		*names = append(*names, d.Name)
		ctx, ok := includedAt(d.Block, f, names)
		*names = (*names)[:len(*names)-1]
		if ok {
			return ctx, true
		}
	}
	return nil, false
}
