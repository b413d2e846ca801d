package route

import (
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
)

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		in, uri, args string
		merge, bad    bool
	}{
		{in: "/", uri: "/", merge: true},
		{in: "/a/b?x=1&y", uri: "/a/b", args: "x=1&y", merge: true},
		{in: "/a/../b", uri: "/b", merge: true},
		{in: "/a/./b/.", uri: "/a/b/", merge: true},
		{in: "/a/..", uri: "/", merge: true},
		{in: "//a///b", uri: "/a/b", merge: true},
		{in: "//a///b", uri: "//a///b"},
		{in: "/a//..", uri: "/a/"},
		{in: "/%61%2Fb", uri: "/a/b", merge: true},
		{in: "/a/%2e%2e/b", uri: "/b", merge: true},
		{in: "/a%3Fb", uri: "/a?b", merge: true},
		{in: "/a#frag", uri: "/a", merge: true},
		{in: "/..", bad: true, merge: true},
		{in: "/%2e%2e/", bad: true, merge: true},
		{in: "//..", bad: true, merge: true},
		{in: "/%zz", bad: true, merge: true},
		{in: "/%00", bad: true, merge: true},
		{in: "x", bad: true, merge: true},
	} {
		uri, args, err := normalize(c.in, c.merge)
		if c.bad {
			if err == nil {
				t.Errorf("%q: got %q, want 400", c.in, uri)
			}
			continue
		}
		if err != nil || uri != c.uri || args != c.args {
			t.Errorf("%q (merge %v): got %q %q %v, want %q %q", c.in, c.merge, uri, args, err, c.uri, c.args)
		}
	}
}

func TestParseRequest(t *testing.T) {
	for _, c := range []struct {
		in                   string
		scheme, host, target string
		port                 int
		addr                 string
		hasHost, bad         bool
	}{
		{in: "http://a.test/x?y", scheme: "http", host: "a.test", target: "/x?y", port: 80, hasHost: true},
		{in: "https://a.test", scheme: "https", host: "a.test", target: "/", port: 443, hasHost: true},
		{in: "HTTP://a.test:8080?q", scheme: "http", host: "a.test:8080", target: "/?q", port: 8080, hasHost: true},
		{in: "a.test/p", scheme: "http", host: "a.test", target: "/p", port: 80, hasHost: true},
		{in: "http://127.0.0.1:81/", scheme: "http", host: "127.0.0.1:81", target: "/", port: 81, addr: "127.0.0.1", hasHost: true},
		{in: "http://[::1]/", scheme: "http", host: "[::1]", target: "/", port: 80, addr: "::1", hasHost: true},
		{in: "/only/path", scheme: "http", target: "/only/path", port: 80},
		{in: "ftp://a/", bad: true},
		{in: "http://u:p@a/", bad: true},
		{in: "http://a:99999/", bad: true},
		{in: "http:///x", bad: true},
	} {
		r, err := ParseRequest(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("%q: no error", c.in)
			}
			continue
		}
		if err != nil || r.Scheme != c.scheme || r.Host != c.host || r.Target != c.target || r.Port != c.port || r.Addr != c.addr || r.HasHost != c.hasHost {
			t.Errorf("%q: got %+v %v", c.in, r, err)
		}
	}
}

func build(t *testing.T, conf string) *Config {
	t.Helper()
	tree, err := loader.Load("-", loader.Options{Stdin: strings.NewReader(conf)})
	if err != nil {
		t.Fatal(err)
	}
	return Build(tree)
}

// The agreement test binds only loopback addresses, so a wildcard listen
// never meets a specific one there; these follow the nginx documentation
// ("How nginx processes a request": the address first, then the name).
func TestAddressBeforeName(t *testing.T) {
	cfg := build(t, `events {}
http {
    server { listen 80; server_name a.test; return 200 wildcard; }
    server { listen 192.0.2.1:80; server_name b.test; return 200 specific; }
    server { listen 192.0.2.1:80; server_name a.test; return 200 specific-a; }
    server { listen [::]:80; server_name a.test; return 200 v6; }
}`)
	for _, c := range []struct {
		url, addr, body string
		unknown         bool
	}{
		{url: "http://a.test/", addr: "192.0.2.9", body: "wildcard"},
		{url: "http://b.test/", addr: "192.0.2.9", body: "wildcard"},
		{url: "http://a.test/", addr: "192.0.2.1", body: "specific-a"},
		{url: "http://zzz.test/", addr: "192.0.2.1", body: "specific"},
		{url: "http://a.test/", addr: "::1", body: "v6"},
		{url: "http://a.test/", body: "wildcard", unknown: true},
	} {
		r, _ := ParseRequest(c.url)
		r.Addr = c.addr
		res := cfg.Route(r, Options{})
		if !strings.Contains(res.Answer, `"`+c.body+`"`) || res.Certain() == c.unknown {
			t.Errorf("%s at %q: %s (unknown %v)", c.url, c.addr, res.Answer, res.Unknown)
		}
	}
}

