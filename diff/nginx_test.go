package diff

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxserve"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/route"
)

// listenOf is route's reading of a listen directive, for the kit: the
// listen of the server Build read it for.
func listenOf(d *parser.Directive) (nginxserve.Listen, bool) {
	t := &loader.Tree{Roots: []*parser.File{{Context: []string{"main", "http"}, Directives: []*parser.Directive{{Name: "server", Block: []*parser.Directive{d}}}}}}
	for _, s := range route.Build(t).Servers {
		for _, l := range s.Listens {
			if l.Dir == d {
				return nginxserve.Listen{Unix: l.Unix, IP: l.IP, V6: l.V6, Port: l.Port, Default: l.Default, SSL: l.SSL, Implicit: l.Implicit}, true
			}
		}
	}
	return nginxserve.Listen{}, false
}

// readFiles reads the files of a fixture side, by path relative to it.
func readFiles(t *testing.T, dir string) map[string][]byte {
	files := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			files[rel] = b
		}
		return nil
	})
	return files
}

// pairCheck is what the comparison with nginx found for one pair.
type pairCheck struct {
	requests, answered, nginxDiffers, reported, missed, falseReports, unobservable int
	// mayChange counts the requests diff reports as uncertain that nginx
	// (with no file in its roots) answers the same
	mayChange               int
	missedLines, falseLines []string
}

// servePair serves OLD's and NEW's instrumented copies with real nginx
// one after the other on the same loopback ports (backends pointed at a
// server that says which URI it received), asks both the whole request
// set diff generates from the copies, and compares nginx's differences
// with diff's report of the same copies.
func servePair(t *testing.T, oldFiles, newFiles map[string][]byte) (pc pairCheck, skip string) {
	bin := nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
	backend, _ := nginxtest.Backend(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Upstream-URI", r.RequestURI)
	}))
	tmp := t.TempDir()
	ports, ips := map[int]int{}, map[string]int{}
	var trees [2]*Tree
	var ins [2]*nginxserve.Instrumenter
	next := 1
	for i, files := range []map[string][]byte{oldFiles, newFiles} {
		dir := filepath.Join(tmp, []string{"old", "new"}[i])
		nginxserve.Copy(t, dir, files)
		// the same map of ports and addresses for both copies: a request
		// reaches the same loopback address in each
		in := &nginxserve.Instrumenter{Dir: dir, Ports: ports, IPs: ips, Upstreams: map[string]bool{}, NextIP: next,
			FreePort: func() int { return nginxtest.FreePort(t) }, ParseListen: listenOf, Backend: backend}
		if why := in.Prepare(t, bin); why != "" {
			return pc, []string{"old", "new"}[i] + ": " + why
		}
		next = in.NextIP
		tr, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		trees[i], ins[i] = tr, in
	}
	rep := Compare(trees[0], trees[1], Options{Every: true})
	reqs := requestSet(nil, trees[0].cfg, trees[1].cfg)
	reported := map[string]string{}
	for _, c := range rep.Changes {
		for j, q := range c.Requests {
			k := c.Kind
			if k == KindAnswer && !observable(&c.Old[j], &c.New[j]) {
				k = "unobservable"
			}
			reported[key(q)] = k
		}
	}
	var answers [2][]nginxserve.Answer
	var ok [2][]bool
	for i := range trees {
		t.Run([]string{"old", "new"}[i], func(t *testing.T) {
			var addrs []string
			for _, s := range trees[i].cfg.Servers {
				for _, l := range s.Listens {
					if l.Unix == "" && !l.V6 && !l.Implicit {
						addrs = append(addrs, l.Dir.Arg(0))
					}
				}
			}
			nginxserve.Start(t, ins[i].Dir, addrs)
			for _, q := range reqs {
				sni, _, _ := strings.Cut(strings.TrimSuffix(q.Host, "."), ":")
				a, good := nginxserve.Ask(nginxserve.Request{Scheme: q.Scheme, Addr: q.Addr, Port: q.Port, Method: q.Method, Target: q.Target,
					Proto: q.Proto, Host: q.Host, HasHost: q.HasHost, SNI: strings.ToLower(sni)})
				if q.Addr == "" {
					good = false
				}
				answers[i] = append(answers[i], a)
				ok[i] = append(ok[i], good)
			}
		}) // nginx stops here, with its process group
	}
	for j, q := range reqs {
		pc.requests++
		if !ok[0][j] || !ok[1][j] {
			continue
		}
		pc.answered++
		a, b := answers[0][j], answers[1][j]
		differs := a.Closed != b.Closed || !a.Closed && (a.Status != b.Status || a.Redirect != b.Redirect || a.Upstream != b.Upstream ||
			blockOf(trees[0], a) != blockOf(trees[1], b))
		kind, isReported := reported[key(q)]
		line := RequestLine(q) + ": nginx old " + a.String() + " " + a.Upstream + ", new " + b.String() + " " + b.Upstream
		switch {
		case differs:
			pc.nginxDiffers++
			if isReported {
				pc.reported++
			} else {
				pc.missed++
				pc.missedLines = append(pc.missedLines, line)
			}
		case kind == "unobservable":
			pc.unobservable++
		case kind == KindUncertain:
			pc.mayChange++
		case isReported && kind != KindUncertain:
			pc.falseReports++
			pc.falseLines = append(pc.falseLines, line+"; diff: "+kind)
		}
	}
	return pc, ""
}

