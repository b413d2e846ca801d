package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/report"

	"github.com/nginxtune/nginxtune/format"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Settings gives the rules' configuration and the loader's options for a
// main file or a fragment, from its .nginxtune.yaml (the command line's
// reading of it).
type Settings func(path string) (engine.Config, parser.Options, error)

// Options configure a server.
type Options struct {
	Settings Settings
	// Delay is how long diagnostics wait for the next keystroke (default
	// 40 ms).
	Delay time.Duration
	// Log receives one line per failure nginxtune survived (stderr by
	// default).
	Log io.Writer
	// FmtSettings gives fmt's layout for a file from its .nginxtune.yaml,
	// nil when it sets none (the editor's tab settings are used then).
	FmtSettings func(path string) *format.Options
}

// document is an open buffer.
type document struct {
	uri     string
	path    string // real absolute path; "" for a buffer with no file
	given   string // the path the editor named (links not resolved)
	version int
	text    string
	gen     uint64 // bumped on every change
}

// analysis is a document linted inside its tree.
type analysis struct {
	gen   uint64
	full  bool // the rules ran (diags is set)
	text  string
	tree  *parser.Tree
	file  *parser.File // the document's file in the tree
	diags []finding.Diagnostic
	cfg   engine.Config
	ctx   []string // the context the document's top level is read in
	// opt are the options the tree was loaded with: its path maps, the
	// directories allowed outside it, whether it is the live one
	opt parser.Options
}

// Server is one language server session.
type Server struct {
	opt  Options
	conn *conn

	mu      sync.Mutex
	docs    map[string]*document // by URI
	results map[string]*analysis // by URI
	timers  map[string]*time.Timer
	gen     uint64
	root    string // the workspace folder, "" when none
	// watch is set when the client lets the server register the files it
	// watches (workspace/didChangeWatchedFiles)
	watch    bool
	initDone bool
	shutdown bool
	// analyzing serialises analyses: a tree is loaded by one at a time
	analyzing sync.Mutex
}

// Serve runs a server on in and out until the client exits or in ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opt Options) error {
	if opt.Delay == 0 {
		opt.Delay = 40 * time.Millisecond
	}
	if opt.Log == nil {
		opt.Log = os.Stderr
	}
	s := &Server{opt: opt, conn: &conn{w: out}, docs: map[string]*document{}, results: map[string]*analysis{}, timers: map[string]*time.Timer{}}
	r := bufio.NewReaderSize(in, 64<<10)
	defer func() {
		s.mu.Lock()
		s.shutdown = true
		for _, t := range s.timers {
			t.Stop()
		}
		s.mu.Unlock()
	}()
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		m, err := readMessage(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if m.Error != nil && m.Method == "" && m.ID == nil {
			s.conn.reply(nil, nil, m.Error) // a message that is not JSON
			continue
		}
		if m.Method == "exit" {
			return nil
		}
		s.handle(m)
	}
}

// handle answers one message; a panic in a handler is answered as an
// internal error and the server goes on.
func (s *Server) handle(m *message) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("internal error in %s: %v\n%s", m.Method, r, debug.Stack())
			if m.ID != nil {
				s.conn.reply(m.ID, nil, &rpcError{codeInternalError, fmt.Sprintf("nginxtune: internal error: %v", r)})
			}
		}
	}()
	if m.ID != nil && m.Method == "" {
		return // a response to a request of ours (none is sent)
	}
	result, rerr := s.dispatch(m)
	if m.ID != nil {
		s.conn.reply(m.ID, result, rerr)
	}
}

func decode[T any](raw json.RawMessage) (T, *rpcError) {
	var v T
	if len(raw) == 0 {
		return v, &rpcError{codeInvalidParams, "missing params"}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, &rpcError{codeInvalidParams, err.Error()}
	}
	return v, nil
}

