// Package nginxserve serves a copy of a configuration tree with real nginx
// on loopback, instrumented so that every answer says which server and
// location gave it, and asks it requests: the kit of the tests that check
// route and diff against nginx itself. The copy is instrumented without
// moving a line: every server sets a variable to its own file:line and
// adds an X-Route header, every location (and every if block in one) adds
// X-Route with the server's variable and its own file:line, all on the
// same line as the block's "{".
package nginxserve

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// Request is what Ask sends.
type Request struct {
	Scheme  string
	Addr    string
	Port    int
	Method  string
	Target  string
	Proto   string // "" is HTTP/1.1
	Host    string
	HasHost bool
	SNI     string // the TLS server name for https
	Headers map[string]string
}

// Answer is what nginx said: a closed connection, or the status, the
// server and location X-Route names, the Location header and the URI a
// test backend received (X-Upstream-URI).
type Answer struct {
	Closed   bool
	Status   int
	Server   string
	Location string
	Redirect string
	Upstream string
}

func (a Answer) String() string {
	if a.Closed {
		return "closed"
	}
	return fmt.Sprintf("%d server=%s location=%s", a.Status, a.Server, a.Location)
}

func hasListen(body []*parser.Directive) bool {
	for _, d := range body {
		if d.Name == "listen" {
			return true
		}
	}
	return false
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

func applyEdits(src []byte, edits []edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// sameLines pads text with the newlines of the text it replaces.
func sameLines(text, old string) string {
	return text + strings.Repeat("\n", strings.Count(old, "\n"))
}

// Instrumenter rewrites a copied tree so that nginx can serve it on
// loopback and says which blocks answered.
type Instrumenter struct {
	Dir       string
	Ports     map[int]int    // original port -> loopback port
	IPs       map[string]int // original specific address -> 127.0.0.N
	Upstreams map[string]bool
	NextIP    int
	FreePort  func() int
	// ParseListen reads a listen directive's address (route's reading)
	ParseListen func(*parser.Directive) (Listen, bool)
	// Backend is the address every proxy_pass host and upstream server
	// is pointed at: "" for a closed loopback port (nginx answers 502 at
	// once), or an HTTP server of the test's that says what it received.
	// The other *_pass (FastCGI, uwsgi, ...) get the closed port: an
	// HTTP server does not speak their protocols
	Backend string
	sockets int
	caches  int
	// notHTTP are upstreams a *_pass other than proxy_pass names
	notHTTP map[string]bool
}

// Listen is a listen directive's address as ParseListen reads it.
type Listen struct {
	Unix         string
	IP           string // "" for a wildcard
	V6           bool
	Port         int
	Default, SSL bool
	Implicit     bool
}

func (in *Instrumenter) backendAddr() string {
	if in.Backend == "" {
		return "127.0.0.1:1"
	}
	return in.Backend
}

var stockIncludes = map[string]bool{
	"mime.types": true, "fastcgi_params": true, "fastcgi.conf": true, "scgi_params": true, "uwsgi_params": true,
}

// writePaths are directives whose first argument is a path nginx writes
// to; the copy points them into the prefix.
var writePaths = map[string]bool{
	"client_body_temp_path": true, "proxy_temp_path": true, "fastcgi_temp_path": true,
	"uwsgi_temp_path": true, "scgi_temp_path": true, "proxy_cache_path": true,
	"fastcgi_cache_path": true, "uwsgi_cache_path": true, "scgi_cache_path": true,
}

// Loopback is the loopback address the copy listens on for l.
func (in *Instrumenter) Loopback(l Listen) string {
	p, ok := in.Ports[l.Port]
	if !ok {
		p = in.FreePort()
		in.Ports[l.Port] = p
	}
	ip := "127.0.0.1"
	if l.IP != "" {
		n, ok := in.IPs[l.IP]
		if !ok {
			in.NextIP++
			n = in.NextIP
			in.IPs[l.IP] = n
		}
		ip = "127.0.0." + strconv.Itoa(n)
	}
	return ip + ":" + strconv.Itoa(p)
}

// Instrument returns the new text of every file of the tree inside dir.
func (in *Instrumenter) Instrument(t *loader.Tree) map[*parser.File][]byte {
	edits := map[*parser.File][]edit{}
	done := map[*parser.Directive]bool{}
	rel := func(f *parser.File) string {
		r, _ := filepath.Rel(in.Dir, f.Path)
		return r
	}
	replace := func(d *parser.Directive, text string) {
		edits[d.File] = append(edits[d.File], edit{int(d.Start), int(d.End), sameLines(text, d.Text())})
	}
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if done[d] {
			return true // a file included twice: edited once
		}
		done[d] = true
		parent := c.In()
		id := rel(d.File) + ":" + strconv.Itoa(int(d.Line))
		loc := ""
		if l := c.Enclosing("location"); l != nil {
			loc = rel(l.File) + ":" + strconv.Itoa(int(l.Line))
		}
		switch d.Name {
		case "user", "pid", "daemon", "master_process", "error_log", "lock_file", "load_module", "env",
			"ssl_dhparam", "ssl_crl", "ssl_stapling_file", "ssl_password_file", "ssl_session_ticket_key",
			"ssl_stapling", "ssl_stapling_verify", "worker_processes":
			replace(d, "")
			return false
		case "access_log":
			replace(d, "access_log off;")
			return false
		case "ssl_certificate", "ssl_trusted_certificate", "ssl_client_certificate":
			replace(d, d.Name+" "+filepath.Join(in.Dir, "cert.pem")+";")
			return false
		case "ssl_certificate_key":
			replace(d, d.Name+" "+filepath.Join(in.Dir, "key.pem")+";")
			return false
		case "resolver":
			replace(d, "resolver 127.0.0.1:1 ipv6=off;")
			return false
		case "include":
			base := filepath.Base(d.Arg(0))
			if stockIncludes[base] {
				replace(d, "include "+base+";")
				return false
			}
			if len(d.Includes()) == 0 {
				replace(d, "") // missing from the copy
				return false
			}
			return true
		case "listen":
			if parent != "server" || !c.Has("http") {
				break
			}
			l, ok := in.ParseListen(d)
			if !ok {
				break
			}
			var addr string
			switch {
			case l.Unix != "":
				in.sockets++
				addr = "unix:" + filepath.Join(in.Dir, "s"+strconv.Itoa(in.sockets)+".sock")
			case l.V6:
				in.sockets++
				addr = "unix:" + filepath.Join(in.Dir, "v6-"+strconv.Itoa(in.sockets)+".sock")
			default:
				addr = in.Loopback(l)
			}
			text := "listen " + addr
			if l.Default {
				text += " default_server"
			}
			if l.SSL {
				text += " ssl"
			}
			for _, a := range d.Args[1:] {
				if a.Value == "http2" {
					text += " http2"
				}
			}
			replace(d, text+";")
			return false
		case "server":
			if parent == "upstream" {
				addr := in.backendAddr()
				if u := c.Enclosing("upstream"); u != nil && in.notHTTP[u.Arg(0)] {
					addr = "127.0.0.1:1" // FastCGI, uwsgi, ...: not the HTTP backend's
				}
				replace(d, "server "+addr+";")
				return false
			}
		case "proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "memcached_pass":
			if tg := in.backend(d.Name, d.Arg(0)); tg != d.Arg(0) {
				replace(d, d.Name+" "+tg+";")
				return false
			}
		case "error_page":
			var keep []string
			args := d.ArgValues()
			for _, a := range args[:max(0, len(args)-1)] {
				if n, err := strconv.Atoi(a); err == nil && n >= 500 && n <= 599 {
					continue
				}
				keep = append(keep, a)
			}
			if len(keep) != len(args)-1 {
				if len(keep) == 0 || strings.HasPrefix(keep[len(keep)-1], "=") && len(keep) == 1 {
					replace(d, "")
				} else {
					replace(d, "error_page "+strings.Join(rawOf(d, keep), " ")+" "+d.Args[len(d.Args)-1].Raw+";")
				}
				return false
			}
		}
		if writePaths[d.Name] && len(d.Args) > 0 {
			in.caches++
			a := d.Args[0]
			edits[d.File] = append(edits[d.File], edit{int(a.Offset), int(a.Offset) + len(a.Raw), filepath.Join(in.Dir, "w"+strconv.Itoa(in.caches))})
		}
		if d.Block == nil || parser.IsDataBlock(d.Name) {
			return true
		}
		open := int(d.BlockOpen) + 1
		switch {
		case d.Name == "http":
			// a stub certificate for servers whose own the copy dropped
			// (a second ssl_certificate at a level is allowed)
			edits[d.File] = append(edits[d.File], edit{open, open, fmt.Sprintf(" ssl_certificate %s; ssl_certificate_key %s;", filepath.Join(in.Dir, "cert.pem"), filepath.Join(in.Dir, "key.pem"))})
		case d.Name == "server" && parent == "http":
			text := fmt.Sprintf(` set $nginxtune_srv "%s"; add_header X-Route "$nginxtune_srv|-" always;`, id)
			if !hasListen(parser.Level(d.Block)) {
				// nginx would bind *:80 for it: the copy binds loopback
				text += " listen " + in.Loopback(Listen{Port: 80}) + ";"
			}
			edits[d.File] = append(edits[d.File], edit{open, open, text})
		case d.Name == "location":
			edits[d.File] = append(edits[d.File], edit{open, open, fmt.Sprintf(` add_header X-Route "$nginxtune_srv|%s" always;`, id)})
		case d.Name == "if" && loc != "":
			edits[d.File] = append(edits[d.File], edit{open, open, fmt.Sprintf(` add_header X-Route "$nginxtune_srv|%s" always;`, loc)})
		}
		return true
	})
	out := map[*parser.File][]byte{}
	for _, f := range t.Files {
		out[f] = applyEdits(f.Src, edits[f])
	}
	return out
}

