package lsp

// The open buffers: textDocument/didOpen, didChange, didSave, didClose and
// workspace/didChangeWatchedFiles, and the linting they schedule.

import (
	"path/filepath"
	"time"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// open keeps a buffer the editor opened and lints it.
func (s *Server) open(params didOpenParams) {
	item := params.TextDocument
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
	s.scheduleOthers(item.URI)
}

// change applies the editor's edits to a buffer and lints it after a
// pause, and the other open buffers after a longer one.
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
	s.mu.Unlock()
	s.schedule(p.TextDocument.URI, s.opt.Delay)
	s.scheduleOthers(p.TextDocument.URI)
}

// scheduleOthers lints the open buffers but uri's after a longer pause:
// they read uri's buffer in place of its file (or its file again, once it
// is closed), so what uri holds can change their findings.
func (s *Server) scheduleOthers(uri string) {
	s.mu.Lock()
	var others []string
	for o := range s.docs {
		if o != uri {
			others = append(others, o)
		}
	}
	s.mu.Unlock()
	for _, o := range others {
		s.schedule(o, s.opt.Delay*4)
	}
}

// save lints a buffer at once.
func (s *Server) save(p didSaveParams) {
	s.schedule(p.TextDocument.URI, 0)
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

// close forgets a buffer and clears its findings in the editor.
func (s *Server) close(p textDocumentParams) {
	uri := p.TextDocument.URI
	s.mu.Lock()
	delete(s.docs, uri)
	delete(s.results, uri)
	if t := s.timers[uri]; t != nil {
		t.Stop()
		delete(s.timers, uri)
	}
	s.mu.Unlock()
	s.conn.Notify("textDocument/publishDiagnostics", protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: []protocol.Diagnostic{}})
	// an unsaved buffer closed: the others read its file from disk again
	s.scheduleOthers(uri)
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