func (s *Server) dispatch(m *message) (any, *rpcError) {
	s.mu.Lock()
	ready, down := s.initDone, s.shutdown
	s.mu.Unlock()
	if m.Method != "initialize" && !ready && m.ID != nil {
		return nil, &rpcError{codeNotInitialized, "initialize first"}
	}
	if down && m.ID != nil && m.Method != "shutdown" {
		return nil, &rpcError{codeInvalidRequest, "the server is shutting down"}
	}
	switch m.Method {
	case "initialize":
		p, _ := decode[initializeParams](m.Params)
		s.mu.Lock()
		s.initDone = true
		s.watch = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
		switch {
		case len(p.WorkspaceFolders) > 0:
			s.root, _ = uriToPath(p.WorkspaceFolders[0].URI)
		case p.RootURI != "":
			s.root, _ = uriToPath(p.RootURI)
		case p.RootPath != "":
			s.root = filepath.Clean(p.RootPath)
		}
		s.mu.Unlock()
		return map[string]any{
			"capabilities": map[string]any{
				"textDocumentSync":           map[string]any{"openClose": true, "change": 1, "save": map[string]any{"includeText": false}},
				"hoverProvider":              true,
				"completionProvider":         map[string]any{"triggerCharacters": []string{"$", "/", "@"}},
				"definitionProvider":         true,
				"referencesProvider":         true,
				"documentSymbolProvider":     true,
				"codeActionProvider":         map[string]any{"codeActionKinds": []string{"quickfix"}},
				"documentFormattingProvider": true,
			},
			"serverInfo": map[string]any{"name": "nginxtune"},
		}, nil
	case "initialized":
		s.mu.Lock()
		watch := s.watch
		s.mu.Unlock()
		if watch {
			// a tree changed on disk (a checkout, another program, a file
			// the editor has not opened) changes the open files' findings
			s.conn.request("nginxtune-watch", "client/registerCapability", map[string]any{
				"registrations": []any{map[string]any{
					"id":              "nginxtune-watch",
					"method":          "workspace/didChangeWatchedFiles",
					"registerOptions": map[string]any{"watchers": watchedFiles},
				}},
			})
		}
		return nil, nil
	case "workspace/didChangeWatchedFiles":
		s.diskChanged()
		return nil, nil
	case "$/setTrace", "workspace/didChangeConfiguration":
		return nil, nil
	case "$/cancelRequest":
		return nil, nil // requests are answered in order, each quickly
	case "shutdown":
		s.mu.Lock()
		s.shutdown = true
		for _, t := range s.timers {
			t.Stop()
		}
		s.mu.Unlock()
		return nil, nil
	case "textDocument/didOpen":
		p, err := decode[didOpenParams](m.Params)
		if err != nil {
			return nil, err
		}
		s.open(p.TextDocument)
		return nil, nil
	case "textDocument/didChange":
		p, err := decode[didChangeParams](m.Params)
		if err != nil {
			return nil, err
		}
		s.change(p)
		return nil, nil
	case "textDocument/didSave":
		p, err := decode[didSaveParams](m.Params)
		if err != nil {
			return nil, err
		}
		s.schedule(p.TextDocument.URI, 0)
		return nil, nil
	case "textDocument/didClose":
		p, err := decode[struct {
			TextDocument textDocumentIdentifier `json:"textDocument"`
		}](m.Params)
		if err != nil {
			return nil, err
		}
		s.close(p.TextDocument.URI)
		return nil, nil
	case "textDocument/hover":
		p, err := decode[positionParams](m.Params)
		if err != nil {
			return nil, err
		}
		return s.hover(p), nil
	case "textDocument/completion":
		p, err := decode[positionParams](m.Params)
		if err != nil {
			return nil, err
		}
		return s.completion(p), nil
	case "textDocument/definition":
		p, err := decode[positionParams](m.Params)
		if err != nil {
			return nil, err
		}
		return s.definition(p), nil
	case "textDocument/references":
		p, err := decode[referenceParams](m.Params)
		if err != nil {
			return nil, err
		}
		return s.references(p), nil
	case "textDocument/documentSymbol":
		p, err := decode[struct {
			TextDocument textDocumentIdentifier `json:"textDocument"`
		}](m.Params)
		if err != nil {
			return nil, err
		}
		return s.symbols(p.TextDocument.URI), nil
	case "textDocument/codeAction":
		p, err := decode[codeActionParams](m.Params)
		if err != nil {
			return nil, err
		}
		return s.codeActions(p), nil
	case "textDocument/formatting":
		p, err := decode[formattingParams](m.Params)
		if err != nil {
			return nil, err
		}
		return s.formatting(p)
	}
	if m.ID == nil {
		return nil, nil // notifications the server does not use
	}
	return nil, &rpcError{codeMethodNotFound, "nginxtune does not answer " + m.Method}
}

