package main

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// A RHEL 9 /etc/nginx as the nginx package installs it: conf.d included
// before a stock server (no default_server; first on port 80, so it is the
// default) that includes default.d, modules from /usr/share/nginx/modules.
const rhelNginxConf = `user nginx;
worker_processes auto;
error_log /var/log/nginx/error.log;
pid /run/nginx.pid;

include /usr/share/nginx/modules/*.conf;

events {
    worker_connections 1024;
}

http {
    log_format  main  '$remote_addr - $remote_user [$time_local] "$request" '
                      '$status $body_bytes_sent "$http_referer" '
                      '"$http_user_agent" "$http_x_forwarded_for"';
    access_log  /var/log/nginx/access.log  main;
    sendfile            on;
    tcp_nopush          on;
    keepalive_timeout   65;
    types_hash_max_size 4096;
    include             /etc/nginx/mime.types;
    default_type        application/octet-stream;

    include /etc/nginx/conf.d/*.conf;

    server {
        listen       80;
        listen       [::]:80;
        server_name  _;
        root         /usr/share/nginx/html;
        include /etc/nginx/default.d/*.conf;
    }
}
`

// The official Docker image's nginx.conf and conf.d/default.conf.
const dockerNginxConf = `user  nginx;
worker_processes  auto;
error_log  /var/log/nginx/error.log notice;
pid        /var/run/nginx.pid;

events {
    worker_connections  1024;
}

http {
    include       /etc/nginx/mime.types;
    default_type  application/octet-stream;
    access_log  /var/log/nginx/access.log;
    sendfile        on;
    keepalive_timeout  65;
    include /etc/nginx/conf.d/*.conf;
}
`

const dockerDefaultConf = `server {
    listen       80;
    listen  [::]:80;
    server_name  localhost;
    location / {
        root   /usr/share/nginx/html;
        index  index.html index.htm;
    }
}
`

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// servableTree makes a configuration tree servable by a test nginx on
// 127.0.0.1:port: the tree's /etc/nginx paths point into it; user, pid and
// error_log come from the command line; port 80 (and the grpc profile's
// 8090) become the test's port; IPv6 listens and log files go.
func servableTree(t *testing.T, dir string, port int) {
	t.Helper()
	drop := regexp.MustCompile(`(?m)^\s*(user|pid|error_log|listen \[::\]:\d+)\b.*\n`)
	listen := regexp.MustCompile(`listen (?:80|8090)\b`)
	logs := regexp.MustCompile(`access_log /var/log/nginx/[^;]*;`)
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		b, _ := os.ReadFile(p)
		s := drop.ReplaceAllString(string(b), "")
		s = listen.ReplaceAllString(s, fmt.Sprintf("listen 127.0.0.1:%d", port))
		s = logs.ReplaceAllString(s, "access_log off;")
		s = strings.ReplaceAll(s, "/etc/nginx/", dir+"/")
		s = strings.ReplaceAll(s, "include /usr/share/nginx/modules/*.conf;", "")
		return os.WriteFile(p, []byte(s), 0o644)
	})
	// absolute links of a copy name the copy's files
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type()&fs.ModeSymlink != 0 {
			if l, _ := os.Readlink(p); strings.HasPrefix(l, "/etc/nginx/") {
				os.Remove(p)
				os.Symlink(filepath.Join(dir, strings.TrimPrefix(l, "/etc/nginx/")), p)
			}
		}
		return err
	})
	nginxtestStock(dir)
}

func nginxtestStock(dir string) {
	for _, name := range []string{"mime.types", "fastcgi_params", "uwsgi_params"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			if b, err := os.ReadFile(filepath.Join("/etc/nginx", name)); err == nil {
				os.WriteFile(filepath.Join(dir, name), b, 0o644)
			}
		}
	}
}

// hostGet asks 127.0.0.1:port for path with a Host header; the status is 0
// when the connection was closed without an answer (return 444).
func hostGet(t *testing.T, port int, host, path string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	req.Host = host
	c := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(b)
}

var genSizing = []string{"--cpus", "2", "--memory", "4GiB", "--nofile", "1024:524288", "--nginx-version", "1.22.1"}

