package protocol

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// ReadMessage reads a message by its Content-Length (the header's name in
// any case, other headers skipped); a body that is not JSON is a parse
// error to answer, and a header that is broken, missing or over
// MaxMessage an error; the input's end between messages is io.EOF.
func TestReadMessage(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("content-length: 37\r\nContent-Type: x\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"a"}` +
		"Content-Length: 5\r\n\r\n{oops"))
	m, err := ReadMessage(r)
	if err != nil || string(m.ID) != "1" || m.Method != "a" {
		t.Fatalf("first message: %+v %v", m, err)
	}
	m, err = ReadMessage(r)
	if err != nil || m.Error == nil || m.Error.Code != CodeParseError || m.Method != "" || m.ID != nil {
		t.Fatalf("a body that is not JSON: %+v %v", m, err)
	}
	if _, err := ReadMessage(r); err != io.EOF {
		t.Errorf("at the end: %v", err)
	}
	for _, in := range []string{
		"Content-Length: x\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n{}",
		"Content-Length: 83886081\r\n\r\n{}",
		"Content-Type: x\r\n\r\n{}",
		"no colon\r\n\r\n{}",
		"Content-Length: 10\r\n\r\n{}",
		"Content-Length: 2\r\n",
	} {
		if m, err := ReadMessage(bufio.NewReader(strings.NewReader(in))); err == nil || err == io.EOF {
			t.Errorf("%q: %+v %v, want an error", in, m, err)
		}
	}
}

// Conn frames each message with its length, marks it JSON-RPC 2.0, and
// answers with a result or an error, never both.
func TestConn(t *testing.T) {
	var b bytes.Buffer
	c := NewConn(&b)
	c.Reply([]byte("7"), []string{}, nil)
	c.Reply([]byte("8"), "ignored", &ResponseError{Code: CodeInvalidParams, Message: "bad"})
	c.Notify("n", PublishDiagnosticsParams{URI: "u", Diagnostics: []Diagnostic{}})
	c.Request("r1", "m", RegistrationParams{})
	want := frame(`{"jsonrpc":"2.0","id":7,"result":[]}`) +
		frame(`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"bad"}}`) +
		frame(`{"jsonrpc":"2.0","method":"n","params":{"diagnostics":[],"uri":"u"}}`) +
		frame(`{"jsonrpc":"2.0","id":"r1","method":"m","params":{"registrations":null}}`)
	if b.String() != want {
		t.Errorf("sent\n%q\nwant\n%q", b.String(), want)
	}
	r := bufio.NewReader(&b)
	for range 4 {
		if _, err := ReadMessage(r); err != nil {
			t.Fatal(err)
		}
	}
}

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}
