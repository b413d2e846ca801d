package rules

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// distroCopy writes a repository copy of a distribution's tree into a new
// directory: nginx.conf includes, in the main context, the modules
// directory whose files link outside the copy (Debian's modules-enabled
// links to /usr/share/nginx/modules-available; RHEL's include names
// /usr/share/nginx/modules itself), so nginxtune leaves that include
// unread. site is sites-enabled/default; http adds to the http block. In
// both, @OUT@ names a directory outside the copy, which nginx reads and
// nginxtune does not.
func distroCopy(t *testing.T, layout, http, site string) (dir, main string) {
	t.Helper()
	top := t.TempDir()
	dir = filepath.Join(top, "etc-nginx")
	outside := filepath.Join(top, "modules-available")
	for _, d := range []string{dir, outside, filepath.Join(dir, "sites-enabled"), filepath.Join(dir, "conf.d"), filepath.Join(dir, "modules-enabled")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// what the module files hold: load_module lines (none that this
	// nginx needs, so nginx reads a comment)
	os.WriteFile(filepath.Join(outside, "mod-http-echo.conf"), []byte("# load_module modules/ngx_http_echo_module.so;\n"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "mod-http-echo.conf"), filepath.Join(dir, "modules-enabled", "50-mod-http-echo.conf")); err != nil {
		t.Fatal(err)
	}
	include := "include " + filepath.Join(dir, "modules-enabled") + "/*.conf;"
	if layout == "rhel" {
		include = "include " + outside + "/*.conf;"
	}
	os.WriteFile(filepath.Join(dir, "conf.d", "empty.conf"), []byte("# conf.d\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "mime.types"), []byte("types { text/html html; }\n"), 0o644)
	elsewhere := filepath.Join(top, "elsewhere")
	os.MkdirAll(elsewhere, 0o755)
	os.WriteFile(filepath.Join(elsewhere, "acl.conf"), []byte("allow 127.0.0.1;\ndeny all;\n"), 0o644)
	os.WriteFile(filepath.Join(elsewhere, "proxy.conf"), []byte("# proxy settings of the server\n"), 0o644)
	http, site = strings.ReplaceAll(http, "@OUT@", elsewhere), strings.ReplaceAll(site, "@OUT@", elsewhere)
	main = filepath.Join(dir, "nginx.conf")
	conf := fmt.Sprintf("worker_processes 1;\n%s\n\nevents {\n\tworker_connections 768;\n}\n\nhttp {\n\tsendfile on;\n\tinclude %s/mime.types;\n\tgzip on;\n%s\tinclude %s/conf.d/*.conf;\n\tinclude %s/sites-enabled/*;\n}\n",
		include, dir, http, dir, dir)
	os.WriteFile(main, []byte(conf), 0o644)
	os.WriteFile(filepath.Join(dir, "sites-enabled", "default"), []byte(site), 0o644)
	return dir, main
}

// An include of the main context left unread (a repository copy of
// Debian's or RHEL's tree: the module files are the server's) can hold
// only main-context directives: it silences no finding about what http,
// server and location blocks set. Committed through the hook, an open
// stub_status and autoindex on passed.
func TestMainIncludeUnreadSilencesOnlyMain(t *testing.T) {
	site := "server {\n\tlisten 80 default_server;\n\troot /var/www/html;\n\tlocation / { autoindex on; }\n\tlocation /nginx_status { stub_status; }\n}\nupstream app { server 127.0.0.1:8080; keepalive 32; }\nserver {\n\tlisten 81;\n\tlocation / { proxy_pass http://app; }\n}\n"
	for _, layout := range []string{"debian", "rhel"} {
		t.Run(layout, func(t *testing.T) {
			_, main := distroCopy(t, layout, "", site)
			tr, err := loader.Load(main, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !tr.HasUnread() {
				t.Fatal("the copy's module include was read: the test needs it unread")
			}
			got := map[string]bool{}
			for _, d := range Run(tr, engine.Config{Version: knowledge.MustVersion("1.22.1")}) {
				got[d.Rule] = true
			}
			for _, rule := range []string{"status-page-exposed", "autoindex-on", "proxy-keepalive-headers", "gzip-types-missing", "open-file-cache"} {
				if !got[rule] {
					t.Errorf("%s is silenced by the unread main-context include", rule)
				}
			}
		})
	}
	// an unread include where the directive may stand still counts: in
	// the server block it may hold the allow and deny lines
	_, main := distroCopy(t, "debian", "", strings.Replace(site, "\troot /var/www/html;\n", "\troot /var/www/html;\n\tinclude @OUT@/acl.conf;\n", 1))
	tr, err := loader.Load(main, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Run(tr, engine.Config{Version: knowledge.MustVersion("1.22.1")}) {
		if d.Rule == "status-page-exposed" || d.Rule == "autoindex-on" {
			t.Errorf("%s reported though an unread include of the server may restrict access: %s", d.Rule, d.Message)
		}
	}
}

// A fix is complete or not offered: with an include left unread, the
// fixes for a backend pool give every setting the pool needs (keepalive
// in the upstream, proxy_http_version 1.1, an empty Connection header) or
// none of them, and what one --fix run leaves is measured on real nginx
// with a loopback backend that counts the connections it accepts: either
// the pool carries the requests (fewer connections than requests), or
// lint still says why not. Before, the fixes added keepalive 32 and
// proxy_set_header Connection "" but not proxy_http_version 1.1, lint was
// quiet, and nginx 1.22 opened 10 backend connections for 10 requests.
func TestKeepaliveFixCompleteAgainstNginx(t *testing.T) {
	bin := nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
	v, err := knowledge.ParseVersion(nginxcheck.Version(bin))
	if err != nil || !v.Less(vUpstreamKeepalive) {
		t.Skipf("nginx %v keeps upstream connections by default: the premise is nginx before 1.29.7", v)
	}
	cases := []struct {
		name, http, headers string
		pool                bool // the fixes can make the pool work
	}{
		// the main-context module include alone is unread
		{"main", "", "proxy_set_header Host $host; ", true},
		// and an http-level include too, which may set proxy_http_version
		// (or not): the fix writes it, since 1.1 is what the pool needs
		{"http", "\tinclude @OUT@/proxy.conf;\n", "proxy_set_header Host $host; ", true},
		// nothing read sets a header: a Connection header here would drop
		// what the unread include may set (Host, X-Forwarded-For), so no
		// fix is offered, and lint says why the pool is not used
		{"unknown", "\tinclude @OUT@/proxy.conf;\n", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			addr, accepted := nginxtest.Backend(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
			port := nginxtest.FreePort(t)
			site := fmt.Sprintf("upstream app { server %s; }\nserver {\n\tlisten 127.0.0.1:%d;\n\taccess_log off;\n\tlocation / { %sproxy_pass http://app; }\n}\n", addr, port, c.headers)
			dir, main := distroCopy(t, "debian", c.http, site)
			cfg := engine.Config{Version: v, Disabled: map[string]bool{}}
			res := fixRun(t, main, cfg)
			var told []string
			for _, d := range res.Diags {
				if d.Rule == "upstream-keepalive" || d.Rule == "proxy-keepalive-headers" {
					told = append(told, d.Rule+": "+d.Message)
				}
			}
			fixed, _ := os.ReadFile(filepath.Join(dir, "sites-enabled", "default"))
			nginxtest.Serve(t, dir, main, fmt.Sprintf("127.0.0.1:%d", port))
			const requests = 10
			for range requests {
				if code, body := nginxtest.Get(t, fmt.Sprintf("http://127.0.0.1:%d/", port)); code != 200 {
					t.Fatalf("%d %s", code, body)
				}
			}
			conns := accepted.Load()
			t.Logf("after one fix run: %d backend connections for %d requests; lint says %q\n%s", conns, requests, told, fixed)
			if conns >= requests && len(told) == 0 {
				t.Errorf("the fixed tree opens a backend connection per request (%d for %d), and lint is quiet:\n%s", conns, requests, fixed)
			}
			if c.pool && conns >= requests {
				t.Errorf("the fixes left a pool nginx does not use (%d connections for %d requests):\n%s", conns, requests, fixed)
			}
			if !c.pool && string(fixed) != site {
				t.Errorf("a fix was applied that cannot make the pool work:\n%s", fixed)
			}
		})
	}
}