// gen --into a Debian tree adds the site in sites-available with its link
// in sites-enabled, keeps nginx.conf byte for byte, adds no catch-all where
// the stock default site is the default server (it says so), and the
// result serves both: the new name from the new site, any other from the
// stock one. A second run changes nothing; a second site joins the first.
func TestGenIntoDebian(t *testing.T) {
	dir := t.TempDir()
	etc := debianTree(t, dir)
	before, _ := os.ReadFile(filepath.Join(etc, "nginx.conf"))
	www := filepath.Join(dir, "www")
	writeTree(t, www, map[string]string{"index.html": "new site\n", ".env": "SECRET=1\n"})
	args := append([]string{"gen", "--profile", "static", "--server-name", "new.example", "--root", www, "--into", etc}, genSizing...)
	_, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("gen --into: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"layout debian (nginx.conf includes sites-enabled/)", "sites-available/default:2 is the default server for port 80",
		"--tune-main would set nginx.conf:5: worker_connections 768 ->"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no %q in:\n%s", want, errOut)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(etc, "nginx.conf")); string(after) != string(before) {
		t.Errorf("nginx.conf changed:\n%s", after)
	}
	if l, err := os.Readlink(filepath.Join(etc, "sites-enabled/new.example")); err != nil || l != "../sites-available/new.example" {
		t.Errorf("sites-enabled/new.example: %q %v", l, err)
	}
	for _, p := range []string{"sites-available/00-nginxtune-default", "sites-enabled/00-nginxtune-default", "sysctl.d", "systemd"} {
		if _, err := os.Lstat(filepath.Join(etc, p)); err == nil {
			t.Errorf("%s written", p)
		}
	}
	site, _ := os.ReadFile(filepath.Join(etc, "sites-available/new.example"))
	if !strings.Contains(string(site), "access_log /var/log/nginx/new.example.access.log") || strings.Contains(string(site), "open_file_cache max") {
		t.Errorf("the site's tuning: per-site log, no open_file_cache beyond 1024 descriptors and 768 connections:\n%s", site)
	}
	// nginxtune's own lint of the tree: nothing nginx refuses
	if out, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fail-on", "error", etc); code != 0 && code != ExitFindings || strings.Contains(out, ": error:") {
		t.Errorf("lint of the tree: exit %d\n%s%s", code, out, errOut)
	}
	// again: nothing changes
	_, errOut, code = runCLI(t, "", args...)
	if code != 0 || !strings.Contains(errOut, "nothing changed") {
		t.Errorf("second run: exit %d: %s", code, errOut)
	}
	// a second site, a proxy: joins the first
	_, errOut, code = runCLI(t, "", append([]string{"gen", "--profile", "node", "--server-name", "app.example", "--upstream", "127.0.0.1:9", "--into", etc}, genSizing...)...)
	if code != 0 {
		t.Fatalf("second site: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(etc, "conf.d/00-nginxtune-connection-upgrade.conf")); !strings.Contains(string(b), "map $http_upgrade $connection_upgrade") {
		t.Errorf("the websocket map is not in conf.d")
	}

	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving needs root")
	}
	serve := filepath.Join(t.TempDir(), "nginx")
	os.CopyFS(serve, os.DirFS(etc))
	// CopyFS refuses links; make them again
	for _, name := range []string{"default", "api", "new.example", "app.example"} {
		os.Remove(filepath.Join(serve, "sites-enabled", name))
		os.Symlink("../sites-available/"+name, filepath.Join(serve, "sites-enabled", name))
	}
	port := nginxtest.FreePort(t)
	servableTree(t, serve, port)
	os.WriteFile(filepath.Join(serve, "sites-available/api"), []byte(strings.ReplaceAll(debianAPISite, "listen 8080", fmt.Sprintf("listen 127.0.0.1:%d", nginxtest.FreePort(t)))), 0o644)
	nginxtest.Serve(t, serve, filepath.Join(serve, "nginx.conf"), fmt.Sprintf("127.0.0.1:%d", port))
	if code, h, body := hostGet(t, port, "new.example", "/"); code != 200 || body != "new site\n" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("new.example: %d %q %v", code, body, h)
	}
	if code, _, _ := hostGet(t, port, "new.example", "/.env"); code != 404 {
		t.Errorf("new.example/.env: %d", code)
	}
	if code, _, body := hostGet(t, port, "other.example", "/"); code == 0 || strings.Contains(body, "new site") {
		t.Errorf("an unknown name got the new site or nothing: %d %q (the stock default site answers it)", code, body)
	}
}

