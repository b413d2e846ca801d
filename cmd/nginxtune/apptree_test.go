package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
)

// treeGet asks 127.0.0.1:port for path as host, the body uncompressed as
// sent (at most 16 MiB), over one kept connection for the whole crawl.
func treeGet(t *testing.T, c *http.Client, port int, host, path string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	req.Host = host
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, b
}

func crawlClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second, // a hang guard
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// assetExt are the kinds of file a page loads: scripts, styles, images,
// fonts, source maps.
var assetExt = map[string]bool{".js": true, ".mjs": true, ".css": true, ".map": true, ".png": true, ".gif": true, ".jpg": true, ".jpeg": true,
	".svg": true, ".webp": true, ".avif": true, ".ico": true, ".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".eot": true}

// The wordpress preset over Debian's wordpress package as it is installed
// (/usr/share/wordpress, the root): every file the package ships that is
// not PHP is asked for by real nginx, and each static one (scripts,
// styles, images, fonts: the block editor's
// wp-includes/js/dist/vendor/react.min.js among them) answers 200 with the
// file's bytes, as does every other file but those that must stay hidden:
// dot-files, readme.html (the version) and Composer's files, which answer
// 404. PHP is left to TestPresetWordPress (php-fpm).
func TestPresetWordPressWholeTree(t *testing.T) {
	const wp = "/usr/share/wordpress"
	if _, err := os.Stat(filepath.Join(wp, "wp-includes/js/dist/vendor")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("Debian's wordpress package is not installed (scripts/deps.sh installs it)")
		}
		t.Skip("no wordpress package")
	}
	port, _ := genServe(t, "--profile", "wordpress", "--server-name", "blog.test", "--root", wp, "--upstream", "unix:/run/nginxtune-test-no-php.sock")
	hidden := func(rel string) bool {
		for _, part := range strings.Split(rel, "/") {
			if strings.HasPrefix(part, ".") {
				return true
			}
		}
		base := filepath.Base(rel)
		return rel == "readme.html" || rel == "license.txt" || base == "composer.json" || base == "composer.lock"
	}
	c := crawlClient()
	assets, others, hid := 0, 0, 0
	filepath.WalkDir(wp, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Stat(p) // a link (.htaccess) as the file it names
		if err != nil || !fi.Mode().IsRegular() || filepath.Ext(p) == ".php" {
			return nil
		}
		rel, _ := filepath.Rel(wp, p)
		code, body := treeGet(t, c, port, "blog.test", "/"+rel)
		switch want, _ := os.ReadFile(p); {
		case hidden(rel):
			hid++
			if code != 404 {
				t.Errorf("/%s: %d, want 404 (hidden)", rel, code)
			}
		case code != 200 || string(body) != string(want):
			t.Errorf("/%s: %d with %d bytes, want 200 with the file's %d", rel, code, len(body), len(want))
		case assetExt[filepath.Ext(rel)]:
			assets++
		default:
			others++
		}
		return nil
	})
	t.Logf("%d static files and %d others served, %d hidden", assets, others, hid)
	if assets < 1000 || hid < 2 {
		t.Errorf("the package holds fewer files than expected: %d static, %d hidden", assets, hid)
	}
}

// The drupal, laravel and php presets over their applications' published
// file layouts (testdata/apptrees): core's and the packages' assets
// (Drupal's core/assets/vendor/, Laravel's published public/vendor/)
// answer 200 with the file, and what must stay hidden, PHP under a vendor/
// directory (phpunit's eval-stdin.php) and Composer's metadata among it,
// 404 from nginx. No php-fpm runs: a PHP file nginx passed on would be a
// 502, not a 404.
func TestPresetAppTrees(t *testing.T) {
	for _, tc := range []struct{ profile, fixture string }{
		{"drupal", "drupal.txt"}, {"laravel", "laravel.txt"}, {"php", "php.txt"},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata/apptrees", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			root := filepath.Join(t.TempDir(), "root")
			want := map[string]int{}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				code, rel, ok := strings.Cut(sc.Text(), " ")
				if !ok || strings.HasPrefix(code, "#") {
					continue
				}
				want[rel], _ = strconv.Atoi(code)
				writeTree(t, root, map[string]string{rel: "file " + rel + "\n"})
			}
			port, _ := genServe(t, "--profile", tc.profile, "--server-name", "app.test", "--root", root, "--upstream", "unix:/run/nginxtune-test-no-php.sock")
			c := crawlClient()
			for rel, code := range want {
				got, body := treeGet(t, c, port, "app.test", "/"+rel)
				if got != code || (code == 200 && string(body) != "file "+rel+"\n") {
					t.Errorf("/%s: %d (%d bytes), want %d", rel, got, len(body), code)
				}
			}
		})
	}
}