// observable reports whether nginx's answer shows an answer-kind change:
// the URI a backend receives from proxy_pass, or a redirect's target.
func observable(a, b *Answer) bool {
	proxied := strings.Contains(a.Text, "the URI sent upstream") && strings.Contains(b.Text, "the URI sent upstream")
	redirect := a.Status >= 300 && a.Status < 400 && b.Status >= 300 && b.Status < 400
	return proxied || redirect
}

// blockOf names the block X-Route reports as diff names it: the
// server's id in the pair and the location's modifiers and patterns.
func blockOf(tr *Tree, a nginxserve.Answer) string {
	id := "?" + a.Server
	for _, s := range tr.cfg.Servers {
		if tr.place(s.Dir) == a.Server {
			id = tr.ids[s]
		}
		var walk func([]*route.Loc)
		walk = func(ls []*route.Loc) {
			for _, l := range ls {
				if tr.place(l.Dir) == a.Location {
					id += "|" + locID(l)
				}
				walk(l.Locs)
			}
		}
		if tr.place(s.Dir) == a.Server {
			walk(s.Locs)
		}
	}
	return id
}

// TestFixturesAgreeWithNginx serves each fixture pair with real nginx and
// checks diff against nginx's own differences: every request nginx
// answers differently (status, closed, server and location, redirect
// target, URI a backend receives) is reported, and no request nginx
// answers the same is reported as a certain change.
func TestFixturesAgreeWithNginx(t *testing.T) {
	total := pairCheck{}
	for _, dir := range fixtureCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			pc, skip := servePair(t, readFiles(t, filepath.Join(dir, "old")), readFiles(t, filepath.Join(dir, "new")))
			if skip != "" {
				t.Fatal(skip)
			}
			t.Logf("%d requests, %d answered by nginx in both; nginx answers %d differently, diff reports %d of them; %d reported as changes nginx does not show (SCRIPT_FILENAME, a file); %d as uncertain that nginx answers the same",
				pc.requests, pc.answered, pc.nginxDiffers, pc.reported, pc.unobservable, pc.mayChange)
			for _, l := range pc.missedLines {
				t.Error("not reported:", l)
			}
			for _, l := range pc.falseLines {
				t.Error("reported, but nginx answers the same:", l)
			}
			if pc.answered < pc.requests*9/10 {
				t.Errorf("nginx answered %d of %d requests", pc.answered, pc.requests)
			}
			total.requests += pc.requests
			total.nginxDiffers += pc.nginxDiffers
			total.reported += pc.reported
		})
	}
	t.Logf("all pairs: %d requests, nginx answers %d differently, diff reports %d of them", total.requests, total.nginxDiffers, total.reported)
}
