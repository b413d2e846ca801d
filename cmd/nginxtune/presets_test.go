package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// genServe writes a preset with gen (verified with nginx -t as it is
// written), makes it servable on loopback and starts real nginx on it.
func genServe(t *testing.T, args ...string) (port int, conf string) {
	t.Helper()
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving needs root")
	}
	conf = filepath.Join(t.TempDir(), "nginx")
	full := append(append([]string{"gen"}, args...), append(genSizing, "--out", conf)...)
	if _, errOut, code := runCLI(t, "", full...); code != 0 || !strings.Contains(errOut, "verified with nginx -t") {
		t.Fatalf("gen %v: exit %d: %s", args, code, errOut)
	}
	// lint clean of warnings, as the tree is written
	if out, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fail-on", "warning", conf); code != 0 {
		t.Errorf("lint of gen's output: exit %d\n%s%s", code, out, errOut)
	}
	port = nginxtest.FreePort(t)
	servableTree(t, conf, port)
	nginxtest.Serve(t, conf, filepath.Join(conf, "nginx.conf"), fmt.Sprintf("127.0.0.1:%d", port))
	return port, conf
}

// WordPress, Debian's package, on real php-fpm: permalinks reach
// WordPress's index.php (which, without a database configuration, says so
// with a 404 of its own), while wp-config.php, xmlrpc.php, readme.html,
// core includes and PHP under uploads are denied by nginx and never run;
// the login is rate-limited; assets carry the security headers.
func TestPresetWordPress(t *testing.T) {
	const wp = "/usr/share/wordpress"
	if _, err := os.Stat(filepath.Join(wp, "wp-login.php")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("Debian's wordpress package is not installed (scripts/deps.sh installs it)")
		}
		t.Skip("no wordpress package")
	}
	dir := t.TempDir()
	sock, _ := phpFPM(t, dir)
	// the package's files, with an uploads directory of the test's own
	root := filepath.Join(dir, "wordpress")
	entries, _ := os.ReadDir(wp)
	os.MkdirAll(root, 0o755)
	for _, e := range entries {
		if e.Name() != "wp-content" {
			os.Symlink(filepath.Join(wp, e.Name()), filepath.Join(root, e.Name()))
		}
	}
	writeTree(t, filepath.Join(root, "wp-content"), map[string]string{
		"uploads/2024/x.php": "<?php echo 'ran';\n", "uploads/2024/photo.txt": "photo\n"})
	port, _ := genServe(t, "--profile", "wordpress", "--server-name", "blog.test", "--root", root, "--upstream", "unix:"+sock)
	const wpRan = "Neither <b>/etc/wordpress/config-blog.test.php</b>"
	for _, p := range []string{"/", "/2024/01/hello-world/", "/hello.html"} {
		if _, _, body := hostGet(t, port, "blog.test", p); !strings.Contains(body, wpRan) {
			t.Errorf("%s did not reach WordPress: %q", p, body)
		}
	}
	for _, p := range []string{"/wp-config.php", "/xmlrpc.php", "/readme.html", "/license.txt", "/wp-includes/version.php", "/wp-content/uploads/2024/x.php", "/.htaccess"} {
		if code, _, body := hostGet(t, port, "blog.test", p); code != 404 || strings.Contains(body, wpRan) || strings.Contains(body, "ran") {
			t.Errorf("%s: %d %q, want nginx's 404", p, code, body)
		}
	}
	code, _, body := hostGet(t, port, "blog.test", "/wp-content/uploads/2024/photo.txt")
	if code != 200 || body != "photo\n" {
		t.Errorf("an upload: %d %q", code, body)
	}
	code, h, _ := hostGet(t, port, "blog.test", "/wp-includes/css/dashicons.min.css")
	if code != 200 || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "max-age=2592000" {
		t.Errorf("an asset: %d %v", code, h)
	}
	// the login's rate limit holds by its name and with a path after it,
	// which runs the same script (/wp-login.php/x went around the limit)
	for _, p := range []string{"/wp-login.php", "/wp-login.php/x"} {
		limited := 0
		for i := 0; i < 10; i++ {
			if code, _, _ := hostGet(t, port, "blog.test", p); code == 429 {
				limited++
			}
		}
		if limited == 0 {
			t.Errorf("10 logins at once to %s, none limited", p)
		}
	}
}

