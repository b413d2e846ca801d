package route

// The agreement test: route's answer against real nginx's, over the
// repository's route fixtures and a sample of the corpus. Each tree is
// copied into a temporary prefix and instrumented: every server sets a
// variable to its own file:line and adds an X-Route header, every location
// (and every if block in one) adds X-Route with the server's variable and
// its own file:line, all on the same line as the block's "{" so that line
// numbers do not move. Real nginx then serves the copy on loopback and
// answers generated requests; route answers the same requests from the
// same copy, and the two are compared.

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/nginxtest"
	"github.com/nginxtune/nginxtune/parser"
)

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

// instrumenter rewrites a copied tree so that nginx can serve it on
// loopback and says which blocks answered.
type instrumenter struct {
	dir       string
	ports     map[int]int    // original port -> loopback port
	ips       map[string]int // original specific address -> 127.0.0.N
	upstreams map[string]bool
	nextIP    int
	sockets   int
	caches    int
	freePort  func() int
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

func (in *instrumenter) loopback(l Listen) string {
	p, ok := in.ports[l.Port]
	if !ok {
		p = in.freePort()
		in.ports[l.Port] = p
	}
	ip := "127.0.0.1"
	if l.IP != "" {
		n, ok := in.ips[l.IP]
		if !ok {
			in.nextIP++
			n = in.nextIP
			in.ips[l.IP] = n
		}
		ip = "127.0.0." + strconv.Itoa(n)
	}
	return ip + ":" + strconv.Itoa(p)
}

// instrument returns the new text of every file of the tree inside dir.
func (in *instrumenter) instrument(t *parser.Tree) map[*parser.File][]byte {
	edits := map[*parser.File][]edit{}
	done := map[*parser.Directive]bool{}
	rel := func(f *parser.File) string {
		r, _ := filepath.Rel(in.dir, f.Path)
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
			replace(d, d.Name+" "+filepath.Join(in.dir, "cert.pem")+";")
			return false
		case "ssl_certificate_key":
			replace(d, d.Name+" "+filepath.Join(in.dir, "key.pem")+";")
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
			l, ok := parseListen(d)
			if !ok {
				break
			}
			var addr string
			switch {
			case l.Unix != "":
				in.sockets++
				addr = "unix:" + filepath.Join(in.dir, "s"+strconv.Itoa(in.sockets)+".sock")
			case l.V6:
				in.sockets++
				addr = "unix:" + filepath.Join(in.dir, "v6-"+strconv.Itoa(in.sockets)+".sock")
			default:
				addr = in.loopback(l)
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
				replace(d, "server 127.0.0.1:1;")
				return false
			}
		case "proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "memcached_pass":
			if tg := in.backend(d.Arg(0)); tg != d.Arg(0) {
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
			edits[d.File] = append(edits[d.File], edit{int(a.Offset), int(a.Offset) + len(a.Raw), filepath.Join(in.dir, "w"+strconv.Itoa(in.caches))})
		}
		if d.Block == nil || parser.IsDataBlock(d.Name) {
			return true
		}
		open := int(d.BlockOpen) + 1
		switch {
		case d.Name == "http":
			// a stub certificate for servers whose own the copy dropped
			// (a second ssl_certificate at a level is allowed)
			edits[d.File] = append(edits[d.File], edit{open, open, fmt.Sprintf(" ssl_certificate %s; ssl_certificate_key %s;", filepath.Join(in.dir, "cert.pem"), filepath.Join(in.dir, "key.pem"))})
		case d.Name == "server" && parent == "http":
			text := fmt.Sprintf(` set $nginxtune_srv "%s"; add_header X-Route "$nginxtune_srv|-" always;`, id)
			if !hasDirective(parser.Level(d.Block), "listen") {
				// nginx would bind *:80 for it: the copy binds loopback
				text += " listen " + in.loopback(Listen{Port: 80}) + ";"
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
// a closed loopback port, so nginx starts without resolving it and answers
// 502 at once; upstream names and unix sockets stay.
func (in *instrumenter) backend(target string) string {
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
	host, _ := splitHostPort(hostport)
	if in.upstreams[host] {
		return target
	}
	return scheme + "127.0.0.1:1" + path
}

// routeTree is one tree under test: files by path relative to the prefix,
// and the main file.
type routeTree struct {
	name  string
	files map[string][]byte
	// cases are requests of the fixture's "# route:" lines
	cases []Request
}

type agreement struct {
	trees, skipped, requests, certain, agreed, uncertain, inconclusive int
	skipReasons                                                        map[string]int
	uncertainWhy                                                       map[string]int
	disagreements                                                      []string
}

// served is an instrumented copy of a tree that real nginx serves on
// loopback, and route's reading of the same copy.
type served struct {
	dir string
	cfg *Config
	in  *instrumenter
}

// loopback points a request at the loopback port the copy listens on
// for its port; false when nothing listens there in the copy.
func (s *served) loopback(r Request) (Request, bool) {
	p, ok := s.in.ports[r.Port]
	if !ok {
		return r, false
	}
	r.Port, r.Addr = p, "127.0.0.1"
	return r, true
}

// route answers r as the agreement test asks route.
func (s *served) route(r Request) *Result {
	hostname, _ := os.Hostname()
	return s.cfg.Route(r, Options{RootCheck: true, Prefix: s.dir, Hostname: hostname})
}

// serveTree writes tr's files into a temporary prefix, instruments them
// and starts real nginx on them; nil (with the reason counted in ag) when
// the copy cannot be served.
func serveTree(t *testing.T, tr routeTree, ag *agreement) *served {
	dir := t.TempDir()
	return serveIn(t, dir, tr.files, ag)
}

func serveIn(t *testing.T, dir string, files map[string][]byte, ag *agreement) *served {
	bin := nginxtest.Require(t)
	for name, b := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	nginxtest.WriteSelfSigned(t, dir)
	nginxcheck.StockFiles(dir)
	orig, err := parser.Load(filepath.Join(dir, "nginx.conf"), parser.Options{})
	if err != nil {
		ag.skip("does not load: " + err.Error())
		return nil
	}
	in := &instrumenter{dir: dir, ports: map[int]int{}, ips: map[string]int{}, upstreams: map[string]bool{}, nextIP: 1,
		freePort: func() int { return nginxtest.FreePort(t) }}
	orig.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == "upstream" && len(d.Args) == 1 {
			in.upstreams[d.Arg(0)] = true
		}
		return true
	})
	for f, b := range in.instrument(orig) {
		rel, err := filepath.Rel(dir, f.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		if err := os.WriteFile(f.Path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(in.ports) == 0 {
		ag.skip("no TCP listen")
		return nil
	}
	if r := nginxtest.Run(t, bin, dir, filepath.Join(dir, "nginx.conf")); !r.OK {
		why := r.Message
		if why == "" {
			why = firstLine(r.Output)
		}
		ag.skip("nginx -t refuses the copy: " + why)
		return nil
	}
	tree, err := parser.Load(filepath.Join(dir, "nginx.conf"), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Build(tree)
	Display = func(f *parser.File) string {
		rel, _ := filepath.Rel(dir, f.Path)
		return rel
	}
	var anyAddr string
	for _, s := range cfg.Servers {
		for _, l := range s.Listens {
			if l.Unix == "" && !l.V6 && !l.Implicit {
				anyAddr = l.Dir.Arg(0)
			}
		}
	}
	nginxtest.Serve(t, dir, filepath.Join(dir, "nginx.conf"), anyAddr)
	// nginx binds and listens on one address after another: wait for
	// every one (a hang guard, not a measure)
	deadline := time.Now().Add(30 * time.Second)
	for _, s := range cfg.Servers {
		for _, l := range s.Listens {
			if l.Unix != "" || l.V6 || l.Implicit {
				continue
			}
			for {
				c, err := net.DialTimeout("tcp", l.Dir.Arg(0), time.Second)
				if err == nil {
					c.Close()
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("nginx does not listen on %s: %v", l.Dir.Arg(0), err)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	return &served{dir: dir, cfg: cfg, in: in}
}

// runTree instruments, serves and compares one tree.
func runTree(t *testing.T, tr routeTree, rng *rand.Rand, ag *agreement, perTree int) {
	s := serveTree(t, tr, ag)
	if s == nil {
		return
	}
	ag.trees++
	reqs := requests(s.cfg, rng, perTree)
	for _, r := range tr.cases {
		if r, ok := s.loopback(r); ok { // else nothing listens there in the copy either
			reqs = append(reqs, r)
		}
	}
	for _, r := range reqs {
		ag.requests++
		got, ok := ask(r)
		if !ok {
			ag.inconclusive++
			continue
		}
		res := s.route(r)
		if !res.Certain() {
			ag.uncertain++
			ag.uncertainWhy[uncertainKind(res.Unknown[0])]++
			continue
		}
		ag.certain++
		want := expectation(res)
		if agree(got, want) {
			ag.agreed++
		} else if len(ag.disagreements) < 200 {
			ag.disagreements = append(ag.disagreements, fmt.Sprintf("%s: %s %s://%s%s (at %s:%d): nginx %s, route %s", tr.name, r.Method, r.Scheme, r.Host, r.Target, r.Addr, r.Port, got, want))
		}
	}
}

// uncertainKind groups what route could not know, for the summary.
func uncertainKind(u string) string {
	for _, k := range []string{"client's address", "depends on the disk", "exists on the disk", "$hostname", "auth_request", "password", "PCRE", "Go's regexp", "fragment", "depends on $", "the subrequest"} {
		if strings.Contains(u, k) {
			return k
		}
	}
	if i := strings.Index(u, "depends on "); i >= 0 {
		return u[i:min(len(u), i+40)]
	}
	return u[:min(len(u), 50)]
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

func (ag *agreement) skip(why string) {
	ag.skipped++
	// group reasons by their words, without the file names
	if i := strings.Index(why, " in /"); i >= 0 {
		why = why[:i]
	}
	ag.skipReasons[why]++
}

// answer is what nginx said, or what route predicts.
type answer struct {
	closed   bool
	status   int // 0: route leaves it to a backend or the disk
	server   string
	location string
}

func (a answer) String() string {
	if a.closed {
		return "closed"
	}
	return fmt.Sprintf("%d server=%s location=%s", a.status, a.server, a.location)
}

func expectation(res *Result) answer {
	a := answer{closed: res.Closed, status: res.Status, location: "-"}
	if res.Server != nil {
		a.server = at(res.Server.Dir)
	}
	if res.Location != nil {
		a.location = at(res.Location.Dir)
	}
	return a
}

func agree(got, want answer) bool {
	if got.closed || want.closed {
		return got.closed == want.closed
	}
	if want.status != 0 && got.status != want.status {
		return false
	}
	if got.server != "" && got.server != want.server {
		return false
	}
	return got.location == want.location
}

// ask sends one request to nginx and reads the status and X-Route.
func ask(r Request) (answer, bool) {
	addr := net.JoinHostPort(r.Addr, strconv.Itoa(r.Port))
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return answer{}, false
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hang guard
	var c net.Conn = conn
	if r.Scheme == "https" {
		host, _ := hostName(r.Host)
		tc := tls.Client(conn, &tls.Config{ServerName: host, InsecureSkipVerify: true})
		if err := tc.Handshake(); err != nil {
			if strings.Contains(err.Error(), "protocol version") || strings.Contains(err.Error(), "handshake failure") && !strings.Contains(err.Error(), "unrecognized name") {
				// the server's protocols or ciphers and this client's
				// do not meet: nothing route decides
				return answer{}, false
			}
			return answer{closed: true}, true
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
		return answer{}, false
	}
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		if line == "" {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return answer{}, false
			}
			return answer{closed: true}, true
		}
		return answer{}, false
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return answer{}, false
	}
	a := answer{location: "?"}
	a.status, _ = strconv.Atoi(f[1])
	for {
		h, err := br.ReadString('\n')
		if err != nil || h == "\r\n" {
			break
		}
		k, v, _ := strings.Cut(h, ":")
		if strings.EqualFold(k, "X-Route") {
			a.server, a.location, _ = strings.Cut(strings.TrimSpace(v), "|")
		}
	}
	if a.location == "?" {
		// no header: a response nginx makes before any configuration
		// applies, or from a location the copy could not mark
		return answer{}, false
	}
	return a, true
}

// requests generates requests for a configuration: every server's names
// with every location's patterns, unknown names, odd URIs.
func requests(cfg *Config, rng *rand.Rand, n int) []Request {
	type target struct {
		addr string
		port int
		ssl  bool
	}
	var uris []string
	var add func(locs []*Loc)
	add = func(locs []*Loc) {
		for _, l := range locs {
			switch l.Mod {
			case "", "^~":
				uris = append(uris, l.Pattern, l.Pattern+"x", strings.TrimSuffix(l.Pattern, "/"), l.Pattern+"/a/b.php", l.Pattern+"index.html", strings.ToUpper(l.Pattern))
			case "=":
				uris = append(uris, l.Pattern, l.Pattern+"/", l.Pattern+"x")
			case "~", "~*":
				for _, s := range Sample(l.Pattern, l.Mod == "~*", 3) {
					s = strings.TrimPrefix(strings.TrimSuffix(s, "$"), "^")
					if !strings.HasPrefix(s, "/") {
						s = "/x/" + s
					}
					uris = append(uris, s, s+"x", "/p"+s)
				}
			}
			add(l.Locs)
		}
	}
	var hosts []string
	for _, s := range cfg.Servers {
		add(s.Locs)
		for _, nm := range s.Names {
			xs := NameSamples(nm)
			hosts = append(hosts, xs...)
			if v := nm.Value; nm.re == nil && len(xs) == 1 {
				hosts = append(hosts, strings.ToUpper(v), v+".", v+":8080")
			}
		}
	}
	hosts = append(hosts, "unknown.test", "")
	uris = append(uris, "/", "/index.php", "/a/../b/", "//x//y", "/%2e%2e/", "/x/%2Fy", "/static/app.js", "/.git/config", "/robots.txt", "/index.php?q=1", "/a%20b")
	var targets []target
	seen := map[string]bool{}
	for _, s := range cfg.Servers {
		for _, l := range s.Listens {
			if l.Unix != "" || l.V6 || l.Implicit {
				continue
			}
			host, port := splitHostPort(l.Dir.Arg(0))
			p, _ := strconv.Atoi(port)
			k := host + port + strconv.FormatBool(l.SSL)
			if !seen[k] {
				seen[k] = true
				targets = append(targets, target{host, p, l.SSL})
			}
		}
	}
	var out []Request
	for i := 0; i < n; i++ {
		tg := targets[rng.Intn(len(targets))]
		h := hosts[rng.Intn(len(hosts))]
		u := uris[rng.Intn(len(uris))]
		if strings.ContainsAny(u, " \t\r\n") || !strings.HasPrefix(u, "/") {
			continue
		}
		r := Request{Scheme: "http", Method: "GET", Addr: tg.addr, Port: tg.port, Target: u, Host: h, HasHost: h != "", Headers: map[string]string{}}
		if h == "" && rng.Intn(4) != 0 {
			// HTTP/1.0 is how a request without a name is sent; HTTP/1.1
			// without Host is refused
			r.Proto = "HTTP/1.0"
		}
		if tg.ssl {
			r.Scheme = "https"
		}
		switch rng.Intn(10) {
		case 0:
			r.Method = "POST"
		case 1:
			r.Method = "HEAD"
		}
		out = append(out, r)
	}
	return out
}
