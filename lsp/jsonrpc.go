// Package lsp is nginxtune's language server: the Language Server Protocol
// over standard input and output, answering from the same reader, rules,
// directive table and formatter as the command line.
//
// The protocol is written here rather than taken from a library: the part
// of it a configuration language needs (about fifteen messages) is small,
// and the Go libraries for it either stopped following the protocol
// (go.lsp.dev/protocol was last released in 2022) or bring a dependency
// tree of their own for logging and transports (github.com/tliron/glsp);
// gopls's protocol package is internal to gopls.
package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// message is one JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method only) or a response (ID and Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// JSON-RPC and LSP error codes.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeNotInitialized   = -32002
	codeRequestCancelled = -32800
)

// maxMessage bounds one message: an editor sends a buffer at most, and a
// configuration tree is at most 64 MiB.
const maxMessage = 80 << 20

// readMessage reads one message framed by a Content-Length header.
func readMessage(r *bufio.Reader) (*message, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && length < 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading a header: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("a header line without a colon: %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 || n > maxMessage {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("a message without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("reading a message body: %w", err)
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return &message{Error: &rpcError{codeParseError, err.Error()}}, nil
	}
	return &m, nil
}

// conn writes messages, one at a time.
type conn struct {
	mu sync.Mutex
	w  io.Writer
}

func (c *conn) write(m *message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
		return err
	}
	_, err = c.w.Write(b)
	return err
}

func (c *conn) reply(id json.RawMessage, result any, rerr *rpcError) error {
	m := &message{ID: id, Error: rerr}
	if rerr == nil {
		b, err := json.Marshal(result)
		if err != nil {
			return err
		}
		m.Result = b
	}
	return c.write(m)
}

// request sends a request of the server's to the client; its answer is
// not waited for (handle drops responses).
func (c *conn) request(id, method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	rid, _ := json.Marshal(id)
	return c.write(&message{ID: rid, Method: method, Params: b})
}

func (c *conn) notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(&message{Method: method, Params: b})
}