// --tune-main changes the three main numbers in the tree's nginx.conf and
// nothing else, keeps its mode and owner and a link to it; --os-root puts
// the OS half under the root given.
func TestGenIntoTuneMain(t *testing.T) {
	dir := t.TempDir()
	etc := debianTree(t, dir)
	conf := filepath.Join(etc, "nginx.conf")
	// nginx.conf as a link to a file in the tree, mode 0640, another group
	os.Rename(conf, filepath.Join(etc, "nginx.conf.real"))
	os.Symlink("nginx.conf.real", conf)
	os.Chmod(filepath.Join(etc, "nginx.conf.real"), 0o640)
	os.Lchown(filepath.Join(etc, "nginx.conf.real"), os.Getuid(), 4)
	osRoot := filepath.Join(dir, "root")
	_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--server-name", "new.example", "--into", etc, "--tune-main", "--os-root", osRoot, "--verify=false"}, genSizing...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(conf)
	want := strings.Replace(strings.Replace(debianNginxConf, "worker_processes auto;", "worker_processes 2;\nworker_rlimit_nofile ", 1), "worker_connections 768;", "worker_connections ", 1)
	re := regexp.MustCompile(`worker_rlimit_nofile (\d+);`)
	m := re.FindStringSubmatch(string(b))
	conns := regexp.MustCompile(`worker_connections (\d+);`).FindStringSubmatch(string(b))
	if m == nil || conns == nil || strings.Replace(strings.Replace(string(b), m[1]+";", "", 1), conns[1]+";", "", 1) != want {
		t.Errorf("nginx.conf after --tune-main:\n%s\nwant only the three numbers changed from:\n%s", b, debianNginxConf)
	}
	if l, err := os.Readlink(conf); err != nil || l != "nginx.conf.real" {
		t.Errorf("the link to nginx.conf was replaced: %q %v", l, err)
	}
	st, _ := os.Stat(filepath.Join(etc, "nginx.conf.real"))
	if st.Mode().Perm() != 0o640 || (os.Geteuid() == 0 && st.Sys().(*syscall.Stat_t).Gid != 4) {
		t.Errorf("mode %o gid %d, want 0640 and 4", st.Mode().Perm(), st.Sys().(*syscall.Stat_t).Gid)
	}
	if _, err := os.Stat(filepath.Join(osRoot, "etc/sysctl.d/60-nginxtune.conf")); err != nil {
		t.Errorf("the OS half under --os-root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(etc, "sysctl.d")); err == nil {
		t.Errorf("the OS half in the nginx tree")
	}
	site, _ := os.ReadFile(filepath.Join(etc, "sites-available/new.example"))
	if !strings.Contains(string(site), "open_file_cache max=10000") {
		t.Errorf("with the main numbers raised the site gets its file cache:\n%s", site)
	}
}

// RHEL: the site goes to conf.d, nginx.conf and default.d stay, and since
// the stock server claims no default_server, gen's catch-all closes
// unknown names. Served by real nginx with both.
func TestGenIntoRHEL(t *testing.T) {
	etc := filepath.Join(t.TempDir(), "nginx")
	writeTree(t, etc, map[string]string{"nginx.conf": rhelNginxConf, "conf.d/.keep": "", "default.d/.keep": ""})
	www := filepath.Join(t.TempDir(), "www")
	writeTree(t, www, map[string]string{"index.html": "rhel site\n"})
	_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--server-name", "new.example", "--root", www, "--into", etc}, genSizing...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "layout rhel") {
		t.Errorf("layout: %s", errOut)
	}
	for _, p := range []string{"conf.d/new.example.conf", "conf.d/00-nginxtune-default.conf"} {
		if _, err := os.Stat(filepath.Join(etc, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(etc, "nginx.conf")); string(b) != rhelNginxConf {
		t.Errorf("nginx.conf changed")
	}
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving needs root")
	}
	port := nginxtest.FreePort(t)
	servableTree(t, etc, port)
	nginxtest.Serve(t, etc, filepath.Join(etc, "nginx.conf"), fmt.Sprintf("127.0.0.1:%d", port))
	if code, _, body := hostGet(t, port, "new.example", "/"); code != 200 || body != "rhel site\n" {
		t.Errorf("new.example: %d %q", code, body)
	}
	if code, _, body := hostGet(t, port, "evil.example", "/"); code != 0 {
		t.Errorf("unknown name answered %d %q, want the connection closed", code, body)
	}
}

// The Docker image: --layout docker --out writes nginx.conf (user nginx,
// the image's pid and include) and conf.d/, no sysctl.d or systemd, and
// says the run flags instead; --into the image's tree adds to conf.d.
func TestGenDockerLayout(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ctx")
	_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "node", "--server-name", "app.example", "--upstream", "app:3000", "--layout", "docker", "--out", out}, genSizing...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	conf, _ := os.ReadFile(filepath.Join(out, "nginx.conf"))
	for _, want := range []string{"\nuser nginx;\n", "pid /var/run/nginx.pid;", "include /etc/nginx/conf.d/*.conf;", "docker run --ulimit nofile="} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("no %q in nginx.conf:\n%s", want, conf)
		}
	}
	for _, p := range []string{"sysctl.d", "systemd", "sites"} {
		if _, err := os.Stat(filepath.Join(out, p)); err == nil {
			t.Errorf("%s written into the build context", p)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "conf.d/app.example.conf")); err != nil {
		t.Error(err)
	}
	if _, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "php", "--layout", "docker", "--out", t.TempDir()}, genSizing...)...); code != ExitError || !strings.Contains(errOut, "--upstream is required") {
		t.Errorf("php in a container without --upstream: exit %d %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--server-name", "a.example", "--acme", "--layout", "docker", "--out", t.TempDir()}, genSizing...)...); code != ExitError || !strings.Contains(errOut, "--acme is not for the docker layout") {
		t.Errorf("--acme in a container: exit %d %s", code, errOut)
	}
	image := filepath.Join(t.TempDir(), "nginx")
	writeTree(t, image, map[string]string{"nginx.conf": dockerNginxConf, "conf.d/default.conf": dockerDefaultConf})
	_, errOut, code = runCLI(t, "", append([]string{"gen", "--profile", "static", "--server-name", "app.example", "--into", image}, genSizing...)...)
	if code != 0 || !strings.Contains(errOut, "layout docker") {
		t.Fatalf("--into the image's tree: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(image, "conf.d/00-nginxtune-default.conf")); err != nil {
		t.Errorf("no catch-all beside the image's default.conf (which claims no default_server): %v", err)
	}
}