func rawOf(d *parser.Directive, values []string) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		for _, a := range d.Args {
			if a.Value == v {
				out = append(out, a.Raw)
				break
			}
		}
	}
	return out
}

// backend points a proxy_pass (or fastcgi_pass, ...) that names a host at
// Backend (proxy_pass) or a closed loopback port, so nginx starts without
// resolving it and answers at once; upstream names and unix sockets stay.
func (in *Instrumenter) backend(directive, target string) string {
	if strings.Contains(target, "$") || strings.HasPrefix(target, "unix:") {
		return target
	}
	scheme, rest := "", target
	if i := strings.Index(target, "://"); i >= 0 {
		scheme, rest = target[:i+3], target[i+3:]
	}
	if strings.HasPrefix(rest, "unix:") {
		return target
	}
	hostport, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		hostport, path = rest[:i], rest[i:]
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if in.Upstreams[host] {
		return target
	}
	if directive != "proxy_pass" {
		return scheme + "127.0.0.1:1" + path
	}
	return scheme + in.backendAddr() + path
}

// Ask sends one request to nginx and reads the status, X-Route, the
// Location header and the X-Upstream-URI a test backend sets.
func Ask(r Request) (Answer, bool) {
	addr := net.JoinHostPort(r.Addr, strconv.Itoa(r.Port))
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return Answer{}, false
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hang guard
	var c net.Conn = conn
	if r.Scheme == "https" {
		tc := tls.Client(conn, &tls.Config{ServerName: r.SNI, InsecureSkipVerify: true})
		if err := tc.Handshake(); err != nil {
			if strings.Contains(err.Error(), "protocol version") || strings.Contains(err.Error(), "handshake failure") && !strings.Contains(err.Error(), "unrecognized name") {
				// the server's protocols or ciphers and this client's
				// do not meet: nothing route decides
				return Answer{}, false
			}
			return Answer{Closed: true}, true
		}
		c = tc
	}
	var b strings.Builder
	proto := r.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	fmt.Fprintf(&b, "%s %s %s\r\n", r.Method, r.Target, proto)
	if r.HasHost {
		fmt.Fprintf(&b, "Host: %s\r\n", r.Host)
	}
	for k, v := range r.Headers {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("Connection: close\r\nContent-Length: 0\r\n\r\n")
	if _, err := c.Write([]byte(b.String())); err != nil {
		return Answer{}, false
	}
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		if line == "" {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return Answer{}, false
			}
			return Answer{Closed: true}, true
		}
		return Answer{}, false
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return Answer{}, false
	}
	a := Answer{Location: "?"}
	a.Status, _ = strconv.Atoi(f[1])
	for {
		h, err := br.ReadString('\n')
		if err != nil || h == "\r\n" {
			break
		}
		k, v, _ := strings.Cut(h, ":")
		switch {
		case strings.EqualFold(k, "Location"):
			a.Redirect = strings.TrimSpace(v)
		case strings.EqualFold(k, "X-Upstream-URI"):
			a.Upstream = strings.TrimSpace(v)
		}
		if strings.EqualFold(k, "X-Route") {
			a.Server, a.Location, _ = strings.Cut(strings.TrimSpace(v), "|")
		}
	}
	if a.Location == "?" {
		// no header: a response nginx makes before any configuration
		// applies, or from a location the copy could not mark
		return Answer{}, false
	}
	return a, true
}

