package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// frame frames a message's JSON as a client sends it.
func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// The answers once written from maps are the same bytes from their
// structs: the capabilities, the watchers' registration and the empty
// findings of a closed document, byte for byte as before (encoding/json
// wrote a map's keys sorted).
func TestWireBytes(t *testing.T) {
	in := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}}}`) +
		frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`) +
		frame(`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"untitled:1"}}}`) +
		frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) +
		frame(`{"jsonrpc":"2.0","method":"exit"}`)
	var out bytes.Buffer
	if err := Serve(context.Background(), strings.NewReader(in), &out, Options{Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	want := frame(`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"codeActionProvider":{"codeActionKinds":["quickfix"]},"completionProvider":{"triggerCharacters":["$","/","@"]},"definitionProvider":true,"documentFormattingProvider":true,"documentSymbolProvider":true,"hoverProvider":true,"referencesProvider":true,"textDocumentSync":{"change":1,"openClose":true,"save":{"includeText":false}}},"serverInfo":{"name":"nginxtune"}}}`) +
		frame(`{"jsonrpc":"2.0","id":"nginxtune-watch","method":"client/registerCapability","params":{"registrations":[{"id":"nginxtune-watch","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":[{"globPattern":"**/*.{conf,nginx,template}"},{"globPattern":"**/{sites-available,sites-enabled,snippets,conf.d,default.d,templates}/**"},{"globPattern":"**/mime.types"},{"globPattern":"**/.nginxtune.yaml"}]}}]}}`) +
		frame(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"diagnostics":[],"uri":"untitled:1"}}`) +
		frame(`{"jsonrpc":"2.0","id":2,"result":null}`)
	if out.String() != want {
		t.Errorf("sent\n%s\nwant\n%s", out.String(), want)
	}
}

// Each capability the server announces has its method in the table.
func TestCapabilitiesAnswered(t *testing.T) {
	b, _ := json.Marshal(capabilities)
	var caps map[string]any
	json.Unmarshal(b, &caps)
	method := map[string]string{
		"codeActionProvider":         "textDocument/codeAction",
		"completionProvider":         "textDocument/completion",
		"definitionProvider":         "textDocument/definition",
		"documentFormattingProvider": "textDocument/formatting",
		"documentSymbolProvider":     "textDocument/documentSymbol",
		"hoverProvider":              "textDocument/hover",
		"referencesProvider":         "textDocument/references",
		"textDocumentSync":           "textDocument/didOpen",
	}
	for c := range caps {
		if m, ok := method[c]; !ok || methods[m] == nil {
			t.Errorf("capability %s: no method answers it", c)
		}
	}
	for _, m := range []string{"textDocument/didChange", "textDocument/didSave", "textDocument/didClose", "initialize", "shutdown"} {
		if methods[m] == nil {
			t.Errorf("no handler for %s", m)
		}
	}
}

// A request before initialize and one after shutdown are refused, an
// unknown request answered as such and an unknown notification dropped.
func TestDispatchGuards(t *testing.T) {
	s := newServer(t)
	s.initDone = false
	id := json.RawMessage("1")
	for _, c := range []struct {
		method string
		id     json.RawMessage
		code   int
	}{
		{"textDocument/hover", id, protocol.CodeNotInitialized},
		{"textDocument/hover", nil, 0},
		{"initialize", id, 0},
		{"workspace/unknown", id, protocol.CodeMethodNotFound},
		{"workspace/unknown", nil, 0},
		{"shutdown", id, 0},
		{"textDocument/hover", id, protocol.CodeInvalidRequest},
		{"shutdown", id, 0},
	} {
		_, err := s.dispatch(&protocol.Message{ID: c.id, Method: c.method, Params: json.RawMessage(`{}`)})
		got := 0
		if err != nil {
			got = err.Code
		}
		if got != c.code {
			t.Errorf("%s (id %s): %+v, want code %d", c.method, c.id, err, c.code)
		}
	}
}
