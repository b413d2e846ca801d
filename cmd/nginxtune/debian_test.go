package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

const debianNginxConf = `user www-data;
worker_processes auto;
pid /run/nginx.pid;
events {
    worker_connections 768;
}
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    sendfile on;
    access_log /var/log/nginx/access.log combined buffer=64k flush=5s;
    include /etc/nginx/conf.d/*.conf;
    include /etc/nginx/sites-enabled/*;
}
`

const debianDefaultSite = `server {
    listen 80 default_server;
    root /var/www/html;
    location / {
        try_files $uri $uri/ =404;
    }
    location /app/ {
        include proxy_params;
        proxy_pass http://127.0.0.1:3000;
    }
}
`

const debianAPISite = `upstream api {
    server 127.0.0.1:4000;
    keepalive 16;
}
server {
    listen 8080;
    location / {
        include proxy_params;
        proxy_pass http://api;
    }
}
`

const debianProxyParams = `proxy_set_header Host $http_host;
proxy_set_header X-Real-IP $remote_addr;
proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
proxy_set_header X-Forwarded-Proto $scheme;
`

// debianTree writes a copy of a Debian /etc/nginx into dir: sites enabled
// through a relative link and an absolute one (to /etc/nginx/..., the
// server's path), the shared proxy_params, and files that are not nginx
// configuration beside them.
func debianTree(t *testing.T, dir string) string {
	t.Helper()
	etc := filepath.Join(dir, "etc/nginx")
	for _, d := range []string{"conf.d", "sites-available", "sites-enabled", "snippets"} {
		os.MkdirAll(filepath.Join(etc, d), 0o755)
	}
	files := map[string]string{
		"nginx.conf":              debianNginxConf,
		"mime.types":              "types {\n    text/html html;\n}\n",
		"proxy_params":            debianProxyParams,
		"sites-available/default": debianDefaultSite,
		"sites-available/api":     debianAPISite,
		"README.md":               "# Our nginx\n\nEdit sites-available, then link.\n",
		"notes":                   "Remember to reload after editing.\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(etc, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("../sites-available/default", filepath.Join(etc, "sites-enabled/default"))
	os.Symlink("/etc/nginx/sites-available/api", filepath.Join(etc, "sites-enabled/api"))
	os.MkdirAll(filepath.Join(dir, "roles/nginx/tasks"), 0o755)
	os.WriteFile(filepath.Join(dir, "roles/nginx/tasks/main.yml"), []byte("- name: install nginx\n  apt:\n    name: nginx\n"), 0o644)
	return etc
}

// Findings in a site enabled through a link are filed at the real file and
// say which link reads it; absolute links of a copy are read from the copy.
func TestDebianLayoutLint(t *testing.T) {
	dir := t.TempDir()
	etc := debianTree(t, dir)
	t.Chdir(dir)
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "etc/nginx")
	if code != ExitFindings {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "etc/nginx/sites-available/default:9:20: warning: proxy_pass to the address 127.0.0.1:3000") ||
		!strings.Contains(out, "(read via sites-enabled/default)") {
		t.Errorf("finding not at the real file with its link:\n%s", out)
	}
	if strings.Contains(errOut, "outside") {
		t.Errorf("the copy's absolute links were read from this machine:\n%s", errOut)
	}
	// --changed with the link's target, as pre-commit passes it, and with
	// files that are not configuration
	out, errOut, code = runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--changed",
		"etc/nginx/sites-available/default", "etc/nginx/notes")
	if code != ExitFindings || !strings.Contains(out, "sites-available/default:9:20") {
		t.Errorf("--changed sites-available/default: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "skipped etc/nginx/notes: not an nginx configuration") {
		t.Errorf("notes not skipped:\n%s", errOut)
	}
	_, errOut, code = runCLI(t, "", "lint", "--no-config", "--no-host", "--changed", "etc/nginx/notes", "roles/nginx/tasks/main.yml")
	if code != 0 {
		t.Errorf("files that are not nginx configuration failed the hook: exit %d\n%s", code, errOut)
	}
	_ = etc
}