// A tree gen adds to is untrusted unless it is the live configuration or
// --nginx-test says so: nginx -t never reads it (it would create the log
// files its sites name, as root), while nginxtune's own reading still
// refuses what nginx would (an upstream of the same name in a site of the
// tree).
func TestGenIntoUntrustedTree(t *testing.T) {
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("verification runs as root")
	}
	marker := filepath.Join(t.TempDir(), "created-by-nginx-t.log")
	etc := filepath.Join(t.TempDir(), "nginx")
	writeTree(t, etc, map[string]string{"nginx.conf": rhelNginxConf,
		"conf.d/theirs.conf": "server {\n    listen 8081;\n    access_log " + marker + ";\n}\n"})
	args := append([]string{"gen", "--profile", "static", "--server-name", "new.example", "--into", etc}, genSizing...)
	_, errOut, code := runCLI(t, "", args...)
	if code != 0 || !strings.Contains(errOut, "nginx -t checks gen's files only") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("nginx -t read the untrusted tree and created %s", marker)
	}
	// with --nginx-test the whole tree is read (so the test above can fail)
	_, errOut, code = runCLI(t, "", append(args, "--nginx-test")...)
	if code != 0 || !strings.Contains(errOut, "with the whole of") {
		t.Fatalf("--nginx-test: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("--nginx-test did not run nginx -t over the tree: %v", err)
	}
	// a name clash nginx would refuse is found without nginx -t
	writeTree(t, etc, map[string]string{"conf.d/clash.conf": "upstream backend_api_example {\n    server 127.0.0.1:1;\n}\n"})
	_, errOut, code = runCLI(t, "", append([]string{"gen", "--profile", "node", "--server-name", "api.example", "--into", etc}, genSizing...)...)
	if code != ExitError || !strings.Contains(errOut, "duplicate-definition") {
		t.Errorf("an upstream name taken in the tree: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(etc, "conf.d/api.example.conf")); err == nil {
		t.Errorf("written although the tree would not load")
	}
}

// --into refuses a directory without nginx.conf and a tree whose nginx.conf
// includes no directory sites are read from.
func TestGenIntoRefuses(t *testing.T) {
	empty := t.TempDir()
	if _, errOut, code := runCLI(t, "", "gen", "--profile", "static", "--into", empty, "--verify=false"); code != ExitError || !strings.Contains(errOut, "no nginx.conf there") {
		t.Errorf("empty: exit %d %s", code, errOut)
	}
	bare := t.TempDir()
	writeTree(t, bare, map[string]string{"nginx.conf": "events {}\nhttp {\n    server { listen 80; }\n}\n"})
	if _, errOut, code := runCLI(t, "", "gen", "--profile", "static", "--into", bare, "--verify=false"); code != ExitError || !strings.Contains(errOut, "give --layout") {
		t.Errorf("bare: exit %d %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", "gen", "--profile", "static", "--into", bare, "--layout", "debian", "--verify=false"); code != ExitError || !strings.Contains(errOut, "does not include sites-enabled/") {
		t.Errorf("bare as debian: exit %d %s", code, errOut)
	}
}

// A fragment an nginx.conf above it includes is linted inside that tree:
// the header dropped by the site's location is found against the http
// level; findings are the fragment's only. Alone (nothing includes it) it
// is linted as before.
func TestLintFragmentInsideTree(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"nginx.conf":   "events {}\nhttp {\n    server_tokens off;\n    add_header X-Frame-Options DENY;\n    include sites/*.conf;\n}\n",
		"sites/a.conf": "server {\n    listen 80;\n    location / {\n        add_header X-A b;\n        return 200;\n    }\n}\n",
		"loose/b.conf": "server {\n    listen 80;\n    location / {\n        add_header X-A b;\n        return 200;\n    }\n}\n",
	})
	t.Chdir(dir)
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "sites/a.conf")
	if code != ExitFindings || !strings.Contains(out, "sites/a.conf:4:9: warning: this add_header replaces the ones inherited from http at nginx.conf:2") ||
		!strings.Contains(errOut, "is included by nginx.conf") || strings.HasPrefix(out, "nginx.conf:") || strings.Contains(out, "\nnginx.conf:") {
		t.Errorf("fragment in its tree: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, _ = runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "loose/b.conf")
	if strings.Contains(errOut, "is included by") || strings.Contains(out, "header-inheritance") {
		t.Errorf("a fragment nothing includes was linted in a tree:\n%s%s", out, errOut)
	}
}

// --acme in the Debian layout: the HTTPS site waits in sites-available
// without a link (the deploy hook makes it), the TLS catch-all is linked
// at once, and both phases pass nginx -t. The catch-all's name also ends
// in "-tls", which verification once took for the staged site, leaving
// its link dangling in the first phase.
func TestGenACMEDebian(t *testing.T) {
	out := filepath.Join(t.TempDir(), "nginx")
	_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--acme", "--server-name", "a.example", "--layout", "debian", "--out", out}, genSizing...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if nginxtest.Binary() != "" && os.Geteuid() == 0 && !strings.Contains(errOut, "before the certificate exists") {
		t.Errorf("both phases not verified: %s", errOut)
	}
	if _, err := os.Lstat(filepath.Join(out, "sites-enabled/a.example-tls")); err == nil {
		t.Errorf("the staged HTTPS site is enabled before its certificate exists")
	}
	if l, err := os.Readlink(filepath.Join(out, "sites-enabled/00-nginxtune-default-tls")); err != nil || l != "../sites-available/00-nginxtune-default-tls" {
		t.Errorf("the TLS catch-all is not linked: %q %v", l, err)
	}
}
