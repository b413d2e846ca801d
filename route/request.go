package route

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Request is what a client sends, as far as routing depends on it.
type Request struct {
	Scheme string // "http" or "https"
	// Host is the Host header as sent; HasHost is false for a request
	// without one (HTTP/1.0).
	Host    string
	HasHost bool
	// Proto is "HTTP/1.0" or "HTTP/1.1" ("" is HTTP/1.1): nginx refuses
	// an HTTP/1.1 request without a Host header.
	Proto string
	// Addr is the local address the connection arrives at ("" when not
	// known: the URL named a host name) and Port its port.
	Addr string
	Port int
	// Client is the client's address, for allow and deny ("" unknown).
	Client string
	Method string
	// Target is the request target as sent: path and query, undecoded.
	Target  string
	Headers map[string]string // lower-case names
}

// ParseRequest reads "http://host[:port]/path?query", "host/path" (http)
// or "/path" (no Host header).
func ParseRequest(s string) (Request, error) {
	r := Request{Scheme: "http", Method: "GET", Headers: map[string]string{}}
	rest := s
	switch {
	case strings.HasPrefix(strings.ToLower(s), "http://"):
		rest = s[7:]
	case strings.HasPrefix(strings.ToLower(s), "https://"):
		r.Scheme, rest = "https", s[8:]
	case strings.HasPrefix(s, "/"):
		r.Target = s
		r.Port = 80
		return r, nil
	case strings.Contains(s, "://"):
		return r, fmt.Errorf("%q: only http:// and https:// URLs", s)
	}
	authority, target := rest, "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, target = rest[:i], rest[i:]
		if target[0] == '?' {
			target = "/" + target
		}
	}
	if authority == "" {
		return r, fmt.Errorf("%q: no host", s)
	}
	if strings.Contains(authority, "@") {
		return r, fmt.Errorf("%q: user information in the URL is not sent to nginx; give the Authorization header with --header", s)
	}
	r.Target = target
	r.Host, r.HasHost = authority, true
	host, port := splitHostPort(authority)
	r.Port = 80
	if r.Scheme == "https" {
		r.Port = 443
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return r, fmt.Errorf("%q: bad port %q", s, port)
		}
		r.Port = n
	}
	if ip := net.ParseIP(host); ip != nil {
		r.Addr = ip.String()
	}
	return r, nil
}

// splitHostPort splits "host:port", "[v6]:port", "host", "[v6]".
func splitHostPort(a string) (host, port string) {
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return a, ""
		}
		host = a[1:end]
		if rest := a[end+1:]; strings.HasPrefix(rest, ":") {
			port = rest[1:]
		}
		return host, port
	}
	if h, p, ok := strings.Cut(a, ":"); ok && !strings.Contains(p, ":") {
		return h, p
	}
	return a, ""
}

// errBadRequest is a request nginx answers 400 before any server's
// configuration applies.
var errBadRequest = errors.New("bad request")

// HostAccepted reports whether nginx takes h as a Host header rather than
// answering 400 before any server's configuration applies.
func HostAccepted(h string) bool {
	_, ok := hostName(h)
	return ok
}

// hostName is the Host header as nginx compares it with server_name
// (ngx_http_validate_host): the port cut off, a trailing dot dropped,
// lower case. ok is false when nginx answers 400 for it.
func hostName(h string) (string, bool) {
	if h == "" {
		return "", true
	}
	host := h
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", false
		}
		host = h[:end+1]
	} else if i := strings.IndexByte(h, ':'); i >= 0 {
		host = h[:i]
	}
	host = strings.TrimSuffix(host, ".")
	if host == "" || strings.HasPrefix(host, ".") || strings.Contains(host, "..") || strings.ContainsAny(host, "/\\\x00") {
		return "", false
	}
	return strings.ToLower(host), true
}

// normalize turns a request target into the URI nginx matches locations
// against and the arguments, as ngx_http_parse_complex_uri does: %XX
// decoded (a decoded "/" or "." then counts as one), "." and ".."
// segments resolved, slashes merged when merge is set. An error means
// nginx answers 400.
func normalize(target string, merge bool) (uri, args string, err error) {
	if !strings.HasPrefix(target, "/") {
		return "", "", errBadRequest
	}
	raw := target
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		if raw[i] == '?' {
			args = raw[i+1:]
		}
		raw = raw[:i]
	}
	// decode; "%25", "%23" and "%3F" stay plain characters, but nothing
	// else decoded differs from the character written
	dec := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		ch := raw[i]
		if ch == '%' {
			if i+2 >= len(raw) || unhex(raw[i+1]) < 0 || unhex(raw[i+2]) < 0 {
				return "", "", errBadRequest
			}
			ch = byte(unhex(raw[i+1])<<4 | unhex(raw[i+2]))
			if ch == 0 {
				return "", "", errBadRequest
			}
			i += 2
		}
		dec = append(dec, ch)
	}
	segs := strings.Split(string(dec), "/")[1:]
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
			continue
		case "..":
			// drop the segment before (an empty one when slashes are
			// not merged: "//.." goes back to "/")
			if len(out) == 0 {
				return "", "", errBadRequest
			}
			out = out[:len(out)-1]
			if last {
				out = append(out, "")
			}
			continue
		case "":
			if merge && !last && (len(out) > 0 || i == 0) {
				continue
			}
		}
		out = append(out, s)
	}
	uri = "/" + strings.Join(out, "/")
	if merge {
		for strings.Contains(uri, "//") {
			uri = strings.ReplaceAll(uri, "//", "/")
		}
	}
	return uri, args, nil
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// RequestParts are what a request carries beside its URL, as a user gives
// them: "" or nil leaves a part as ParseRequest set it.
type RequestParts struct {
	HTTPVersion string   // "1.0" or "1.1"
	Method      string   // a method name
	Headers     []string // "Name: value"
	Addr        string   // the local address: IP or IP:PORT
	Client      string   // the client's IP address
}

// Set gives r the parts, or says which one is malformed.
func (p RequestParts) Set(r *Request) error {
	switch p.HTTPVersion {
	case "":
	case "1.0", "1.1":
		r.Proto = "HTTP/" + p.HTTPVersion
	default:
		return fmt.Errorf("--http-version %q: want 1.0 or 1.1", p.HTTPVersion)
	}
	if p.Method != "" {
		r.Method = strings.ToUpper(p.Method)
		if strings.ContainsAny(r.Method, " \t\r\n") {
			return fmt.Errorf("--method %q: want a method name such as GET", p.Method)
		}
	}
	for _, h := range p.Headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("--header %q: want NAME:VALUE", h)
		}
		r.Headers[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if p.Addr != "" {
		host, port := p.Addr, ""
		if h, pt, err := net.SplitHostPort(p.Addr); err == nil {
			host, port = h, pt
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		if ip == nil {
			return fmt.Errorf("--addr %q: want IP or IP:PORT", p.Addr)
		}
		r.Addr = ip.String()
		if port != "" {
			n, err := strconv.Atoi(port)
			if err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("--addr %q: bad port", p.Addr)
			}
			r.Port = n
		}
	}
	if p.Client != "" {
		ip := net.ParseIP(p.Client)
		if ip == nil {
			return fmt.Errorf("--client %q: want an IP address", p.Client)
		}
		r.Client = ip.String()
	}
	return nil
}