// Laravel/Symfony: only the front controller runs, reached through
// try_files; another .php in public/ and /index.php by name are 404s;
// $realpath_root gives PHP the release the "current" link names.
func TestPresetLaravel(t *testing.T) {
	dir := t.TempDir()
	sock, _ := phpFPM(t, dir)
	release := filepath.Join(dir, "releases/7/public")
	writeTree(t, release, map[string]string{
		"index.php": "<?php echo 'front ', $_SERVER['SCRIPT_FILENAME'], ' ', $_SERVER['REQUEST_URI'], \"\\n\";\n",
		"other.php": "<?php echo 'other ran';\n", "build/assets/app-4f3a2b1c.js": "x\n", "robots.txt": "User-agent: *\n"})
	os.Symlink(filepath.Join(dir, "releases/7"), filepath.Join(dir, "current"))
	port, _ := genServe(t, "--profile", "laravel", "--server-name", "app.test", "--root", filepath.Join(dir, "current/public"), "--upstream", "unix:"+sock)
	if _, _, body := hostGet(t, port, "app.test", "/users/12?x=1"); body != "front "+release+"/index.php /users/12?x=1\n" {
		t.Errorf("a route: %q (want the front controller, by its real path)", body)
	}
	for _, p := range []string{"/other.php", "/index.php", "/other.php/x"} {
		if code, _, body := hostGet(t, port, "app.test", p); code != 404 || strings.Contains(body, "ran") || strings.Contains(body, "front") {
			t.Errorf("%s: %d %q, want 404", p, code, body)
		}
	}
	if code, h, _ := hostGet(t, port, "app.test", "/build/assets/app-4f3a2b1c.js"); code != 200 || !strings.Contains(h.Get("Cache-Control"), "immutable") || h.Get("X-Frame-Options") != "SAMEORIGIN" {
		t.Errorf("a built asset: %d %v (immutable, with the security headers repeated)", code, h)
	}
}

// Drupal: an image style that does not exist yet goes to index.php, which
// makes it; module source and private files are denied.
func TestPresetDrupal(t *testing.T) {
	dir := t.TempDir()
	sock, _ := phpFPM(t, dir)
	web := filepath.Join(dir, "web")
	writeTree(t, web, map[string]string{
		"index.php":                          "<?php echo 'drupal ', $_SERVER['REQUEST_URI'], \"\\n\";\n",
		"modules/custom/x/x.module":          "<?php // source\n",
		"sites/default/private/invoice.pdf":  "secret\n",
		"sites/default/files/styles/a/b.txt": "made\n"})
	port, _ := genServe(t, "--profile", "drupal", "--server-name", "d.test", "--root", web, "--upstream", "unix:"+sock)
	if _, _, body := hostGet(t, port, "d.test", "/sites/default/files/styles/thumb/public/cat.png?itok=x"); body != "drupal /sites/default/files/styles/thumb/public/cat.png?itok=x\n" {
		t.Errorf("a missing image style did not reach Drupal: %q", body)
	}
	if _, _, body := hostGet(t, port, "d.test", "/node/1"); body != "drupal /node/1\n" {
		t.Errorf("a clean URL: %q", body)
	}
	for _, p := range []string{"/modules/custom/x/x.module", "/sites/default/private/invoice.pdf"} {
		if code, _, body := hostGet(t, port, "d.test", p); code != 404 || strings.Contains(body, "secret") {
			t.Errorf("%s: %d %q", p, code, body)
		}
	}
}

