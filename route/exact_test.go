package route

// Exact agreement with real nginx: every request here must have an answer
// route is certain of, and that answer must be nginx's (the status when
// route states one, the server and the location), not 99 % of them as in
// the agreement test over generated requests.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/templates"
)

func requireServing(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("serves with real nginx")
	}
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
}

func newAgreement() *agreement {
	return &agreement{skipReasons: map[string]int{}, uncertainWhy: map[string]int{}}
}

func mustServe(t *testing.T, s *served, ag *agreement) {
	t.Helper()
	if s == nil {
		t.Fatalf("the copy was not served: %v", ag.skipReasons)
	}
}

// mustAgree sends r to nginx and to route: route must be certain and say
// what nginx did. It reports whether r was sent (false: nothing listens on
// its port in the copy).
func mustAgree(t *testing.T, s *served, r Request) bool {
	t.Helper()
	desc := fmt.Sprintf("%s %s://%s%s %s", r.Method, r.Scheme, r.Host, r.Target, r.Proto)
	if !r.HasHost {
		desc = fmt.Sprintf("%s %s (no Host) %s", r.Method, r.Target, r.Proto)
	}
	lr, ok := s.loopback(r)
	if !ok {
		return false
	}
	got, ok := ask(lr)
	if !ok {
		t.Errorf("%s: no answer from nginx that names its location", desc)
		return true
	}
	res := s.route(lr)
	if !res.Certain() {
		t.Errorf("%s: nginx %s; route is not certain: %s\n%s", desc, got, strings.Join(res.Unknown, "; "), trace(res))
		return true
	}
	if want := s.expectation(res); !agree(got, want) {
		t.Errorf("%s: nginx %s, route %s (%s)\n%s", desc, got, want, res.Answer, trace(res))
	}
	return true
}

// TestFixtureCasesAgreeWithNginx sends every "# route:" line of the route
// fixtures to real nginx, errors.conf's error_page statuses, internal
// locations, limit_except and requests without Host among them.
func TestFixtureCasesAgreeWithNginx(t *testing.T) {
	requireServing(t)
	for _, tr := range fixtureTrees(t) {
		t.Run(tr.name, func(t *testing.T) {
			ag := newAgreement()
			s := serveTree(t, tr, ag)
			mustServe(t, s, ag)
			for _, r := range tr.cases {
				mustAgree(t, s, r)
			}
		})
	}
}

// TestRefusedHostAgreesWithNginx: an empty Host header is refused with the
// default server's configuration (its error_page applies), in HTTP/1.0 as
// in HTTP/1.1.
func TestRefusedHostAgreesWithNginx(t *testing.T) {
	requireServing(t)
	b, err := os.ReadFile("../fixtures/route/errors.conf")
	if err != nil {
		t.Fatal(err)
	}
	ag := newAgreement()
	s := serveTree(t, routeTree{name: "errors.conf", files: map[string][]byte{"nginx.conf": b}}, ag)
	mustServe(t, s, ag)
	for _, proto := range []string{"HTTP/1.0", "HTTP/1.1"} {
		r, _ := ParseRequest("http://err.test/x")
		r.Host, r.Proto = "", proto
		mustAgree(t, s, r)
		if res := s.route(s.must(t, r)); res.Status != 400 {
			t.Errorf("Host: (empty) %s: route %d %s, want 400", proto, res.Status, res.Answer)
		}
	}
}

func (s *served) must(t *testing.T, r Request) Request {
	t.Helper()
	lr, ok := s.loopback(r)
	if !ok {
		t.Fatalf("nothing listens on port %d in the copy", r.Port)
	}
	return lr
}

// genSiteFiles are files in the root of a generated site: what must be
// hidden (dot-files, backups), fingerprinted and plain assets, pages and
// scripts.
var genSiteFiles = []string{
	"index.html", "index.php", "about.html", "robots.txt", "favicon.ico",
	".git/config", ".env", ".htpasswd", ".well-known/acme-challenge/token", ".well-known/security.txt",
	"dump.sql", "index.html.bak", "notes.txt~",
	"app.3f9a2b1c.js", "assets/index-4f8a9b2c.css", "assets/logo.png", "assets/i18n/en.json",
	"static/js/main.8c1d2e3f.js", "_next/static/chunks/app-a1b2c3d4e5.js", "build/assets/app-1a2b3c4d.js",
	"img/photo.jpg", "fonts/x.woff2", "site.webmanifest",
	"wp-login.php", "wp-config.php", "wp-includes/version.php", "wp-admin/index.php", "wp-includes/js/dist/vendor/react.min.js",
	"wp-content/uploads/2024/01/a.png", "wp-content/uploads/shell.php", "vendor/autoload.php", "composer.json",
	"core/assets/vendor/jquery/jquery.min.js", "sites/default/files/x.php", "sites/default/settings.php",
}