// Copy writes files (path relative to dir -> content) into dir, with a
// self-signed certificate and nginx's stock files beside them.
func Copy(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, b := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	nginxtest.WriteSelfSigned(t, dir)
	nginxcheck.StockFiles(dir)
}

// Prepare loads the copy's nginx.conf, collects its upstream names,
// instruments it in place and has nginx test it. It returns why the copy
// cannot be served ("" when it can): the tree does not load, has no TCP
// listen, or nginx -t refuses the copy.
func (in *Instrumenter) Prepare(t testing.TB, bin string) string {
	t.Helper()
	orig, err := loader.Load(filepath.Join(in.Dir, "nginx.conf"), loader.Options{})
	if err != nil {
		return "does not load: " + err.Error()
	}
	in.notHTTP = map[string]bool{}
	orig.Walk(func(d *parser.Directive, c *parser.Context) bool {
		switch d.Name {
		case "upstream":
			if len(d.Args) == 1 {
				in.Upstreams[d.Arg(0)] = true
			}
		case "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "memcached_pass":
			host := d.Arg(0)
			if i := strings.Index(host, "://"); i >= 0 {
				host = host[i+3:]
			}
			host, _, _ = strings.Cut(host, "/")
			in.notHTTP[host] = true
		}
		return true
	})
	for f, b := range in.Instrument(orig) {
		rel, err := filepath.Rel(in.Dir, f.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		if err := os.WriteFile(f.Path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(in.Ports) == 0 {
		return "no TCP listen"
	}
	if r := nginxtest.Run(t, bin, in.Dir, filepath.Join(in.Dir, "nginx.conf")); !r.OK {
		why := r.Message
		if why == "" {
			why = firstLine(r.Output)
		}
		return "nginx -t refuses the copy: " + why
	}
	return ""
}

// Start serves the copy in dir with real nginx until the test ends (its
// process group stopped then) and waits until it listens on every one of
// addrs: nginx binds one address after another.
func Start(t testing.TB, dir string, addrs []string) {
	t.Helper()
	if len(addrs) == 0 {
		t.Fatal("no address to serve on")
	}
	nginxtest.Serve(t, dir, filepath.Join(dir, "nginx.conf"), addrs[len(addrs)-1])
	// a hang guard, not a measure
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range addrs {
		for {
			c, err := net.DialTimeout("tcp", a, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("nginx does not listen on %s: %v", a, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "] "); i >= 0 {
		s = s[i+2:]
	}
	return s
}

// CorpusTree is a servable tree made of one corpus file: files by path
// relative to the prefix, nginx.conf the main file.
type CorpusTree struct {
	Name  string
	Files map[string][]byte
}

// CorpusTrees builds servable trees from corpus files nginx accepted: a
// main file as it is, an http fragment inside http, a server fragment
// inside a server.
func CorpusTrees(t testing.TB, corpusDir string, limit int) []CorpusTree {
	var rows []nginxtest.Verdict
	for _, v := range nginxtest.CorpusVerdicts(t, corpusDir) {
		switch {
		case !v.OK:
		case v.Wrap == "", v.Wrap == "http", v.Wrap == "server":
			rows = append(rows, v)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Path < rows[j].Path })
	var out []CorpusTree
	for _, r := range rows {
		b, err := os.ReadFile(filepath.Join(corpusDir, r.Path))
		if err != nil {
			continue
		}
		src := string(b)
		if r.Wrap != "server" && !strings.Contains(src, "server") {
			continue
		}
		if r.Wrap == "server" && !strings.Contains(src, "location") {
			continue
		}
		files := map[string][]byte{}
		switch r.Wrap {
		case "":
			if !strings.Contains(src, "http") {
				continue
			}
			files["nginx.conf"] = b
		case "http":
			files["site.conf"] = b
			files["nginx.conf"] = []byte("events {}\nhttp {\n    include site.conf;\n}\n")
		case "server":
			files["site.conf"] = b
			files["nginx.conf"] = []byte("events {}\nhttp {\n    server {\n        listen 80;\n        server_name wrapped.test;\n        include site.conf;\n    }\n}\n")
		}
		out = append(out, CorpusTree{Name: r.Path, Files: files})
	}
	if limit > 0 && len(out) > limit {
		// an even spread over the sorted list: every project is sampled
		step := float64(len(out)) / float64(limit)
		var picked []CorpusTree
		for i := 0; i < limit; i++ {
			picked = append(picked, out[int(float64(i)*step)])
		}
		out = picked
	}
	return out
}