// The spa preset on real nginx: only a name that carries a hash is cached
// as immutable for a year (webpack's and Create React App's hex hashes,
// Vite's under /assets/, Next.js's /_next/static/); a file of the
// application's own under /assets/ (Angular copies src/assets/ there as it
// is) is cached for the profile's time and fetched again when it changes.
func TestSPAImmutableOnlyHashed(t *testing.T) {
	root := filepath.Join(t.TempDir(), "app")
	cases := map[string]string{
		"/assets/index-4f3a2b1c.js":                "immutable",
		"/assets/index-Bx7qK2mZ.js":                "immutable",
		"/assets/vendor-a_9-ZkQ2.css":              "immutable",
		"/_next/static/k3Xv9yQ2/_buildManifest.js": "immutable",
		"/static/js/main.8f3b2c1e.js":              "immutable",
		"/assets/logo.png":                         "max-age=2592000",
		"/assets/user-settings.js":                 "max-age=2592000",
		"/assets/fonts/Inter-Bold.woff2":           "max-age=2592000",
		"/assets/i18n/en.json":                     "",
		"/static/css/site.css":                     "max-age=2592000",
	}
	files := map[string]string{"index.html": "<h1>app</h1>\n"}
	for p := range cases {
		files[strings.TrimPrefix(p, "/")] = "x\n"
	}
	writeTree(t, root, files)
	port, _ := genServe(t, "--profile", "spa", "--server-name", "spa.test", "--root", root)
	for p, want := range cases {
		code, h, _ := hostGet(t, port, "spa.test", p)
		cc := h.Get("Cache-Control")
		if code != 200 || (want == "immutable") != strings.Contains(cc, "immutable") || (want != "immutable" && cc != want) {
			t.Errorf("%s: %d Cache-Control %q, want %q", p, code, cc, want)
		}
	}
}

// gen --into a Debian tree without --root gives the site a root of its
// own, /var/www/NAME, never Debian's /var/www/html, which the stock
// default site serves to bare addresses and unknown names with no
// dot-file protection. Served by real nginx (/var/www/ standing for a
// directory of the test's): the application's /.git/config, /.env and
// dump.sql are answered to neither its name nor the bare address.
func TestGenIntoDebianOwnRoot(t *testing.T) {
	dir := t.TempDir()
	etc := debianTree(t, dir)
	var static []byte
	for _, profile := range []string{"php", "static"} {
		args := append([]string{"gen", "--profile", profile, "--server-name", profile + ".example", "--upstream", "unix:/run/php/php-fpm.sock", "--into", etc}, genSizing...)
		if profile == "static" {
			args = append([]string{"gen", "--profile", profile, "--server-name", profile + ".example", "--into", etc}, genSizing...)
		}
		if _, errOut, code := runCLI(t, "", args...); code != 0 {
			t.Fatalf("gen --into: exit %d: %s", code, errOut)
		}
		site, _ := os.ReadFile(filepath.Join(etc, "sites-available", profile+".example"))
		static = site
		if !strings.Contains(string(site), "    root /var/www/"+profile+".example;\n") {
			t.Errorf("%s: not a root of its own:\n%s", profile, site)
		}
	}
	os.Remove(filepath.Join(etc, "sites-enabled/php.example"))
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving needs root")
	}
	www := filepath.Join(dir, "www")
	writeTree(t, www, map[string]string{"html/index.nginx-debian.html": "Welcome to nginx!\n"})
	// the application's files go where gen put its root
	m := regexp.MustCompile(`(?m)^    root /var/www/(\S+);`).FindSubmatch(static)
	if m == nil {
		t.Fatalf("no root under /var/www:\n%s", static)
	}
	writeTree(t, filepath.Join(www, string(m[1])), map[string]string{
		"index.html": "shop\n", ".git/config": "[core]\n", ".env": "SECRET=1\n", "dump.sql": "DROP TABLE x;\n"})
	serve := filepath.Join(t.TempDir(), "nginx")
	os.CopyFS(serve, os.DirFS(etc))
	// CopyFS refuses links; make them again (not the api site's, whose
	// backend port is not the test's)
	for _, name := range []string{"default", "api", "static.example"} {
		os.Remove(filepath.Join(serve, "sites-enabled", name))
	}
	for _, name := range []string{"default", "static.example"} {
		os.Symlink("../sites-available/"+name, filepath.Join(serve, "sites-enabled", name))
	}
	port := nginxtest.FreePort(t)
	servableTree(t, serve, port)
	for _, name := range []string{"default", "static.example"} {
		p := filepath.Join(serve, "sites-available", name)
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "/var/www/", www+"/")), 0o644)
	}
	nginxtest.Serve(t, serve, filepath.Join(serve, "nginx.conf"), fmt.Sprintf("127.0.0.1:%d", port))
	if code, _, body := hostGet(t, port, "static.example", "/"); code != 200 || body != "shop\n" {
		t.Errorf("static.example/: %d %q", code, body)
	}
	for _, host := range []string{"127.0.0.1", "static.example"} {
		for _, p := range []string{"/.git/config", "/.env", "/dump.sql", "/index.html"} {
			if host == "static.example" && p == "/index.html" {
				continue // the site's own page
			}
			if code, _, body := hostGet(t, port, host, p); code == 200 {
				t.Errorf("Host %s %s: %d %q, want it not served", host, p, code, body)
			}
		}
	}
}