// --fix writes through links to their targets, keeps owner, group and mode,
// and puts an edit meant for one location into that location, not into the
// proxy_params every site includes.
func TestDebianLayoutFix(t *testing.T) {
	dir := t.TempDir()
	etc := debianTree(t, dir)
	site := filepath.Join(etc, "sites-available/default")
	api := filepath.Join(etc, "sites-available/api")
	asRoot := os.Geteuid() == 0
	if asRoot {
		for _, p := range []string{site, api} {
			os.Chown(p, 65534, 65534)
		}
	}
	os.Chmod(site, 0o640)
	_, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", etc)
	if !strings.Contains(errOut, "applied") {
		t.Fatalf("lint --fix: exit %d: %s", code, errOut)
	}
	for _, link := range []string{"sites-enabled/default", "sites-enabled/api"} {
		fi, err := os.Lstat(filepath.Join(etc, link))
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link", link)
		}
	}
	st, _ := os.Stat(site)
	if st.Mode().Perm() != 0o640 {
		t.Errorf("mode %o, want 640", st.Mode().Perm())
	}
	if asRoot {
		for _, p := range []string{site, api} {
			st, _ := os.Stat(p)
			if sys := st.Sys().(*syscall.Stat_t); sys.Uid != 65534 || sys.Gid != 65534 {
				t.Errorf("%s: owner %d:%d, want 65534:65534 (nobody:nogroup)", filepath.Base(p), sys.Uid, sys.Gid)
			}
		}
	}
	// a later pass applies only what the first report showed: the
	// descriptor limit a new open_file_cache needs is reported, not written
	if b, _ := os.ReadFile(filepath.Join(etc, "nginx.conf")); strings.Contains(string(b), "worker_rlimit_nofile") {
		t.Errorf("--fix added a directive no finding of the first report asked for:\n%s", b)
	}
	params, _ := os.ReadFile(filepath.Join(etc, "proxy_params"))
	if string(params) != debianProxyParams {
		t.Errorf("the shared proxy_params was edited:\n%s", params)
	}
	b, _ := os.ReadFile(api)
	if !strings.Contains(string(b), "include proxy_params;\n        proxy_set_header Connection \"\";") {
		t.Errorf("Connection header not added where the finding is:\n%s", b)
	}
	b, _ = os.ReadFile(site)
	if !strings.Contains(string(b), "keepalive 32;") {
		t.Errorf("default site not fixed:\n%s", b)
	}
	if bin, err := exec.LookPath("nginx"); err == nil && asRoot {
		_ = bin // the fixed tree names /etc/nginx paths: nginx -t of it is in TestFix
	}
}

// A snippet with a literal proxy_pass included where different headers are
// inherited: keeping the Host header would need different edits in each
// place, so --fix leaves it and the finding stays.
func TestFixLeavesSharedSnippet(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "snippets"), 0o755)
	snippet := "proxy_pass http://127.0.0.1:9000;\n"
	os.WriteFile(filepath.Join(dir, "snippets/app.conf"), []byte(snippet), 0o644)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(`events {}
http {
    server {
        listen 80;
        proxy_set_header X-A a;
        location /a/ { include snippets/app.conf; }
    }
    server {
        listen 81;
        proxy_set_header X-B b;
        location /b/ { include snippets/app.conf; }
    }
}
`), 0o644)
	out, errOut, _ := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", filepath.Join(dir, "nginx.conf"))
	if b, _ := os.ReadFile(filepath.Join(dir, "snippets/app.conf")); string(b) != snippet {
		t.Errorf("the shared snippet was edited:\n%s", b)
	}
	if !strings.Contains(out, "app.conf:1:12: warning: proxy_pass to the address 127.0.0.1:9000") {
		t.Errorf("finding gone:\n%s%s", out, errOut)
	}
}

// A tree that could not be read whole exits 2 whatever --fail-on or
// --disable say; --fail-on's error names every level it takes.
func TestUnreadableTreeExit2(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "site.conf"), 0o755) // a directory where a file is named
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include site.conf;\n}\n"), 0o644)
	_, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--fail-on", "none", "--disable", "include-missing", filepath.Join(dir, "nginx.conf"))
	if code != ExitError || !strings.Contains(errOut, "could not be read") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "", "lint", "--no-config", "--fail-on", "sometimes", filepath.Join(dir, "nginx.conf"))
	if code != ExitError || !strings.Contains(errOut, "error, warning, info or none") {
		t.Errorf("--fail-on sometimes: exit %d: %s", code, errOut)
	}
}

