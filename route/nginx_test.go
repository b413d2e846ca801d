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
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxserve"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// kitListen is route's reading of a listen directive, for the kit.
func kitListen(d *parser.Directive) (nginxserve.Listen, bool) {
	l, ok := parseListen(d)
	return nginxserve.Listen{Unix: l.Unix, IP: l.IP, V6: l.V6, Port: l.Port, Default: l.Default, SSL: l.SSL, Implicit: l.Implicit}, ok
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
	in  *nginxserve.Instrumenter
}

// loopback points a request at the loopback port the copy listens on
// for its port; false when nothing listens there in the copy.
func (s *served) loopback(r Request) (Request, bool) {
	p, ok := s.in.Ports[r.Port]
	if !ok {
		return r, false
	}
	r.Port, r.Addr = p, "127.0.0.1"
	return r, true
}

// route answers r as the agreement test asks route.
func (s *served) route(r Request) *Result {
	hostname, _ := os.Hostname()
	return s.cfg.Route(r, Options{RootCheck: true, Prefix: s.dir, Hostname: hostname, Name: s.name})
}

// name names a file relative to the copy, as the instrumented tree's
// X-Route header names it.
func (s *served) name(f *parser.File) string {
	rel, _ := filepath.Rel(s.dir, f.Path)
	return rel
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
	nginxserve.Copy(t, dir, files)
	in := &nginxserve.Instrumenter{Dir: dir, Ports: map[int]int{}, IPs: map[string]int{}, Upstreams: map[string]bool{}, NextIP: 1,
		FreePort: func() int { return nginxtest.FreePort(t) }, ParseListen: kitListen}
	if why := in.Prepare(t, bin); why != "" {
		ag.skip(why)
		return nil
	}
	tree, err := loader.Load(filepath.Join(dir, "nginx.conf"), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Build(tree)
	var addrs []string
	for _, s := range cfg.Servers {
		for _, l := range s.Listens {
			if l.Unix == "" && !l.V6 && !l.Implicit {
				addrs = append(addrs, l.Dir.Arg(0))
			}
		}
	}
	nginxserve.Start(t, dir, addrs)
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
		want := s.expectation(res)
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

func (s *served) expectation(res *Result) answer {
	name := namer(s.name)
	a := answer{closed: res.Closed, status: res.Status, location: "-"}
	if res.Server != nil {
		a.server = name.at(res.Server.Dir)
	}
	if res.Location != nil {
		a.location = name.at(res.Location.Dir)
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
	sni, _ := hostName(r.Host)
	a, ok := nginxserve.Ask(nginxserve.Request{Scheme: r.Scheme, Addr: r.Addr, Port: r.Port, Method: r.Method, Target: r.Target,
		Proto: r.Proto, Host: r.Host, HasHost: r.HasHost, SNI: sni, Headers: r.Headers})
	return answer{closed: a.Closed, status: a.Status, server: a.Server, location: a.Location}, ok
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