// gen --out writes a tree that nginx -t accepts as written, with nothing
// beside it: the prefix layout's nginx.conf includes mime.types and its
// sites fastcgi_params or uwsgi_params by relative name, and gen writes
// its own of each (real nginx -t, sealed, on the directory alone). A
// mime.types already there, the package's, is kept byte for byte and is
// no conflict.
func TestGenOutPassesNginxTAsWritten(t *testing.T) {
	bin := nginxtest.Require(t)
	for _, profile := range []string{"php", "django", "static"} {
		t.Run(profile, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "nginx")
			if _, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", profile, "--server-name", "a.test", "--out", out}, genSizing...)...); code != 0 {
				t.Fatalf("gen: exit %d: %s", code, errOut)
			}
			if res := nginxtest.Run(t, bin, out, filepath.Join(out, "nginx.conf")); !res.OK {
				t.Errorf("nginx -t of the tree as written: %s", res.Output)
			}
		})
	}
	out := filepath.Join(t.TempDir(), "nginx")
	const pkg = "types {\n    text/html html;\n}\n"
	writeTree(t, out, map[string]string{"mime.types": pkg})
	if _, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "php", "--out", out}, genSizing...)...); code != 0 {
		t.Fatalf("gen beside a mime.types: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "mime.types")); string(b) != pkg {
		t.Errorf("the mime.types there was replaced:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(out, "fastcgi_params")); err != nil {
		t.Errorf("fastcgi_params not written: %v", err)
	}
	// a distribution's layout names the package's files in /etc/nginx,
	// where the tree is to be installed: said plainly
	deb := filepath.Join(t.TempDir(), "debian")
	_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "php", "--layout", "debian", "--out", deb}, genSizing...)...)
	if code != 0 || !strings.Contains(errOut, "the tree includes /etc/nginx/mime.types, /etc/nginx/fastcgi_params, which nginx's package installs and gen does not write: install the tree in /etc/nginx") {
		t.Errorf("gen --layout debian: exit %d, not said what the tree needs beside it:\n%s", code, errOut)
	}
}

// gen --into RHEL's tree, whose stock server in nginx.conf has
// "server_name _": the catch-all gen adds names no server, so nginx -t
// (real, sealed) of the tree gives no "conflicting server name" warning,
// which nginx would otherwise print on every start.
func TestGenIntoRHELNoConflictingName(t *testing.T) {
	bin := nginxtest.Require(t)
	etc := filepath.Join(t.TempDir(), "nginx")
	writeTree(t, etc, map[string]string{"nginx.conf": rhelNginxConf, "conf.d/.keep": "", "default.d/.keep": ""})
	if _, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--server-name", "new.example", "--root", t.TempDir(), "--into", etc}, genSizing...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// both servers on the test's one port, as on port 80 of the host
	b, _ := os.ReadFile(filepath.Join(etc, "nginx.conf"))
	os.WriteFile(filepath.Join(etc, "nginx.conf"), []byte(strings.ReplaceAll(string(b), "listen       80;", "listen 80;")), 0o644)
	servableTree(t, etc, nginxtest.FreePort(t))
	res := nginxtest.Run(t, bin, etc, filepath.Join(etc, "nginx.conf"))
	if !res.OK || strings.Contains(res.Output, "conflicting server name") {
		t.Errorf("nginx -t of the tree: %s", res.Output)
	}
}

// gen --out onto a distribution's tree is refused (its nginx.conf would
// drop the sites and modules it includes); the refusal names the form that
// adds the site, --into DIR, and that form works.
func TestGenOutRefusalPointsAtInto(t *testing.T) {
	etc := debianTree(t, t.TempDir())
	_, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--server-name", "a.example", "--out", etc}, genSizing...)...)
	if code != ExitError || !strings.Contains(errOut, "give --into "+etc+" instead of --out") {
		t.Fatalf("exit %d, not pointed at --into: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--server-name", "a.example", "--into", etc}, genSizing...)...); code != 0 {
		t.Errorf("the form it names: exit %d: %s", code, errOut)
	}
}