// Django under real uWSGI (Debian's python3 plugin): the application
// answers through uwsgi_pass; collectstatic's files come from the alias,
// dot-files under it stay hidden.
func TestPresetDjangoUWSGI(t *testing.T) {
	uwsgi, err := exec.LookPath("uwsgi")
	needTool(t, err == nil, "uwsgi (scripts/deps.sh installs uwsgi-plugin-python3)")
	dir := t.TempDir()
	sock := filepath.Join(dir, "app.sock")
	writeTree(t, dir, map[string]string{
		"app.py":            "def application(env, start):\n    start('200 OK', [('Content-Type', 'text/plain')])\n    return [('wsgi ' + env['PATH_INFO'] + ' ' + env.get('QUERY_STRING', '')).encode()]\n",
		"static/app.css":    "body{}\n",
		"static/.secret":    "no\n",
		"media/avatar.txt":  "avatar\n",
		"profile-file.yaml": "",
	})
	cmd := exec.Command(uwsgi, "--plugins", "python3", "--socket", sock, "--wsgi-file", filepath.Join(dir, "app.py"), "--processes", "1", "--master", "--logto", filepath.Join(dir, "uwsgi.log"))
	nginxtest.StartGroup(t, cmd)
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// the preset with this test's directories
	prof, _ := os.ReadFile("../../templates/profiles/django.yaml")
	p := strings.ReplaceAll(string(prof), "/srv/django/", dir+"/")
	os.WriteFile(filepath.Join(dir, "profile-file.yaml"), []byte(p), 0o644)
	port, _ := genServe(t, "--profile-file", filepath.Join(dir, "profile-file.yaml"), "--server-name", "dj.test", "--upstream", "unix:"+sock)
	if code, _, body := hostGet(t, port, "dj.test", "/accounts/login/?next=/"); code != 200 || body != "wsgi /accounts/login/ next=/" {
		t.Errorf("the application: %d %q", code, body)
	}
	if code, h, body := hostGet(t, port, "dj.test", "/static/app.css"); code != 200 || body != "body{}\n" || h.Get("Cache-Control") != "max-age=2592000" {
		t.Errorf("a static file: %d %q %v", code, body, h)
	}
	if code, _, body := hostGet(t, port, "dj.test", "/media/avatar.txt"); code != 200 || body != "avatar\n" {
		t.Errorf("a media file: %d %q", code, body)
	}
	if code, _, _ := hostGet(t, port, "dj.test", "/static/.secret"); code != 404 {
		t.Errorf("a dot-file under the alias: %d", code)
	}
}

// Node: requests reach the app through the keepalive pool with the
// forwarding headers, and a websocket upgrade passes Upgrade and
// Connection on.
func TestPresetNode(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "node %s proto=%s upgrade=%s connection=%s", r.URL.Path, r.Header.Get("X-Forwarded-Proto"), r.Header.Get("Upgrade"), r.Header.Get("Connection"))
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	port, _ := genServe(t, "--profile", "node", "--server-name", "n.test", "--upstream", l.Addr().String())
	if _, h, body := hostGet(t, port, "n.test", "/api"); body != "node /api proto=http upgrade= connection=" || h.Get("Referrer-Policy") == "" {
		t.Errorf("a request: %q %v", body, h)
	}
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/ws", port), nil)
	req.Host = "n.test"
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 200)
	n, _ := resp.Body.Read(b)
	resp.Body.Close()
	if got := string(b[:n]); got != "node /ws proto=http upgrade=websocket connection=upgrade" {
		t.Errorf("an upgrade: %q", got)
	}
}

// gRPC: a Python gRPC server (python3-grpcio) behind grpc_pass, called
// through nginx's plaintext HTTP/2 port by a Python client.
func TestPresetGRPC(t *testing.T) {
	py := "/usr/bin/python3"
	needTool(t, exec.Command(py, "-c", "import grpc").Run() == nil, "python3-grpcio (scripts/deps.sh installs it)")
	dir := t.TempDir()
	backend := nginxtest.FreePort(t)
	writeTree(t, dir, map[string]string{
		"server.py": fmt.Sprintf(`import grpc, time
from concurrent import futures
def echo(req, ctx):
    return b"echo " + req
h = grpc.method_handlers_generic_handler("test.Echo", {"Say": grpc.unary_unary_rpc_method_handler(echo)})
s = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
s.add_generic_rpc_handlers((h,))
s.add_insecure_port("127.0.0.1:%d")
s.start()
s.wait_for_termination(60)
`, backend),
		"client.py": `import grpc, sys
ch = grpc.insecure_channel(sys.argv[1])
say = ch.unary_unary("/test.Echo/Say")
print(say(b"hi", timeout=10).decode())
`})
	nginxtest.StartGroup(t, exec.Command(py, filepath.Join(dir, "server.py")))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", backend)); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	port, _ := genServe(t, "--profile", "grpc", "--upstream", fmt.Sprintf("127.0.0.1:%d", backend))
	out, err := exec.Command(py, filepath.Join(dir, "client.py"), fmt.Sprintf("127.0.0.1:%d", port)).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "echo hi" {
		t.Errorf("a call through nginx: %v %s", err, out)
	}
}

