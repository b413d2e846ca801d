package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// phpFPM starts Debian's php-fpm with the pool settings Debian ships
// (pm = dynamic, pm.max_children = 5) on a unix socket in dir, serving a
// script that takes 50 ms and prints PATH_INFO.
func phpFPM(t *testing.T, dir string) (sock, docroot string) {
	t.Helper()
	bins, _ := filepath.Glob("/usr/sbin/php-fpm*")
	if len(bins) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("php-fpm is not installed; .ci/run installs it (scripts/deps.sh)")
		}
		t.Skip("php-fpm is not installed")
	}
	if os.Geteuid() != 0 {
		t.Skip("running php-fpm and nginx needs root here")
	}
	sock = filepath.Join(dir, "php-fpm.sock")
	docroot = filepath.Join(dir, "www")
	os.MkdirAll(docroot, 0o755)
	os.WriteFile(filepath.Join(docroot, "index.php"), []byte("<?php usleep(50000); echo 'path_info=', $_SERVER['PATH_INFO'] ?? '', \"\\n\";\n"), 0o644)
	conf := filepath.Join(dir, "php-fpm.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf(`[global]
pid = %[1]s/php-fpm.pid
error_log = %[1]s/php-fpm.log
daemonize = no
[www]
user = root
group = root
listen = %[2]s
pm = dynamic
pm.max_children = 5
pm.start_servers = 2
pm.min_spare_servers = 1
pm.max_spare_servers = 3
`, dir, sock)), 0o644)
	cmd := exec.Command(bins[0], "-F", "-R", "-n", "-y", conf)
	// its own process group, stopped whole (SIGQUIT, then SIGKILL): killing
	// only the master orphaned its workers
	nginxtest.StartGroup(t, cmd)
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(sock); err == nil {
			return sock, docroot
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "php-fpm.log"))
	t.Fatalf("php-fpm did not create %s: %s", sock, log)
	return "", ""
}

// servable turns gen's output into a configuration a test can serve: the
// listen address on loopback, and pid, user and logs left to the command
// line.
func servable(t *testing.T, dir string, port int) {
	t.Helper()
	nginxcheck.StockFiles(dir)
	drop := regexp.MustCompile(`(?m)^\s*(user|pid|error_log|listen \[::\]:80)\b.*\n`)
	sites, _ := filepath.Glob(filepath.Join(dir, "sites/*.conf"))
	for _, p := range append([]string{filepath.Join(dir, "nginx.conf")}, sites...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := drop.ReplaceAllString(string(b), "")
		s = strings.ReplaceAll(s, "listen 80;", fmt.Sprintf("listen 127.0.0.1:%d;", port))
		s = strings.ReplaceAll(s, "listen 80 default_server;", fmt.Sprintf("listen 127.0.0.1:%d default_server;", port))
		s = regexp.MustCompile(`access_log /var/log/nginx/access.log[^;]*;`).ReplaceAllString(s, "access_log off;")
		os.WriteFile(p, []byte(s), 0o644)
	}
}

type abResult struct {
	complete, failed, non2xx int
	rps                      float64
	out                      string
}

// ab runs ApacheBench against url, bounded in time.
func ab(t *testing.T, n, c int, url string) abResult {
	t.Helper()
	if _, err := exec.LookPath("ab"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ab is not installed; scripts/deps.sh installs apache2-utils")
		}
		t.Skip("ab is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "ab", "-q", "-s", "20", "-n", strconv.Itoa(n), "-c", strconv.Itoa(c), url).CombinedOutput()
	r := abResult{out: string(out)}
	num := func(re string) float64 {
		m := regexp.MustCompile(re).FindStringSubmatch(r.out)
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	r.complete = int(num(`Complete requests:\s+(\d+)`))
	r.failed = int(num(`Failed requests:\s+(\d+)`))
	r.non2xx = int(num(`Non-2xx responses:\s+(\d+)`))
	r.rps = num(`Requests per second:\s+([\d.]+)`)
	return r
}

// gen --profile php against a real php-fpm with Debian's pool (5
// children): with the pool sized from pm.max_children, and with no pool when
// it is unknown, every request is served; PATH_INFO reaches PHP.
func TestPHPProfileWithPHPFPM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts php-fpm and nginx (the full tier, make test)")
	}
	nginxtest.Require(t)
	for _, tc := range []struct {
		name  string
		flags []string
		pool  string
	}{
		{"sized", []string{"--fpm-max-children", "5"}, "keepalive 1;"},
		{"unknown", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sock, docroot := phpFPM(t, dir)
			conf := filepath.Join(dir, "conf")
			args := append([]string{"gen", "--profile", "php", "--cpus", "2", "--memory", "4GiB", "--nofile", "1024:524288",
				"--nginx-version", "1.22.1", "--verify=false", "--upstream", "unix:" + sock, "--root", docroot, "--out", conf}, tc.flags...)
			if _, errOut, code := runCLI(t, "", args...); code != 0 {
				t.Fatalf("gen: exit %d: %s", code, errOut)
			}
			site, _ := os.ReadFile(filepath.Join(conf, "sites/default.conf"))
			if tc.pool != "" && (!strings.Contains(string(site), tc.pool) || !strings.Contains(string(site), "fastcgi_keep_conn on;")) {
				t.Fatalf("want %q and fastcgi_keep_conn:\n%s", tc.pool, site)
			}
			if tc.pool == "" && (strings.Contains(string(site), "keepalive ") || strings.Contains(string(site), "fastcgi_keep_conn")) {
				t.Fatalf("no pool expected:\n%s", site)
			}
			port := nginxtest.FreePort(t)
			servable(t, conf, port)
			nginxtest.Serve(t, conf, filepath.Join(conf, "nginx.conf"), fmt.Sprintf("127.0.0.1:%d", port))
			base := fmt.Sprintf("http://127.0.0.1:%d", port)
			if code, body := nginxtest.Get(t, base+"/index.php/foo/bar"); code != 200 || body != "path_info=/foo/bar\n" {
				t.Errorf("PATH_INFO: %d %q", code, body)
			}
			r := ab(t, 400, 10, base+"/index.php")
			t.Logf("%s: ab -n 400 -c 10: %d complete, %d failed, %d non-2xx, %.1f req/s", tc.name, r.complete, r.failed, r.non2xx, r.rps)
			if r.complete != 400 || r.failed != 0 || r.non2xx != 0 {
				t.Errorf("php-fpm stalled or failed:\n%s", r.out)
			}
		})
	}
}

// What gen writes is safe to deploy as it is, served by real nginx (and
// php-fpm for the php profile): dot-files, backups, the PHP project's own
// files and PHP dropped into uploads are not served or run, and a request
// for a name no site serves is closed without an answer.
func TestGenSafeByDefault(t *testing.T) {
	nginxtest.Require(t)
	for _, profile := range []string{"static", "php"} {
		t.Run(profile, func(t *testing.T) {
			dir := t.TempDir()
			var sock, docroot string
			args := []string{"gen", "--profile", profile, "--server-name", "app.test", "--cpus", "2", "--memory", "4GiB", "--nofile", "1024:524288",
				"--nginx-version", "1.22.1", "--verify=false"}
			if profile == "php" {
				sock, docroot = phpFPM(t, dir)
				args = append(args, "--upstream", "unix:"+sock)
			} else {
				docroot = filepath.Join(dir, "www")
				os.MkdirAll(docroot, 0o755)
				os.WriteFile(filepath.Join(docroot, "index.html"), []byte("home\n"), 0o644)
			}
			for name, body := range map[string]string{
				".git/config": "[core]\n", ".env": "SECRET=1\n", "backup.sql": "DROP TABLE x;\n", "site.conf.bak": "x\n",
				"composer.json": "{}\n", "uploads/x.php": "<?php echo 'ran';\n", "uploads/photo.txt": "photo\n",
				".well-known/security.txt": "Contact: x\n", "#wp-config.php#": "SECRET=2\n",
			} {
				os.MkdirAll(filepath.Dir(filepath.Join(docroot, name)), 0o755)
				os.WriteFile(filepath.Join(docroot, name), []byte(body), 0o644)
			}
			conf := filepath.Join(dir, "conf")
			if _, errOut, code := runCLI(t, "", append(args, "--root", docroot, "--out", conf)...); code != 0 {
				t.Fatalf("gen: exit %d: %s", code, errOut)
			}
			port := nginxtest.FreePort(t)
			servable(t, conf, port)
			nginxtest.Serve(t, conf, filepath.Join(conf, "nginx.conf"), fmt.Sprintf("127.0.0.1:%d", port))
			get := func(host, path string) (int, string, error) {
				req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
				req.Host = host
				resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
				if err != nil {
					return 0, "", err
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b), nil
			}
			for _, path := range []string{"/.git/config", "/.env", "/backup.sql", "/site.conf.bak", "/composer.json", "/uploads/x.php", "/%23wp-config.php%23"} {
				if profile == "static" && (path == "/composer.json" || path == "/uploads/x.php") {
					continue
				}
				code, body, err := get("app.test", path)
				if err != nil || code != 404 || strings.Contains(body, "ran") || strings.Contains(body, "SECRET") {
					t.Errorf("%s: %d %q %v, want 404", path, code, body, err)
				}
			}
			for _, path := range []string{"/uploads/photo.txt", "/.well-known/security.txt"} {
				if code, _, err := get("app.test", path); err != nil || code != 200 {
					t.Errorf("%s: %d %v, want 200", path, code, err)
				}
			}
			if code, body, err := get("evil.example", "/"); err == nil {
				t.Errorf("Host evil.example answered %d %q; want the connection closed (444)", code, body)
			}
		})
	}
}