func TestUncertainAnswersSaySo(t *testing.T) {
	cfg := build(t, `events {}
http {
    geo $blocked { default 0; 10.0.0.0/8 1; }
    server {
        listen 80;
        root /srv;
        location / {
            if ($blocked) { return 403; }
            try_files $uri /index.html;
        }
        location /x/ { allow 10.0.0.0/8; deny all; }
        location ~ (a(?R)?b) { }
    }
}`)
	for _, c := range []struct{ url, client, want string }{
		{"http://h/", "", "$blocked"},
		{"http://h/a", "", "/srv/a exists"},
		{"http://h/x/", "", "client's address"},
		{"http://h/ab", "", "PCRE group"},
	} {
		r, _ := ParseRequest(c.url)
		r.Client = c.client
		res := cfg.Route(r, Options{})
		if res.Certain() || !strings.Contains(strings.Join(res.Unknown, "\n"), c.want) {
			t.Errorf("%s: unknown %q, want one naming %q", c.url, res.Unknown, c.want)
		}
	}
	r, _ := ParseRequest("http://h/x/")
	r.Client = "10.1.2.3"
	if res := cfg.Route(r, Options{}); res.Status == 403 {
		t.Errorf("10.1.2.3 is allowed: %s", res.Answer)
	}
	r.Client = "192.0.2.1"
	if res := cfg.Route(r, Options{}); res.Status != 403 {
		t.Errorf("192.0.2.1 is denied: %s", res.Answer)
	}
}

func TestSettingsAndUpstreamURI(t *testing.T) {
	cfg := build(t, `events {}
http {
    add_header X-A 1;
    proxy_set_header X-B 2;
    server {
        listen 80;
        add_header X-C 3;
        location /api/ {
            proxy_pass http://127.0.0.1:8080/v2/;
        }
        location /raw/ {
            proxy_set_header X-D 4;
            proxy_pass http://backend;
        }
    }
}`)
	r, _ := ParseRequest("http://h/api/users?id=1")
	res := cfg.Route(r, Options{})
	if !strings.Contains(res.Answer, "the URI sent upstream is /v2/users?id=1") {
		t.Errorf("answer: %s", res.Answer)
	}
	got := map[string]Setting{}
	for _, s := range res.Settings {
		got[s.Name] = s
	}
	if s := got["add_header"]; len(s.Dirs) != 1 || s.Dirs[0].Arg(0) != "X-C" || s.Level != "server" || len(s.Replaces) != 1 {
		t.Errorf("add_header: %+v", s)
	}
	if s := got["proxy_set_header"]; len(s.Dirs) != 1 || s.Level != "http" {
		t.Errorf("proxy_set_header: %+v", s)
	}
	r, _ = ParseRequest("http://h/raw/a%20b?q")
	res = cfg.Route(r, Options{})
	if !strings.Contains(res.Answer, "the URI sent upstream is /raw/a%20b?q") {
		t.Errorf("answer: %s", res.Answer)
	}
}

// "$0" and "${1}" are no captures: nginx's script compiler reads a capture
// only as "$" and one digit 1-9, so they name the variables "0" and "1",
// which nginx does not define (nginx -t: unknown "0" variable; the cases are
// held against nginx in knowledge's TestVarRefsAgainstNginx). route took
// "$0" for an empty capture and "${1}" for the first one.
func TestCaptureZeroIsNoCapture(t *testing.T) {
	cfg := build(t, `events {}
http {
    server {
        listen 80;
        location ~ ^/(a)(b)$ { return 200 "$10$2"; }
        location ~ ^/0/(a)$ { return 200 "$0"; }
        location ~ ^/1/(a)$ { return 200 "${1}"; }
    }
}`)
	answers(t, cfg, map[string]string{
		"http://h/ab":  `200 with the body "a0b"`,
		"http://h/0/a": `the text depends on $0 (no variable nginx defines: nginx -t fails with unknown "0" variable)`,
		"http://h/1/a": `the text depends on $1 (no variable nginx defines: nginx -t fails with unknown "1" variable)`,
	})
}

// answers checks that route's answer for each URL says what is given.
func answers(t *testing.T, cfg *Config, want map[string]string) {
	t.Helper()
	for url, w := range want {
		r, _ := ParseRequest(url)
		if res := cfg.Route(r, Options{}); !strings.Contains(res.Answer, w) {
			t.Errorf("%s: %s; want it to say %s", url, res.Answer, w)
		}
	}
}

// The echo module's echo and nginx Plus's api set their location's content
// handler (knowledge.IsContentHandler): the location answers with them,
// not with a file under its root, which route said before.
func TestOtherModulesHandlersAnswer(t *testing.T) {
	cfg := build(t, `events {}
http {
    server {
        listen 80;
        root /srv;
        location /e { echo hi; }
        location /api { api; }
    }
}`)
	answers(t, cfg, map[string]string{"http://h/e": "echo at", "http://h/api": "api at"})
}

// A content handler belongs to its own location: nginx's merge copies no
// clcf->handler into a nested one (knowledge.Inherited), so a location
// inside one with js_content or mp4 does not have it in effect, which
// route's settings listed.
func TestContentHandlersAreNotInherited(t *testing.T) {
	cfg := build(t, `events {}
http {
    server {
        listen 80;
        root /srv;
        location /a/ {
            js_content app.main;
            mp4;
            gzip on;
            location /a/b/ { }
        }
    }
}`)
	r, _ := ParseRequest("http://h/a/b/x")
	res := cfg.Route(r, Options{})
	var names []string
	for _, s := range res.Settings {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "root gzip" {
		t.Errorf("settings in effect at /a/b/x: %s, want root gzip", got)
	}
}