// The most specific --map wins, in any order, for lint and parse alike.
func TestMapPrecedence(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/conf.d"), 0o755)
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/conf.d/x.conf"), []byte("gzip_comp_level 8;\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b/x.conf"), []byte("gzip_comp_level 9;\n"), 0o644)
	main := filepath.Join(dir, "nginx.conf")
	os.WriteFile(main, []byte("events {}\nhttp {\n    include /srv/site/conf.d/x.conf;\n}\n"), 0o644)
	specific := "/srv/site/conf.d=" + filepath.Join(dir, "b")
	general := "/srv/site=" + filepath.Join(dir, "a")
	for _, order := range [][]string{{specific, general}, {general, specific}} {
		out, errOut, _ := runCLI(t, "", "lint", "--no-config", "--no-host", "--format", "json", "--map", order[0], "--map", order[1], main)
		if !strings.Contains(out, "gzip_comp_level 9") || strings.Contains(out, "gzip_comp_level 8") {
			t.Errorf("lint with %v read the wrong file:\n%s%s", order, out, errOut)
		}
		pout, perr, _ := runCLI(t, "", "parse", "--map", order[0], "--map", order[1], main)
		if !strings.Contains(pout, filepath.Join(dir, "b/x.conf")) || strings.Contains(pout, filepath.Join(dir, "a/conf.d/x.conf")) {
			t.Errorf("parse with %v read the wrong file:\n%s%s", order, pout, perr)
		}
	}
}

// Debian's stock configuration, as the package installs it, passes: lint of
// /etc/nginx and of "nginx -T" exit 0 (its http-level ssl_protocols with
// TLS 1.0 and 1.1 is information while no server uses TLS).
func TestStockDebianPasses(t *testing.T) {
	if _, err := os.Stat("/etc/nginx/nginx.conf"); err != nil {
		t.Skip("no /etc/nginx")
	}
	if out, err := exec.Command("dpkg", "--verify", "nginx-common").CombinedOutput(); err != nil || len(out) > 0 {
		t.Skipf("/etc/nginx is not Debian's stock configuration (dpkg --verify nginx-common: %v %s)", err, out)
	}
	out, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "/etc/nginx")
	if code != ExitOK {
		t.Errorf("lint /etc/nginx: exit %d\n%s%s", code, out, errOut)
	}
	dump, err := exec.Command("nginx", "-T").Output()
	if err != nil {
		t.Skipf("nginx -T: %v", err)
	}
	out, errOut, code = runCLI(t, string(dump), "lint", "--no-config", "--no-host", "-")
	if code != ExitOK {
		t.Errorf("nginx -T | lint -: exit %d\n%s%s", code, out, errOut)
	}
}

// certbot's layout: TLS servers include /etc/letsencrypt/options-ssl-nginx.conf,
// which a checkout does not hold. What it may set (a session cache, the
// protocols) is not claimed unset, and --fix adds nothing for it.
func TestCertbotIncludeNotRead(t *testing.T) {
	dir := t.TempDir()
	conf := `events {}
http {
    ssl_protocols TLSv1 TLSv1.1 TLSv1.2;
    server {
        listen 443 ssl;
        server_name example.com;
        ssl_certificate /etc/letsencrypt/live/example.com/fullchain.pem;
        ssl_certificate_key /etc/letsencrypt/live/example.com/privkey.pem;
        include /etc/letsencrypt/options-ssl-nginx.conf;
        root /var/www/html;
    }
}
`
	p := filepath.Join(dir, "nginx.conf")
	os.WriteFile(p, []byte(conf), 0o644)
	out, errOut, _ := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1", "--fix", p)
	if strings.Contains(out, "ssl-session-cache") || strings.Contains(out, "weak-tls") {
		t.Errorf("claims about what the unread include may set:\n%s%s", out, errOut)
	}
	if b, _ := os.ReadFile(p); strings.Contains(string(b), "ssl_session_cache") {
		t.Errorf("--fix added a session cache the include may already declare:\n%s", b)
	}
	if !strings.Contains(out, "include-outside-tree") {
		t.Errorf("the unread include is not reported:\n%s", out)
	}
}

