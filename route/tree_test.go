package route

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/nginxtune/nginxtune/loader"
)

// RequestParts.Set gives a request what the command line adds to its URL
// and names the malformed part.
func TestRequestPartsSet(t *testing.T) {
	r, _ := ParseRequest("http://a.test/x")
	err := RequestParts{HTTPVersion: "1.0", Method: "post", Headers: []string{"X-A: 1", "Host:b.test"}, Addr: "[::1]:8080", Client: "192.0.2.7"}.Set(&r)
	if err != nil || r.Proto != "HTTP/1.0" || r.Method != "POST" || r.Headers["x-a"] != "1" || r.Headers["host"] != "b.test" || r.Addr != "::1" || r.Port != 8080 || r.Client != "192.0.2.7" {
		t.Fatalf("%+v %v", r, err)
	}
	for _, p := range []RequestParts{{HTTPVersion: "2"}, {Method: "GE T"}, {Headers: []string{"novalue"}}, {Addr: "nohost"}, {Addr: "127.0.0.1:0"}, {Client: "x"}} {
		if err := p.Set(&r); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}

// RouteTree refuses a tree nginx would not load and one with no http
// server, and says what the tree could not show.
func TestRouteTree(t *testing.T) {
	load := func(conf string) *loader.Tree {
		t.Helper()
		tr, err := loader.LoadFS(fstest.MapFS{"nginx.conf": {Data: []byte(conf)}}, "nginx.conf", loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	req, _ := ParseRequest("http://a.test/")
	if _, err := RouteTree(load("events {}\nhttp { server { listen 80 }\n"), req, Options{}, nil); err == nil || !strings.Contains(err.Error(), "nginx would not load") {
		t.Errorf("a syntax error: %v", err)
	}
	if _, err := RouteTree(load("events {}\nstream {}\n"), req, Options{}, nil); !NoServers(err) {
		t.Errorf("no http server: %v", err)
	}
	res, err := RouteTree(load("events {}\nhttp { include missing.conf; server { listen 80; return 204; } }\n"), req, Options{}, nil)
	if err != nil || !strings.Contains(strings.Join(res.Unknown, "\n"), "missing.conf") {
		t.Errorf("a missing include: %+v %v", res, err)
	}
}