func (s *Server) open(item textDocumentItem) {
	d := &document{uri: item.URI, version: item.Version, text: item.Text}
	if p, ok := uriToPath(item.URI); ok {
		d.given = p
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		d.path = p
	}
	s.mu.Lock()
	s.gen++
	d.gen = s.gen
	s.docs[item.URI] = d
	s.mu.Unlock()
	s.schedule(item.URI, 0)
}

func (s *Server) change(p didChangeParams) {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.mu.Unlock()
		return
	}
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			d.text = c.Text
			continue
		}
		l := newLines(d.text)
		start, end := l.offset(c.Range.Start), l.offset(c.Range.End)
		if start > end {
			start, end = end, start
		}
		d.text = d.text[:start] + c.Text + d.text[end:]
	}
	d.version = p.TextDocument.Version
	s.gen++
	d.gen = s.gen
	// the other open files of the tree see this buffer too
	var others []string
	for uri := range s.docs {
		if uri != p.TextDocument.URI {
			others = append(others, uri)
		}
	}
	s.mu.Unlock()
	s.schedule(p.TextDocument.URI, s.opt.Delay)
	for _, uri := range others {
		s.schedule(uri, s.opt.Delay*4)
	}
}

// watchedFiles are what the server asks the client to watch: the files
// nginx configurations are made of, in the layouts nginxtune knows, and the
// settings file.
var watchedFiles = []map[string]any{
	{"globPattern": "**/*.{conf,nginx,template}"},
	{"globPattern": "**/{sites-available,sites-enabled,snippets,conf.d,default.d,templates}/**"},
	{"globPattern": "**/mime.types"},
	{"globPattern": "**/.nginxtune.yaml"},
}

// diskChanged lints every open document again: a file of its tree changed
// on disk. Each analysis made before is stale.
func (s *Server) diskChanged() {
	s.mu.Lock()
	var uris []string
	for uri, d := range s.docs {
		s.gen++
		d.gen = s.gen
		uris = append(uris, uri)
	}
	s.mu.Unlock()
	for _, uri := range uris {
		s.schedule(uri, s.opt.Delay)
	}
}

func (s *Server) close(uri string) {
	s.mu.Lock()
	delete(s.docs, uri)
	delete(s.results, uri)
	if t := s.timers[uri]; t != nil {
		t.Stop()
		delete(s.timers, uri)
	}
	s.mu.Unlock()
	s.conn.notify("textDocument/publishDiagnostics", map[string]any{"uri": uri, "diagnostics": []Diagnostic{}})
}

// schedule lints a document after a delay; a newer edit restarts the
// wait, and a result for an older text is never published.
func (s *Server) schedule(uri string, delay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown || s.docs[uri] == nil {
		return
	}
	if t := s.timers[uri]; t != nil {
		t.Stop()
	}
	var t *time.Timer
	t = time.AfterFunc(delay, func() {
		s.mu.Lock()
		current := s.timers[uri] == t && !s.shutdown
		s.mu.Unlock()
		if !current {
			return
		}
		a := s.analyze(uri, true)
		if a == nil {
			return
		}
		s.mu.Lock()
		d := s.docs[uri]
		fresh := d != nil && d.gen == a.gen && !s.shutdown
		s.mu.Unlock()
		if fresh {
			s.publish(uri, a)
		}
	})
	s.timers[uri] = t
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
	s.mu.Unlock()
	a := &analysis{gen: gen, text: text, full: full}
	if path == "" || !fileExists(path) {
		// a buffer with no file on disk: read it alone
		f, _ := parser.Parse("untitled", []byte(text))
		a.file = f
		a.tree = &parser.Tree{Roots: []*parser.File{f}, Files: []*parser.File{f}}
		f.Context = []string{"main"}
		a.ctx = f.Context
		s.store(uri, a)
		return a
	}
	// A file that is a link out of the workspace folder (else out of the
	// directory it was opened in) is read as lint reads it when named so:
	// parser.Load of the path as given, which refuses a link out of the
	// tree unless the tree is the live one. No nginx.conf is looked for
	// beside the link's target: its tree lies outside.
	main := ""
	if bound := realDir(root, given); boundedread.Within(path, bound) {
		if root != "" {
			root = bound
		}
		main = parser.NearestMain(path, root)
	} else {
		path = given
	}
	// the settings of the tree the buffer is linted in: the main file's
	// when it includes the buffer, else the buffer's own
	var tree *parser.Tree
	var cfg engine.Config
	var topt parser.Options
	if main != "" && main != path {
		mcfg, mopt, err := s.settings(main)
		if err != nil {
			s.logf("%s: %v", main, err)
		} else {
			mopt.Overlay = overlay
			if t, err := parser.Load(main, mopt); err == nil && t.File(path) != nil {
				tree, cfg, topt = t, mcfg, mopt
			}
		}
	}
	if tree == nil {
		fcfg, opt, err := s.settings(path)
		if err != nil {
			s.logf("%s: %v", path, err)
		}
		opt.Overlay = overlay
		cfg, topt = fcfg, opt
		t, err := parser.Load(path, opt)
		if err != nil {
			s.logf("%s: %v", path, err)
			f, _ := parser.Parse(path, []byte(text))
			t = &parser.Tree{Roots: []*parser.File{f}, Files: []*parser.File{f}}
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
		for _, dg := range s.safeRun(tree, cfg) {
			if dg.File == path || dg.Via == path {
				a.diags = append(a.diags, dg)
			}
		}
	}
	s.store(uri, a)
	return a
}

func (s *Server) store(uri string, a *analysis) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.results[uri]; old == nil || old.gen < a.gen || old.gen == a.gen && !old.full {
		s.results[uri] = a
	}
}