// A Debian tree kept in git without sites-enabled (host state): --map for
// sites-enabled adds to the guessed map for conf.d (the upstream defined
// there is found, not rewritten into "server app:80"), and --fix leaves
// every site loadable on its own: deployed with relative and absolute
// sites-enabled links, nginx -t passes with every site, and with each one
// disabled in turn.
func TestDebianCheckoutFixKeepsSitesIndependent(t *testing.T) {
	repo := t.TempDir()
	for _, d := range []string{"conf.d", "sites-available"} {
		os.MkdirAll(filepath.Join(repo, d), 0o755)
	}
	files := map[string]string{
		"nginx.conf":            "events {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n    include /etc/nginx/sites-enabled/*;\n}\n",
		"conf.d/upstreams.conf": "upstream app {\n    server 127.0.0.1:8080;\n    keepalive 32;\n}\n",
		"sites-available/a":     "server {\n    listen 127.0.0.1:8001;\n    location / {\n        proxy_pass http://app;\n    }\n    location /api/ {\n        proxy_pass http://127.0.0.1:9000;\n    }\n}\n",
		"sites-available/b":     "server {\n    listen 127.0.0.1:8002;\n    location /api/ {\n        proxy_pass http://127.0.0.1:9000;\n    }\n}\n",
		"sites-available/c":     "server {\n    listen 127.0.0.1:8003;\n    location / {\n        proxy_pass http://127.0.0.1:9100;\n    }\n}\n",
	}
	for name, content := range files {
		os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644)
	}
	if out, err := runCmd(t, repo, "git", "init", "-q"); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	t.Chdir(repo)
	_, errOut, code := runCLI(t, "", "lint", "--no-config", "--no-host", "--nginx-version", "1.22.1",
		"--map", "/etc/nginx/sites-enabled="+filepath.Join(repo, "sites-available"), "--fix", repo)
	if !strings.Contains(errOut, "applied") || code == ExitError {
		t.Fatalf("--fix: exit %d: %s", code, errOut)
	}
	all := ""
	for name := range files {
		b, _ := os.ReadFile(filepath.Join(repo, name))
		all += string(b)
	}
	if strings.Contains(all, "server app:80") || strings.Contains(all, "backend_app") {
		t.Errorf("the upstream defined in conf.d was rewritten:\n%s", all)
	}
	for _, site := range []string{"a", "b", "c"} {
		if b, _ := os.ReadFile(filepath.Join(repo, "sites-available", site)); !strings.Contains(string(b), "backend_127_0_0_1") {
			t.Errorf("site %s not fixed:\n%s", site, b)
		}
	}
	if os.Geteuid() != 0 || nginxcheck.Binary() == "" {
		return
	}
	// deploy: the tree at a prefix standing for /etc/nginx, the sites
	// enabled by links (relative for a and c, absolute for b)
	deploy := func(enabled []string) nginxcheck.Result {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(repo)); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "nginx.conf"))
		os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(strings.ReplaceAll(string(b), "/etc/nginx/", dir+"/")), 0o644)
		os.MkdirAll(filepath.Join(dir, "sites-enabled"), 0o755)
		for _, s := range enabled {
			target := "../sites-available/" + s
			if s == "b" {
				target = filepath.Join(dir, "sites-available", s)
			}
			os.Symlink(target, filepath.Join(dir, "sites-enabled", s))
		}
		return nginxtest.Run(t, nginxcheck.Binary(), dir, filepath.Join(dir, "nginx.conf"))
	}
	if res := deploy([]string{"a", "b", "c"}); !res.OK {
		t.Errorf("every site enabled: nginx -t fails: %s", res.Output)
	}
	for _, off := range []string{"a", "b", "c"} {
		var on []string
		for _, s := range []string{"a", "b", "c"} {
			if s != off {
				on = append(on, s)
			}
		}
		if res := deploy(on); !res.OK {
			t.Errorf("site %s disabled: nginx -t fails: %s", off, res.Output)
		}
	}
}

// parse, route and fmt read the live configuration as lint does: Debian's
// modules-enabled files, links to /usr/share/nginx/modules-available, are
// in the tree, not reported outside it.
func TestLiveTreeReadAlikeByEveryCommand(t *testing.T) {
	links, _ := filepath.Glob("/etc/nginx/modules-enabled/*.conf")
	if len(links) == 0 {
		t.Skip("no /etc/nginx/modules-enabled/*.conf")
	}
	target, err := filepath.EvalSymlinks(links[0])
	if err != nil || strings.HasPrefix(target, "/etc/nginx/") {
		t.Skipf("%s is not a link out of /etc/nginx", links[0])
	}
	out, errOut, code := runCLI(t, "", "parse", "/etc/nginx")
	if code != ExitOK || !strings.Contains(out, `"path": "`+target+`"`) || strings.Contains(out, "include-outside-tree") {
		t.Errorf("parse /etc/nginx: exit %d, %s not read as nginx reads it\n%s", code, target, errOut)
	}
	// route would otherwise say what it could not see
	out, errOut, code = runCLI(t, "", "route", "--format", "json", "/etc/nginx", "http://localhost/")
	if code != ExitOK || strings.Contains(out, "were not read") {
		t.Errorf("route /etc/nginx: exit %d\n%s%s", code, out, errOut)
	}
}
