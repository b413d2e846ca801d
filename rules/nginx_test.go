package rules

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// rawGet sends a request line as written (percent-escapes and all) and
// returns nginx's whole answer.
func rawGet(t *testing.T, addr, path string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second)) // a hang guard
	fmt.Fprintf(c, "GET %s HTTP/1.0\r\nHost: x\r\n\r\n", path)
	b, _ := io.ReadAll(c)
	return string(b)
}

// TestInjectionAgainstNginx checks header-injection's premise on the real
// nginx: a decoded value splits a header, an undecoded one does not, and the
// rule reports exactly the lines where nginx splits.
func TestInjectionAgainstNginx(t *testing.T) {
	port, backend := nginxtest.FreePort(t), nginxtest.FreePort(t)
	conf := fmt.Sprintf(`events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:%d;
        location /u/ { add_header X-U $uri; return 200 "ok"; }
        location /a/ { add_header X-A $arg_x; return 200 "ok"; }
        location /ret/ { return 301 http://example.com$uri; }
        location /px/ { proxy_pass http://127.0.0.1:%d$uri; }
        location ~ ^/x/([^z]*)$ { set $t $1; add_header X-T $t; return 200 "ok"; }
        location ~ ^/y/([^z]*)$ { add_header X-Y $1; return 200 "ok"; }
        location ~ ^/n/(?<tail>[^z]*)$ { add_header X-N $tail; return 200 "ok"; }
        location ~ ^/s/(?<tail>[^z]*)$ { set $u $tail; add_header X-S $u; return 200 "ok"; }
        location /d/ { rewrite ^/d/([^?]*)$ https://example.com/$1 permanent; }
        location /nd/ { rewrite ^/nd/(?<p>[^?]*)$ https://example.com/$p permanent; }
        location ~ ^/r/(.*)$ { return 302 https://example.com/$1; }
        location ~ ^/rc/([^\r\n]*)$ { return 302 https://example.com/$1; }
    }
    server {
        listen 127.0.0.1:%d;
        location / { return 200 "backend saw [$request] [$http_x_inj]"; }
    }
}
`, port, backend, backend)
	dir := t.TempDir()
	main := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(main, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := loader.Load(main, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := map[int]bool{}
	for _, d := range Run(tr, engine.Config{Disabled: onlyRules("header-injection")}) {
		lines[d.Line] = true
	}
	nginxtest.Serve(t, dir, main, fmt.Sprintf("127.0.0.1:%d", port))
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cases := []struct {
		line     int
		path     string
		injected string // what shows that the line break reached the output
	}{
		{6, "/u/a%0d%0aX-Inj:1", "\r\nX-Inj:1\r\n"},
		{7, "/a/?x=a%0d%0aX-Inj:1", ""},
		{8, "/ret/a%0d%0aX-Inj:1", "\r\nX-Inj:1\r\n"},
		{9, "/px/a%0d%0aX-Inj:1", "backend saw [GET /px/a]"}, // the line break ended the request line
		// numbered captures copied by set or a rewrite are escaped again;
		// named captures, and numbered ones used directly, are not
		{10, "/x/a%0d%0aX-Inj:1", ""},
		{11, "/y/a%0d%0aX-Inj:1", "\r\nX-Inj:1\r\n"},
		{12, "/n/a%0d%0aX-Inj:1", "\r\nX-Inj:1\r\n"},
		{13, "/s/a%0d%0aX-Inj:1", "\r\nX-Inj:1\r\n"},
		{14, "/d/a%0d%0aX-Inj:1", ""},
		{15, "/nd/a%0d%0aX-Inj:1", "\r\nX-Inj:1\r\n"},
		// "." matches a carriage return, which nginx sends raw
		{16, "/r/a%0dX-Inj:1", "a\rX-Inj:1\r\n"},
		{17, "/rc/a%0dX-Inj:1", ""},
	}
	for _, c := range cases {
		got := rawGet(t, addr, c.path)
		split := c.injected != "" && strings.Contains(got, c.injected)
		if c.injected != "" && !split {
			t.Errorf("%s: nginx did not split as expected: %q", c.path, got)
		}
		if c.injected == "" && strings.Contains(got, "\r\nX-Inj") {
			t.Errorf("%s: nginx split a header from an undecoded value: %q", c.path, got)
		}
		if lines[c.line] != split {
			t.Errorf("line %d (%s): header-injection reported %v, nginx split %v", c.line, c.path, lines[c.line], split)
		}
	}
}

// loadConf writes conf as nginx.conf in a fresh directory and loads it.
func loadConf(t *testing.T, conf string) (dir, main string, tr *loader.Tree) {
	t.Helper()
	dir = t.TempDir()
	main = filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(main, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := loader.Load(main, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return dir, main, tr
}

// onlyRules disables every rule but the named ones.
func onlyRules(ids ...string) map[string]bool {
	off := map[string]bool{}
	for _, r := range All {
		off[r.ID] = true
	}
	for _, id := range ids {
		delete(off, id)
	}
	return off
}

// nginx-proxy's maps send "Connection: close" to the backend even from an
// upstream with keepalive: measured on loopback, a backend behind such a
// proxy sees "close", and upstream-keepalive therefore offers no fix that
// only adds keepalive, while proxy-keepalive-headers reports the chain.
func TestConnectionCloseThroughMaps(t *testing.T) {
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
	port, backend := nginxtest.FreePort(t), nginxtest.FreePort(t)
	conf := fmt.Sprintf(`events {}
http {
    map $http_upgrade $proxy_connection {
        default upgrade;
        '' $proxy_connection_noupgrade;
    }
    map $upstream_keepalive $proxy_connection_noupgrade {
        default close;
        'true' '';
    }
    proxy_http_version 1.1;
    proxy_set_header Connection $proxy_connection;
    upstream app {
        server 127.0.0.1:%[2]d;
        keepalive 32;
    }
    server {
        listen 127.0.0.1:%[1]d;
        set $upstream_keepalive false;
        location / { proxy_pass http://app; }
        location /kept/ { set $upstream_keepalive true; proxy_pass http://app; }
    }
    server {
        listen 127.0.0.1:%[2]d;
        location / { return 200 "[$http_connection]"; }
    }
}
`, port, backend)
	dir := t.TempDir()
	main := filepath.Join(dir, "nginx.conf")
	os.WriteFile(main, []byte(conf), 0o644)
	tr, err := loader.Load(main, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var chain bool
	for _, d := range Run(tr, engine.Config{Version: knowledge.MustVersion("1.22.1"), Disabled: onlyRules("proxy-keepalive-headers")}) {
		chain = chain || d.Line == 20 && strings.Contains(d.Message, "through $proxy_connection_noupgrade")
	}
	if !chain {
		t.Errorf("proxy-keepalive-headers does not follow the map chain at line 20")
	}
	nginxtest.Serve(t, dir, main, fmt.Sprintf("127.0.0.1:%d", port))
	get := func(path string) string {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := get("/"); got != "[close]" {
		t.Errorf("through the maps the backend saw Connection %s, want [close]", got)
	}
	if got := get("/kept/"); got != "[]" {
		t.Errorf("with $upstream_keepalive true the backend saw Connection %s, want [] (kept)", got)
	}
}

// duplicate-definition reports exactly what nginx -t refuses: each case is
// judged by the installed nginx and by the rule, and they must agree.
func TestDuplicateDefinitionAgainstNginx(t *testing.T) {
	bin := nginxtest.Require(t)
	cases := []string{
		"server { listen 8001 default_server; } server { listen 8001 default_server; }",
		"server { listen 8001 default_server; } server { listen *:8001 default_server; }",
		"server { listen 127.0.0.1:8001 default_server; } server { listen 8001 default_server; }",
		"server { listen [::]:8001 default_server; } server { listen 8001 default_server; }",
		"server { listen 8001; listen 0.0.0.0:8001; }",
		"server { listen 8001; listen 127.0.0.1:8001; }",
		"upstream u { server 127.0.0.1:1; } upstream u { server 127.0.0.1:2; }",
		"upstream u { server 127.0.0.1:1; } upstream v { server 127.0.0.1:2; }",
		"server { listen 8001; location /a {} location /a {} }",
		"server { listen 8001; location ^~ /a {} location /a {} }",
		"server { listen 8001; location = /a {} location /a {} }",
		"server { listen 8001; location = /a {} location = /a {} }",
		"server { listen 8001; location ~ /a {} location ~ /a {} }",
		"server { listen 8001; location @x {} location @x {} }",
		"server { listen 8001; location /a { location /a/b {} location /a/b {} } }",
		"server { listen 8001 backlog=511; } server { listen 8001 reuseport; server_name b; }",
		"server { listen 8001 backlog=511; } server { listen 8001 default_server; server_name b; }",
		"server { listen 8001 deferred; } server { listen 127.0.0.1:8001 deferred; server_name b; }",
	}
	agreesWithNginx(t, bin, "duplicate-definition", cases)
}

// agreesWithNginx judges each http block body with the installed nginx -t
// and with one rule: the rule must fire exactly where nginx refuses.
func agreesWithNginx(t *testing.T, bin, rule string, bodies []string) {
	t.Helper()
	judgedByNginx(t, bin, rule, bodies, "refuses", func(res nginxtest.Result) bool { return !res.OK })
}

// undefined-reference reports exactly what nginx -t refuses, case by case.
func TestUndefinedReferenceAgainstNginx(t *testing.T) {
	bin := nginxtest.Require(t)
	cases := []string{
		"server { listen 8001; limit_req zone=y; }",
		"limit_req_zone $binary_remote_addr zone=y:1m rate=1r/s; server { listen 8001; limit_req zone=y; }",
		"server { listen 8001; limit_req zone=y; } limit_req_zone $binary_remote_addr zone=y:1m rate=1r/s;",
		"server { listen 8001; limit_conn c 10; }",
		"limit_conn_zone $binary_remote_addr zone=c:1m; server { listen 8001; limit_conn c 10; }",
		"access_log a.log main; server { listen 8001; }",
		"access_log a.log combined; server { listen 8001; }",
		"access_log a.log buffer=32k; server { listen 8001; }",
		"access_log a.log combined buffer=32k; server { listen 8001; }",
		"log_format main '$remote_addr'; access_log a.log main; server { listen 8001; }",
		"access_log a.log main; log_format main '$remote_addr'; server { listen 8001; }",
		"server { listen 8001; location / { proxy_cache pc; proxy_pass http://127.0.0.1:1; } }",
		"proxy_cache_path c keys_zone=pc:1m; server { listen 8001; location / { proxy_cache pc; proxy_pass http://127.0.0.1:1; } }",
		"server { listen 8001; location / { proxy_cache off; proxy_pass http://127.0.0.1:1; } }",
		"server { listen 8001; location / { fastcgi_cache fc; fastcgi_pass 127.0.0.1:1; } }",
	}
	// logs and cache paths relative to nginx -t's prefix, the test's own
	agreesWithNginx(t, bin, "undefined-reference", cases)
}

// nginx applies the first allow/deny that matches, and lets in a client no
// rule names (what status-page-exposed and autoindex-on rely on), measured
// on loopback with stub_status, which answers after the access phase (a
// return would answer before it: return-bypasses-access).
func TestAccessOrderAgainstNginx(t *testing.T) {
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
	port := nginxtest.FreePort(t)
	conf := fmt.Sprintf(`events {}
http {
    server {
        listen 127.0.0.1:%d;
        location = /allow-first { allow all; deny all; stub_status; }
        location = /other-denied { deny 10.0.0.0/8; stub_status; }
        location = /deny-first { deny 127.0.0.1; allow all; stub_status; }
        include status.conf;
    }
}
`, port)
	dir := t.TempDir()
	main := filepath.Join(dir, "nginx.conf")
	os.WriteFile(main, []byte(conf), 0o644)
	// the same list in a snippet, which status-page-exposed judges alone
	snippet := filepath.Join(dir, "status.conf")
	os.WriteFile(snippet, []byte("location = /snippet { stub_status; allow all; deny all; }\n"), 0o644)
	tr, err := loader.Load(snippet, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ds := Run(tr, engine.Config{Disabled: onlyRules("status-page-exposed")}); len(ds) != 1 {
		t.Errorf("status-page-exposed on the snippet alone: %v, want one finding", ds)
	}
	nginxtest.Serve(t, dir, main, fmt.Sprintf("127.0.0.1:%d", port))
	for path, want := range map[string]int{"/allow-first": 200, "/other-denied": 200, "/deny-first": 403, "/snippet": 200} {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// alias-traversal against real nginx: each alias is reported exactly when
// a request reaches a file outside the aliased directory (the parent's
// secret, or a sibling directory that starts with the same name).
func TestAliasAgainstNginx(t *testing.T) {
	lines, get := lintAndServe(t, "alias-traversal", map[string]string{"secret.txt": "secret", "assets/a.txt": "a", "media_old/x.txt": "old", "guide/g.txt": "g", "v1": "v1",
		"lol/l.txt": "l", "pub-old/x.txt": "old", "pub/p.txt": "p", "files/f.txt": "f", "pics/p.txt": "p", "docs/d.txt": "d"}, `
        location ~ ^/assets(.*)$ { alias %[2]s/assets/$1; }
        location ~ ^/guide/(?<page>.*)$ { alias %[2]s/guide/$page; }
        location /media { alias %[2]s/media; }
        location /static { alias %[2]s/assets/; }
        location /ok/ { alias %[2]s/assets/; }
        location ~ ^/v([0-9]+)$ { alias %[2]s/v$1; }
        location ~ /site(2)(.*) { alias %[2]s/lol/$2; }
        location ~ /images(.*) { alias %[2]s/pub$1; }
        location ~* ^/files/[a-z]+(.*)$ { alias %[2]s/files/$1; }
        location ~ ^/(?:img|pic)(?<rest>.*)$ { alias %[2]s/pics/$rest; }
        location ~ ^/gallery/(.*)$ { alias %[2]s/pub/$1; }
        location ~ ^/photos(/.*)$ { alias %[2]s/pub$1; }
        location ~ ^/docs/[^/]+(.*)$ { alias %[2]s/docs/$1; }
`)
	for _, c := range []struct {
		line int
		path string
	}{
		{6, "/assets../secret.txt"},
		{7, "/guide/../secret.txt"},
		{8, "/media_old/x.txt"},
		{9, "/static../secret.txt"},
		{10, "/ok/../secret.txt"},
		{11, "/v1"},
		// a capture after a group, glued to a name, after a class, named
		{12, "/site2../secret.txt"},
		{13, "/images-old/x.txt"},
		{14, "/Files/a../secret.txt"},
		{15, "/pic../secret.txt"},
		// look-alikes: the capture after a slash, starting with one, or
		// after a class that takes the dots
		{16, "/gallery/../secret.txt"},
		{16, "/gallery/-old/x.txt"},
		{17, "/photos-old/x.txt"},
		{18, "/docs/a../secret.txt"},
	} {
		got := get(c.path)
		outside := strings.HasSuffix(got, "\r\n\r\nsecret") || strings.HasSuffix(got, "\r\n\r\nold")
		if lines[c.line] != outside {
			t.Errorf("line %d (%s): alias-traversal reported %v, nginx served a file outside %v: %q", c.line, c.path, lines[c.line], outside, got)
		}
	}
}

// What a backend receives after rewrites of the raw path, and through set,
// measured with a loopback backend that answers with its request line:
// proxy-pass-normalized reports exactly where the client's escapes arrive
// escaped twice, header-injection exactly where a line break splits the
// request line, and neither where the backend gets the raw path.
func TestRewriteRawURIAgainstNginx(t *testing.T) {
	port, backend := nginxtest.FreePort(t), nginxtest.FreePort(t)
	conf := fmt.Sprintf(`events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:%[1]d;
        location /1/ { rewrite ^ $request_uri; rewrite ^/1(/.*) $1 break; return 400; proxy_pass http://127.0.0.1:%[2]d; }
        location /2/ { rewrite ^ $request_uri; rewrite ^/2(/.*) $1 break; return 400; proxy_pass http://127.0.0.1:%[2]d/$1; }
        location /3/ { rewrite ^ $request_uri; rewrite ^/3/(.*)$ /v3/$1 break; proxy_pass http://127.0.0.1:%[2]d/; }
        location /4/ { rewrite ^/4(/.*)$ $1 break; proxy_pass http://127.0.0.1:%[2]d; }
        location /raw/ { rewrite ^ $request_uri break; proxy_pass http://127.0.0.1:%[2]d; }
        location ~ /proxy/(a|b)/(\W*)$ { set $path $2; proxy_pass http://127.0.0.1:%[2]d/$path; }
        location ~ /proxyn/(a|b)/(?<tail>\W*)$ { set $path2 $tail; proxy_pass http://127.0.0.1:%[2]d/$path2; }
        location ~ /proxyd/(a|b)/(\W*)$ { proxy_pass http://127.0.0.1:%[2]d/$2; }
    }
    server {
        listen 127.0.0.1:%[2]d;
        location / { return 200 "backend saw [$request]"; }
    }
}
`, port, backend)
	dir, main, tr := loadConf(t, conf)
	// proxy-pass-normalized's findings that say the escapes arrive twice,
	// the others (the decoded path) apart
	reported := map[string]map[int]bool{"proxy-pass-normalized": {}, "header-injection": {}, "decoded": {}}
	for _, d := range Run(tr, engine.Config{Disabled: onlyRules("proxy-pass-normalized", "header-injection")}) {
		switch {
		case d.Rule == "proxy-pass-normalized" && !strings.Contains(d.Message, "%252F"):
			reported["decoded"][d.Line] = true
		default:
			reported[d.Rule][d.Line] = true
		}
	}
	nginxtest.Serve(t, dir, main, fmt.Sprintf("127.0.0.1:%d", port))
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for _, c := range []struct {
		line int
		path string
		saw  string // the backend's request line, or what it starts with when split
	}{
		{6, "/1/a%2Fb", "GET /a%252Fb HTTP/1.0"},
		{7, "/2/a%2Fb%0d", "GET //a%2Fb%0d HTTP/1.0"},
		{8, "/3/a%2Fb", "GET /v3/a%252Fb HTTP/1.0"},
		{9, "/4/a%2Fb", "GET /a/b HTTP/1.0"},
		{10, "/raw/a%2Fb", "GET /raw/a%252Fb HTTP/1.0"},
		{11, "/proxy/a/%0d%0a", "GET /%0D%0A HTTP/1.0"},
		{12, "/proxyn/a/%0d%0a", "GET /"},
		{13, "/proxyd/a/%0d%0a", "GET /"},
	} {
		got := rawGet(t, addr, c.path)
		if !strings.Contains(got, "backend saw ["+c.saw+"]") {
			t.Fatalf("%s: the backend did not see %q: %q", c.path, c.saw, got)
		}
		twice := strings.Contains(c.saw, "%25")
		split := !strings.HasSuffix(c.saw, " HTTP/1.0")
		if reported["proxy-pass-normalized"][c.line] != twice {
			t.Errorf("line %d (%s): proxy-pass-normalized reported %v, the escapes arrived twice %v", c.line, c.path, reported["proxy-pass-normalized"][c.line], twice)
		}
		if reported["header-injection"][c.line] != split {
			t.Errorf("line %d (%s): header-injection reported %v, the request line split %v", c.line, c.path, reported["header-injection"][c.line], split)
		}
	}
	// the raw path sent as written is not "the decoded path"
	if reported["decoded"][7] {
		t.Errorf("line 7: proxy-pass-normalized calls the raw path the backend receives decoded")
	}
}

// lintAndServe writes files (path -> content) below a directory srv,
// lints a configuration whose server block holds locations (a format with
// %[1]d the port and %[2]s srv; the first location on line 6) with one
// rule, and serves it with real nginx: the lines the rule reported, and a
// function that answers a request for a path as nginx does.
func lintAndServe(t *testing.T, rule string, files map[string]string, locations string) (map[int]bool, func(path string) string) {
	t.Helper()
	port := nginxtest.FreePort(t)
	dir := t.TempDir()
	srv := filepath.Join(dir, "srv")
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(srv, name)), 0o755)
		os.WriteFile(filepath.Join(srv, name), []byte(body), 0o644)
	}
	conf := fmt.Sprintf("events {}\nhttp {\n    access_log off;\n    server {\n        listen 127.0.0.1:%[1]d;"+locations+"    }\n}\n", port, srv)
	main := filepath.Join(dir, "nginx.conf")
	os.WriteFile(main, []byte(conf), 0o644)
	tr, err := loader.Load(main, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := map[int]bool{}
	for _, d := range Run(tr, engine.Config{Disabled: onlyRules(rule)}) {
		lines[d.Line] = true
	}
	nginxtest.Serve(t, dir, main, fmt.Sprintf("127.0.0.1:%d", port))
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("error.log:\n%s", log)
		}
	})
	return lines, func(path string) string { return rawGet(t, fmt.Sprintf("127.0.0.1:%d", port), path) }
}

// alias-slash-missing against real nginx: each alias is reported exactly
// when a file under its location is not served (nginx glues the rest of
// the URI to the alias's last name: .../staticapp.css).
func TestAliasSlashAgainstNginx(t *testing.T) {
	lines, get := lintAndServe(t, "alias-slash-missing", map[string]string{"static/app.css": "served", "media/app.css": "served"}, `
        location /static/ { alias %[2]s/static; }
        location /ok/ { alias %[2]s/static/; }
        location /same { alias %[2]s/static; }
        location ^~ /media/ { alias %[2]s/media; }
        location /var/ { set $d %[2]s/media/; alias $d; }
        location /outer/ { location /outer/in/ { alias %[2]s/media; } }
`)
	for _, c := range []struct {
		line int
		path string
	}{
		{6, "/static/app.css"},
		{7, "/ok/app.css"},
		{8, "/same/app.css"},
		{9, "/media/app.css"},
		{10, "/var/app.css"},
		{11, "/outer/in/app.css"},
	} {
		got := get(c.path)
		served := strings.HasSuffix(got, "\r\n\r\nserved")
		if lines[c.line] == served {
			t.Errorf("line %d (%s): alias-slash-missing reported %v, nginx served the file %v: %q", c.line, c.path, lines[c.line], served, got)
		}
	}
}

// server-name-conflict reports exactly where nginx -t warns "conflicting
// server name ... ignored": each case is judged by the installed nginx and
// by the rule, and they must agree.
func TestServerNameConflictAgainstNginx(t *testing.T) {
	bin := nginxtest.Require(t)
	cases := []string{
		"server { listen 8001; server_name a; } server { listen 8001; server_name a; }",
		"server { listen 8001; server_name A.example; } server { listen *:8001; server_name a.EXAMPLE; }",
		"server { listen 8001; server_name .a.example; } server { listen 8001; server_name a.example; }",
		"server { listen 8001; server_name .a.example; } server { listen 8001; server_name *.a.example; }",
		"server { listen 8001; server_name a.example; } server { listen 8001; server_name *.a.example; }",
		"server { listen 8001; server_name www.a.*; } server { listen 8001; server_name www.a.*; }",
		"server { listen 8001; server_name ~^a$; } server { listen 8001; server_name ~^a$; }",
		"server { listen 8001; server_name a a; }",
		"server { listen 8001; server_name a; } server { listen 127.0.0.1:8001; server_name a; }",
		"server { listen 8001; server_name a; } server { listen 8002; server_name a; }",
		"server { listen [::]:8001; server_name a; } server { listen [::]:8001; server_name a; }",
		"server { listen [::]:8001; server_name a; } server { listen 8001; server_name a; }",
		"server { listen 8001; listen 8002; server_name a; } server { listen 8002; server_name b a; }",
		"server { listen 8001; } server { listen 8001; }",
		"server { listen 8001; } server { listen 8001; server_name \"\"; }",
		"server { listen 8001; } server { listen 8001; server_name a; }",
		"server { server_name a; } server { listen 80; server_name a; }",
		"server { server_name a; } server { listen 8001; server_name a; }",
		"server { listen 8001; server_name _; } server { listen 8001 default_server; server_name _; }",
		"server { listen 8001; server_name $hostname; } server { listen 8001; server_name $hostname; }",
	}
	judgedByNginx(t, bin, "server-name-conflict", cases, "loads and warns \"conflicting server name\"", func(res nginxtest.Result) bool {
		return res.OK && strings.Contains(res.Output, "conflicting server name")
	})
}

// judgedByNginx runs nginx -t on each http block body and one rule: the
// rule must fire exactly where says (what nginx's answer shows) holds.
func judgedByNginx(t *testing.T, bin, rule string, bodies []string, what string, says func(nginxtest.Result) bool) {
	t.Helper()
	for _, body := range bodies {
		dir := t.TempDir()
		main := filepath.Join(dir, "nginx.conf")
		os.WriteFile(main, []byte("events {}\nhttp {\n"+body+"\n}\n"), 0o644)
		res := nginxtest.Run(t, bin, dir, main)
		tr, err := loader.Load(main, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fired := false
		for _, d := range Run(tr, engine.Config{Disabled: onlyRules(rule)}) {
			fired = fired || d.Rule == rule
		}
		if fired != says(res) {
			t.Errorf("%s\nnginx -t %s: %v (%s), %s fired=%v", body, what, says(res), res.Output, rule, fired)
		}
	}
}