// What every profile that serves files sends, checked on real nginx: the
// security headers on HTML and on fingerprinted assets (whose location
// adds a header of its own and so repeats them), HTML revalidated,
// fingerprinted files immutable, other assets for the profile's time,
// brotli where the module is installed (Debian's libnginx-mod-http-brotli-*,
// loaded by its path from the test's own prefix: the machine's
// modules-enabled is not the test's), and the www form of the name
// redirected.
func TestGenHeadersCachingBrotli(t *testing.T) {
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving needs root")
	}
	brotli := "/usr/share/nginx/modules/ngx_http_brotli_filter_module.so"
	if _, err := os.Stat(brotli); err != nil && os.Getenv("CI") != "" {
		t.Fatal("the brotli modules are not installed (scripts/deps.sh installs them)")
	}
	www := filepath.Join(t.TempDir(), "www")
	big := strings.Repeat("function f(a){return a+1}\n", 400)
	writeTree(t, www, map[string]string{"index.html": "<h1>home</h1>\n", "app.3f9a2c1e.js": big, "plain.js": big, "date-20240101.css": "a{}\n"})
	_, err := os.Stat(brotli)
	installed := err == nil
	// with the module, gen's own nginx -t would need it in the machine's
	// modules-enabled, which the tests leave alone: serving it below, with
	// the module loaded by path, is the check
	args := []string{"--brotli", "off"}
	if installed {
		args = []string{"--brotli", "on", "--verify=false"}
	}
	conf := filepath.Join(t.TempDir(), "nginx")
	_, errOut, code := runCLI(t, "", append(append([]string{"gen", "--profile", "static", "--server-name", "example.test", "--www-redirect", "--root", www, "--layout", "debian", "--out", conf}, args...), genSizing...)...)
	if code != 0 || (!installed && !strings.Contains(errOut, "verified with nginx -t")) {
		t.Fatalf("gen: exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(conf, "nginx.conf"))
	hasBrotli := strings.Contains(string(b), "brotli on;")
	if installed != hasBrotli {
		t.Errorf("brotli written: %v, module installed: %v", hasBrotli, installed)
	}
	port := nginxtest.FreePort(t)
	// links of the copy, made again by CopyFS's absence: sites-enabled
	servableTree(t, conf, port)
	if hasBrotli {
		writeTree(t, conf, map[string]string{"modules-enabled/brotli.conf": "load_module " + brotli + ";\nload_module /usr/share/nginx/modules/ngx_http_brotli_static_module.so;\n"})
	}
	nginxtest.Serve(t, conf, filepath.Join(conf, "nginx.conf"), fmt.Sprintf("127.0.0.1:%d", port))
	get := func(path, enc string) (int, http.Header) {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
		req.Host = "example.test"
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	for path, cache := range map[string]string{
		"/":                     "no-cache",
		"/app.3f9a2c1e.js":      "public, max-age=31536000, immutable",
		"/plain.js":             "max-age=604800",
		"/date-20240101.css":    "max-age=604800",
		"/missing.3f9a2c1e.css": "",
	} {
		code, h := get(path, "")
		if h.Get("Cache-Control") != cache || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "SAMEORIGIN" || h.Get("Permissions-Policy") == "" {
			t.Errorf("%s: %d Cache-Control %q, headers %v", path, code, h.Get("Cache-Control"), h)
		}
	}
	if hasBrotli {
		if _, h := get("/plain.js", "br, gzip"); h.Get("Content-Encoding") != "br" {
			t.Errorf("brotli not sent: %v", h)
		}
	}
	if _, h := get("/plain.js", "gzip"); h.Get("Content-Encoding") != "gzip" {
		t.Errorf("gzip not sent: %v", h)
	}
	if code, h, _ := hostGet(t, port, "www.example.test", "/a?b=1"); code != 301 || h.Get("Location") != "http://example.test/a?b=1" {
		t.Errorf("www redirect: %d %v", code, h)
	}
}

// needTool skips a test whose tool is missing, or fails it in CI, where
// scripts/deps.sh has installed it; and it needs nginx and root to serve.
func needTool(t *testing.T, present bool, what string) {
	t.Helper()
	if !present {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed", what)
		}
		t.Skipf("%s is not installed", what)
	}
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving needs root")
	}
}