// safeRun runs the rules; a rule's panic costs its findings, not the
// server.
func (s *Server) safeRun(t *parser.Tree, cfg engine.Config) (out []finding.Diagnostic) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("internal error in the rules: %v", r)
			out = nil
		}
	}()
	return rules.Run(t, cfg)
}

// logf writes one line to the log, escaped: paths and messages come from
// the configuration and the editor.
func (s *Server) logf(format string, args ...any) {
	fmt.Fprintln(s.opt.Log, "nginxtune lsp:", report.Escape(fmt.Sprintf(format, args...)))
}

func (s *Server) settings(path string) (engine.Config, parser.Options, error) {
	if s.opt.Settings == nil {
		return engine.Config{}, parser.Options{}, nil
	}
	return s.opt.Settings(path)
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
// own, or that of the place that includes it first.
func fileContext(t *parser.Tree, f *parser.File) []string {
	if f == nil {
		return []string{"main"}
	}
	if f.Context != nil {
		return f.Context
	}
	var ctx []string
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if ctx != nil {
			return false
		}
		if d.File == f && d.Parent == nil {
			ctx = append([]string(nil), c.Names...)
			return false
		}
		return true
	})
	if ctx == nil {
		ctx = []string{"main"}
	}
	return ctx
}

func (s *Server) publish(uri string, a *analysis) {
	l := newLines(a.text)
	out := []Diagnostic{}
	for _, dg := range a.diags {
		out = append(out, s.toDiagnostic(dg, a, l))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Line < out[j].Range.Start.Line })
	s.conn.notify("textDocument/publishDiagnostics", map[string]any{"uri": uri, "diagnostics": out})
}

func (s *Server) toDiagnostic(dg finding.Diagnostic, a *analysis, l *lines) Diagnostic {
	start := l.position(dg.Offset)
	if dg.Offset == 0 && dg.Line > 1 {
		start = Position{Line: dg.Line - 1, Character: max(0, dg.Col-1)}
	}
	end := l.position(statementEnd(a.text, l.offset(start)))
	sev := 3
	switch dg.Severity {
	case finding.Error:
		sev = 1
	case finding.Warning:
		sev = 2
	}
	out := Diagnostic{Range: Range{start, end}, Severity: sev, Code: dg.Rule, Source: "nginxtune", Message: dg.Message}
	for _, r := range dg.Related {
		out.RelatedInformation = append(out.RelatedInformation, DiagnosticRelatedInformation{
			Location: Location{URI: pathToURI(r.File), Range: Range{Position{r.Line - 1, max(0, r.Col-1)}, Position{r.Line - 1, max(0, r.Col-1)}}},
			Message:  r.Message,
		})
	}
	return out
}
