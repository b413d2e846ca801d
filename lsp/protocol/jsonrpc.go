package protocol

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

// Message is one JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method only) or a response (ID and Result or Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *ResponseError  `json:"error,omitempty"`
}

// ResponseError is the error of a response.
type ResponseError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// JSON-RPC and LSP error codes.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeNotInitialized   = -32002
	CodeRequestCancelled = -32800
)

// MaxMessage bounds one message: an editor sends a buffer at most, and a
// configuration tree is at most 64 MiB.
const MaxMessage = 80 << 20

// ReadMessage reads one message framed by a Content-Length header. A body
// that is not JSON is a message with only Error set (a parse error to
// answer); a broken header is an error, and the end of the input io.EOF.
func ReadMessage(r *bufio.Reader) (*Message, error) {
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
			if err != nil || n < 0 || n > MaxMessage {
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
	var m Message
	if err := json.Unmarshal(body, &m); err != nil {
		return &Message{Error: &ResponseError{CodeParseError, err.Error()}}, nil
	}
	return &m, nil
}

// Conn writes messages, one at a time.
type Conn struct {
	mu sync.Mutex
	w  io.Writer
}

// NewConn writes messages to w.
func NewConn(w io.Writer) *Conn {
	return &Conn{w: w}
}

func (c *Conn) write(m *Message) error {
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

// Reply answers the request id with a result, or with rerr when it is set.
func (c *Conn) Reply(id json.RawMessage, result any, rerr *ResponseError) error {
	m := &Message{ID: id, Error: rerr}
	if rerr == nil {
		b, err := json.Marshal(result)
		if err != nil {
			return err
		}
		m.Result = b
	}
	return c.write(m)
}

// Request sends a request of the server's to the client; its answer is
// not waited for.
func (c *Conn) Request(id, method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	rid, _ := json.Marshal(id)
	return c.write(&Message{ID: rid, Method: method, Params: b})
}

// Notify sends a notification.
func (c *Conn) Notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(&Message{Method: method, Params: b})
}
