package lsp

import (
	"encoding/json"
	"path/filepath"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// handler answers one method from its params: the result of a request
// (nil for a notification), or the error to answer with.
type handler func(s *Server, params json.RawMessage) (any, *protocol.ResponseError)

// methods are the methods the server answers, by name.
var methods = map[string]handler{
	"initialize":                       initialize,
	"initialized":                      bare((*Server).initialized),
	"shutdown":                         bare((*Server).stop),
	"$/setTrace":                       ignore,
	"$/cancelRequest":                  ignore, // requests are answered in order, each quickly
	"workspace/didChangeConfiguration": ignore,
	"workspace/didChangeWatchedFiles":  bare((*Server).diskChanged),

	"textDocument/didOpen":   notification((*Server).open),
	"textDocument/didChange": notification((*Server).change),
	"textDocument/didSave":   notification((*Server).save),
	"textDocument/didClose":  notification((*Server).close),

	"textDocument/hover":          request((*Server).hover),
	"textDocument/completion":     request((*Server).completion),
	"textDocument/definition":     request((*Server).definition),
	"textDocument/references":     request((*Server).references),
	"textDocument/documentSymbol": request((*Server).symbols),
	"textDocument/codeAction":     request((*Server).codeActions),
	"textDocument/formatting":     failing((*Server).formatting),
}

// The params the handlers decode, under the names the invalid-params
// errors have always given them (encoding/json names the Go type).
type (
	initializeParams protocol.InitializeParams
	didOpenParams    protocol.DidOpenTextDocumentParams
	didChangeParams  protocol.DidChangeTextDocumentParams
	didSaveParams    protocol.DidSaveTextDocumentParams
	positionParams   protocol.TextDocumentPositionParams
	referenceParams  protocol.ReferenceParams
	codeActionParams protocol.CodeActionParams
	formattingParams protocol.DocumentFormattingParams
	// textDocumentParams are didClose's and documentSymbol's
	textDocumentParams = struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
	}
	textDocumentIdentifier protocol.TextDocumentIdentifier
)

func decode[T any](raw json.RawMessage) (T, *protocol.ResponseError) {
	var v T
	if len(raw) == 0 {
		return v, &protocol.ResponseError{Code: protocol.CodeInvalidParams, Message: "missing params"}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, &protocol.ResponseError{Code: protocol.CodeInvalidParams, Message: err.Error()}
	}
	return v, nil
}

// request answers a request with f's result for its params.
func request[P, R any](f func(*Server, P) R) handler {
	return func(s *Server, raw json.RawMessage) (any, *protocol.ResponseError) {
		p, err := decode[P](raw)
		if err != nil {
			return nil, err
		}
		return f(s, p), nil
	}
}

// failing answers a request with f's result or its error.
func failing[P, R any](f func(*Server, P) (R, *protocol.ResponseError)) handler {
	return func(s *Server, raw json.RawMessage) (any, *protocol.ResponseError) {
		p, err := decode[P](raw)
		if err != nil {
			return nil, err
		}
		return f(s, p)
	}
}

// notification hands a notification's params to f.
func notification[P any](f func(*Server, P)) handler {
	return func(s *Server, raw json.RawMessage) (any, *protocol.ResponseError) {
		p, err := decode[P](raw)
		if err != nil {
			return nil, err
		}
		f(s, p)
		return nil, nil
	}
}

// bare runs f for a method whose params the server does not read.
func bare(f func(*Server)) handler {
	return func(s *Server, _ json.RawMessage) (any, *protocol.ResponseError) {
		f(s)
		return nil, nil
	}
}

// ignore answers a method the server has nothing to do for.
func ignore(*Server, json.RawMessage) (any, *protocol.ResponseError) {
	return nil, nil
}

// capabilities are what the server answers.
var capabilities = protocol.ServerCapabilities{
	TextDocumentSync:           protocol.TextDocumentSyncOptions{OpenClose: true, Change: protocol.SyncFull, Save: protocol.SaveOptions{IncludeText: false}},
	HoverProvider:              true,
	CompletionProvider:         protocol.CompletionOptions{TriggerCharacters: []string{"$", "/", "@"}},
	DefinitionProvider:         true,
	ReferencesProvider:         true,
	DocumentSymbolProvider:     true,
	CodeActionProvider:         protocol.CodeActionOptions{CodeActionKinds: []string{protocol.QuickFix}},
	DocumentFormattingProvider: true,
}

// initialize starts the session: the workspace folder, and whether the
// client lets the server register the files it watches. Params it cannot
// read are taken as none.
func initialize(s *Server, raw json.RawMessage) (any, *protocol.ResponseError) {
	p, _ := decode[initializeParams](raw)
	s.mu.Lock()
	defer s.mu.Unlock()
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
	return protocol.InitializeResult{Capabilities: capabilities, ServerInfo: protocol.ServerInfo{Name: "nginxtune"}}, nil
}

// watchedFiles are what the server asks the client to watch: the files
// nginx configurations are made of, in the layouts nginxtune knows, and the
// settings file.
var watchedFiles = []protocol.FileSystemWatcher{
	{GlobPattern: "**/*.{conf,nginx,template}"},
	{GlobPattern: "**/{sites-available,sites-enabled,snippets,conf.d,default.d,templates}/**"},
	{GlobPattern: "**/mime.types"},
	{GlobPattern: "**/.nginxtune.yaml"},
}

// initialized registers the files to watch, when the client lets the
// server: a tree changed on disk (a checkout, another program, a file the
// editor has not opened) changes the open files' findings.
func (s *Server) initialized() {
	s.mu.Lock()
	watch := s.watch
	s.mu.Unlock()
	if !watch {
		return
	}
	s.conn.Request("nginxtune-watch", "client/registerCapability", protocol.RegistrationParams{
		Registrations: []protocol.Registration{{
			ID:              "nginxtune-watch",
			Method:          "workspace/didChangeWatchedFiles",
			RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: watchedFiles},
		}},
	})
}