// genURLs are requested of every generated tree: the files above, names
// that are not there, and URIs for the regexes gen writes.
var genURLs = []string{
	"/", "/index.html", "/index.php", "/about.html", "/robots.txt", "/favicon.ico",
	"/.git/config", "/.git/", "/.env", "/.htpasswd", "/a/.env", "/.well-known/acme-challenge/token", "/.well-known/security.txt",
	"/dump.sql", "/index.html.bak", "/notes.txt~",
	"/app.3f9a2b1c.js", "/app.deadbeef.js", "/app.12345678.js", "/assets/index-4f8a9b2c.css", "/assets/logo.png",
	"/assets/i18n/en.json", "/static/js/main.8c1d2e3f.js", "/_next/static/chunks/app-a1b2c3d4e5.js",
	"/build/assets/app-1a2b3c4d.js", "/img/photo.jpg", "/IMG/PHOTO.JPG", "/fonts/x.woff2", "/site.webmanifest",
	"/wp-login.php", "/wp-config.php", "/xmlrpc.php", "/wp-includes/version.php",
	"/wp-includes/js/dist/vendor/react.min.js", "/wp-content/uploads/2024/01/a.png", "/wp-content/uploads/shell.php",
	"/vendor/autoload.php", "/composer.json", "/core/assets/vendor/jquery/jquery.min.js",
	"/sites/default/files/x.php", "/sites/default/settings.php", "/x.php", "/a/b/c", "/api/users?id=1",
	"/index.php/a/b", "/x.php%0a", "/a%2f.git/config",
	// a directory without its slash: try_files "$uri/" goes on as /wp-admin,
	// which the static module redirects; a script's path info
	"/wp-admin", "/wp-admin/", "/wp-login.php/x",
}

// TestGenTreesAgreeWithNginx generates every profile's tree, as gen writes
// it, and requires route's certain answer to be real nginx's for each of
// genURLs: gen's regexes (lookaheads among them, which Go's regexp lacks)
// are answered exactly.
func TestGenTreesAgreeWithNginx(t *testing.T) {
	requireServing(t)
	ver, err := nginxVersion()
	if err != nil {
		t.Skip(err)
	}
	facts, err := host.ParseSpec("cpus=2 mem=4GiB nofile=65536:65536 systemd=no")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range templates.Profiles() {
		for _, tls := range []bool{false, true} {
			t.Run(name+map[bool]string{true: "-tls"}[tls], func(t *testing.T) { genTreeAgrees(t, name, tls, facts, ver) })
		}
	}
}

func genTreeAgrees(t *testing.T, name string, tls bool, facts *host.Facts, ver knowledge.Version) {
	p, err := templates.LoadProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := templates.Input{ServerNames: []string{"site.test"}, Root: filepath.Join(dir, "www")}
	schemes := []string{"http"}
	if tls {
		// the copy's certificate replaces these
		in.TLS = &templates.TLS{Cert: "/etc/ssl/site.test.pem", Key: "/etc/ssl/site.test.key"}
		schemes = append(schemes, "https")
	}
	files, _, err := templates.Render(p, facts, ver, in)
	if err != nil {
		t.Fatal(err)
	}
	tree := map[string][]byte{}
	for _, f := range files {
		if !f.OS && f.Link == "" {
			tree[f.Path] = []byte(f.Content)
		}
	}
	for _, f := range genSiteFiles {
		tree[filepath.Join("www", f)] = []byte("content of " + f + "\n")
	}
	ag := newAgreement()
	s := serveIn(t, dir, tree, ag)
	mustServe(t, s, ag)
	for _, u := range genURLs {
		for _, scheme := range schemes {
			for _, hostName := range []string{"site.test", "other.test"} {
				for _, method := range []string{"GET", "POST"} {
					r, err := ParseRequest(scheme + "://" + hostName + u)
					if err != nil {
						t.Fatal(err)
					}
					r.Method, r.Client = method, "127.0.0.1"
					mustAgree(t, s, r)
				}
			}
		}
	}
}

// nginxVersion is the installed nginx's version, for the syntax gen
// writes.
func nginxVersion() (knowledge.Version, error) {
	return knowledge.ParseVersion(nginxcheck.Version(nginxtest.Binary()))
}

// TestGenTreeAnswered: route answers gen's own tree exactly, its lookahead
// locations included, without nginx (TestGenTreesAgreeWithNginx checks the
// same against real nginx).
func TestGenTreeAnswered(t *testing.T) {
	facts, err := host.ParseSpec("cpus=2 mem=4GiB nofile=65536:65536 systemd=no")
	if err != nil {
		t.Fatal(err)
	}
	p, err := templates.LoadProfile("static")
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := templates.Render(p, facts, knowledge.MustVersion("1.22.1"), templates.Input{ServerNames: []string{"site.test"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range files {
		if f.OS || f.Link != "" {
			continue
		}
		path := filepath.Join(dir, f.Path)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(f.Content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := loader.Load(filepath.Join(dir, "nginx.conf"), loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Build(tree)
	for _, c := range []struct{ url, pattern string }{
		{"http://site.test/.git/config", `(?!well-known/)`},
		{"http://site.test/.env", `(?!well-known/)`},
		{"http://site.test/app.3f9a2b1c.js", `(?=[0-9a-f]*[0-9])`},
		{"http://site.test/app.deadbeef.js", `\.(?:css|js|mjs|map`},
	} {
		r, _ := ParseRequest(c.url)
		res := cfg.Route(r, Options{})
		if res.Location == nil || !strings.Contains(res.Location.Pattern, c.pattern) {
			t.Errorf("%s: location %v, want the one with %s\n%s", c.url, res.Location, c.pattern, trace(res))
		}
		for _, u := range res.Unknown {
			if strings.Contains(u, "location ~") {
				t.Errorf("%s: %s", c.url, u)
			}
		}
	}
}