// The proxy and node presets on real nginx with a backend that answers
// every path with its contents (as an application serving its working
// directory would): dot-files (/.git/config, /.env) are answered 404 by
// nginx and never reach the backend; /.well-known/ and other paths do.
func TestProxyPresetsHideDotFiles(t *testing.T) {
	for _, profile := range []string{"proxy", "node"} {
		t.Run(profile, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			reached := make(chan string, 16)
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached <- r.URL.Path
				fmt.Fprintf(w, "backend %s SECRET=1", r.URL.Path)
			})}
			go srv.Serve(l)
			t.Cleanup(func() { srv.Close() })
			port, _ := genServe(t, "--profile", profile, "--server-name", "app.test", "--upstream", l.Addr().String())
			for _, p := range []string{"/.git/config", "/.env", "/static/.env.production", "/.htpasswd"} {
				if code, _, body := hostGet(t, port, "app.test", p); code != 404 || strings.Contains(body, "SECRET") {
					t.Errorf("%s: %d %q, want nginx's 404", p, code, body)
				}
			}
			select {
			case p := <-reached:
				t.Errorf("%s reached the backend", p)
			default:
			}
			for _, p := range []string{"/.well-known/security.txt", "/api/x.json"} {
				if code, _, body := hostGet(t, port, "app.test", p); code != 200 || body != "backend "+p+" SECRET=1" {
					t.Errorf("%s: %d %q, want the backend's answer", p, code, body)
				}
			}
		})
	}
}

// The grpc preset without TLS listens on a plaintext HTTP/2 port of its
// own; with a server name, a request there for any other Host is closed
// without an answer (444), as on port 80, while the site's name reaches
// grpc_pass (a 502 here: no backend runs).
func TestGRPCPresetPortClosedToOtherNames(t *testing.T) {
	_, err := exec.LookPath("curl")
	needTool(t, err == nil, "curl")
	conf := filepath.Join(t.TempDir(), "nginx")
	args := append([]string{"gen", "--profile", "grpc", "--server-name", "api.test", "--upstream", "127.0.0.1:1", "--out", conf}, genSizing...)
	if _, errOut, code := runCLI(t, "", args...); code != 0 || !strings.Contains(errOut, "verified with nginx -t") {
		t.Fatalf("gen: exit %d: %s", code, errOut)
	}
	// port 80's catch-all would share the test's one port with 8090's
	os.Remove(filepath.Join(conf, "sites/00-default.conf"))
	port := nginxtest.FreePort(t)
	servableTree(t, conf, port)
	nginxtest.Serve(t, conf, filepath.Join(conf, "nginx.conf"), fmt.Sprintf("127.0.0.1:%d", port))
	// curl speaks plaintext HTTP/2 with prior knowledge, as gRPC clients do
	call := func(host string) string {
		out, _ := exec.Command("curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "--max-time", "60", "--http2-prior-knowledge",
			"-H", "Host: "+host, "-H", "Content-Type: application/grpc", fmt.Sprintf("http://127.0.0.1:%d/test.Echo/Say", port)).Output()
		return string(out)
	}
	if got := call("api.test"); got != "502 2" {
		t.Errorf("the site's name: %q, want grpc_pass's 502 over HTTP/2", got)
	}
	if got := call("evil.example"); got != "000 0" {
		t.Errorf("Host evil.example answered %q; want the stream closed (444)", got)
	}
}
