package lsp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/nginxtune/nginxtune/format"
	"github.com/nginxtune/nginxtune/lint"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/lsp/protocol"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Options configure a server.
type Options struct {
	// Lint are the lint options every file's settings start from (the
	// command line's --nginx-version and --facts).
	Lint lint.Options
	// Delay is how long diagnostics wait for the next keystroke (default
	// 40 ms).
	Delay time.Duration
	// Log receives one line per failure nginxtune survived (stderr by
	// default).
	Log io.Writer
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

// Server is one language server session.
type Server struct {
	opt  Options
	conn *protocol.Conn

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
	// reuse keeps the parsed files of the last loads: an analysis parses
	// again only the files whose text changed
	reuse loader.Reuse
}

// Serve runs a server on in and out until the client exits or in ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opt Options) error {
	if opt.Delay == 0 {
		opt.Delay = 40 * time.Millisecond
	}
	if opt.Log == nil {
		opt.Log = os.Stderr
	}
	s := &Server{opt: opt, conn: protocol.NewConn(out), docs: map[string]*document{}, results: map[string]*analysis{}, timers: map[string]*time.Timer{}}
	r := bufio.NewReaderSize(in, 64<<10)
	defer s.stop()
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		m, err := protocol.ReadMessage(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if m.Error != nil && m.Method == "" && m.ID == nil {
			s.conn.Reply(nil, nil, m.Error) // a message that is not JSON
			continue
		}
		if m.Method == "exit" {
			return nil
		}
		s.handle(m)
	}
}

// stop ends the session's work: no document is linted after it.
func (s *Server) stop() {
	s.mu.Lock()
	s.shutdown = true
	for _, t := range s.timers {
		t.Stop()
	}
	s.mu.Unlock()
}

// handle answers one message; a panic in a handler is answered as an
// internal error and the server goes on.
func (s *Server) handle(m *protocol.Message) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("internal error in %s: %v\n%s", m.Method, r, debug.Stack())
			if m.ID != nil {
				s.conn.Reply(m.ID, nil, &protocol.ResponseError{Code: protocol.CodeInternalError, Message: fmt.Sprintf("nginxtune: internal error: %v", r)})
			}
		}
	}()
	if m.ID != nil && m.Method == "" {
		return // a response to a request of ours (none is sent)
	}
	result, rerr := s.dispatch(m)
	if m.ID != nil {
		s.conn.Reply(m.ID, result, rerr)
	}
}

// dispatch hands a message to its method's handler: a request before
// initialize or after shutdown is refused, a notification of a method the
// server does not know is dropped and such a request refused.
func (s *Server) dispatch(m *protocol.Message) (any, *protocol.ResponseError) {
	s.mu.Lock()
	ready, down := s.initDone, s.shutdown
	s.mu.Unlock()
	request := m.ID != nil
	switch {
	case request && !ready && m.Method != "initialize":
		return nil, &protocol.ResponseError{Code: protocol.CodeNotInitialized, Message: "initialize first"}
	case request && down && m.Method != "shutdown":
		return nil, &protocol.ResponseError{Code: protocol.CodeInvalidRequest, Message: "the server is shutting down"}
	}
	h, ok := methods[m.Method]
	switch {
	case ok:
		return h(s, m.Params)
	case request:
		return nil, &protocol.ResponseError{Code: protocol.CodeMethodNotFound, Message: "nginxtune does not answer " + m.Method}
	}
	return nil, nil // notifications the server does not use
}

// logf writes one line to the log, escaped: paths and messages come from
// the configuration and the editor.
func (s *Server) logf(format string, args ...any) {
	fmt.Fprintln(s.opt.Log, "nginxtune lsp:", escape(fmt.Sprintf(format, args...)))
}

func (s *Server) settings(path string) (engine.Config, loader.Options, error) {
	base := s.opt.Lint
	base.Stderr = s.opt.Log
	return lint.ForFile(path, base)
}

// fmtSettings reads fmt's layout from the settings the command line uses
// for this file (lint.FmtForFile).
func (s *Server) fmtSettings(path string) *format.Options {
	if path == "" {
		return nil
	}
	return lint.FmtForFile(path)
}
