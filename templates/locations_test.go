package templates

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/knowledge"
)

// The locations of the files profiles as they were before they were made
// cheaper per request: dot-files and backups denied by two regex
// locations (every request paid for both; the php profiles' by four, with
// Composer's files and vendor/, and PHP under uploads), and no exact locations for "/"
// and /index.html (the home page was tested against every regex location,
// and its index page against the deny and HTML ones).
const (
	denyOne = "    location ~ /\\.(?!well-known/)|(?i:\\.(?:bak|old|orig|save|swp|swo|sql|sqlite3?|dump|log)|[~#])$ {\n        return 404;\n    }\n"
	denyTwo = "    location ~ /\\.(?!well-known/) {\n        return 404;\n    }\n" +
		"    location ~* (?:\\.(?:bak|old|orig|save|swp|swo|sql|sqlite3?|dump|log)|[~#])$ {\n        return 404;\n    }\n"
)

// The php profiles' deny location, and the four it was.
var (
	denyOnePHP = "    location ~ \"/\\.(?!well-known/)|(?i:\\.(?:bak|old|orig|save|swp|swo|sql|sqlite3?|dump|log)|[~#])$|" +
		"(?i:(?:^|/)(?:composer\\.(?:json|lock)|vendor/(?!.*\\.(?:" + assetExts + ")$)|\\.env))|" +
		"(?i:^/(?:uploads|files|media|wp-content/uploads|sites/default/files)/.*\\.php)\" {\n        return 404;\n    }\n"
	denyFourPHP = denyTwo +
		"    location ~* \"(?:^|/)(?:composer\\.(?:json|lock)|vendor/(?!.*\\.(?:" + assetExts + ")$)|\\.env)\" {\n        return 404;\n    }\n" +
		"    location ~* ^/(?:uploads|files|media|wp-content/uploads|sites/default/files)/.*\\.php {\n        return 404;\n    }\n"
)

var exactHomeLocations = regexp.MustCompile(`(?m)^    location = /(?:index\.html)? \{\n[^}]*\}\n`)

// pagesFirstLocation is the static profiles' HTML location, tested before the
// deny location with the dot-files left out of its regex; it was
// "location ~* \.html?$" after the deny location.
var pagesFirstLocation = regexp.MustCompile(`(?m)^    location ~\* "\^\(\?!\(\?s:\.\*\)/\\\.\(\?-i:\(\?!well-known/\)\)\)\(\?s:\.\*\)\\\.html\?\$" \{\n[^}]*\}\n`)

// plainLocations is site with the locations written the way they were
// before: the reference the cheaper locations must answer exactly like.
// The static profiles have the two exact locations and the HTML location
// first, the php ones neither.
func plainLocations(t *testing.T, site string, php bool) string {
	t.Helper()
	one, was, exact, pages := denyOne, denyTwo, 2, 1
	if php {
		one, was, exact, pages = denyOnePHP, denyFourPHP, 0, 0
	}
	first := pagesFirstLocation.FindAllString(site, -1)
	if strings.Count(site, one) != 1 || len(exactHomeLocations.FindAllString(site, -1)) != exact || len(first) != pages {
		t.Fatalf("the site has not the one deny location, the %d exact home locations and the %d HTML location first the test undoes:\n%s", exact, pages, site)
	}
	if pages == 1 {
		// the HTML location as it was, right after the deny locations
		_, body, _ := strings.Cut(first[0], "{\n")
		site = strings.Replace(site, first[0], "", 1)
		was += "    location ~* \\.html?$ {\n" + body
	}
	return exactHomeLocations.ReplaceAllString(strings.Replace(site, one, was, 1), "")
}

// The files profiles' locations are written to cost a request fewer regex
// tests (one deny regex instead of two, exact locations for "/" and
// /index.html, the HTML location before the deny one, its regex leaving
// out the dot-files); what every request gets must not change. Real nginx
// serves the generated site and the same site with the locations as they
// were, side by side, and every request of a set that reaches every location (dot-files and
// /.well-known/, backups in either case, fingerprinted and plain assets,
// HTML, directories with and without a slash, missing files, HEAD,
// percent-encoded and dot-segment paths, queries, gzip, and for the php
// profiles scripts, Composer's files, vendor/ and uploads) gets the same
// status, headers (but Date) and body from both, and the same access log
// lines (but the time).
func TestCheapLocationsAnswerTheSame(t *testing.T) {
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
	www := t.TempDir()
	for name, body := range map[string]string{
		"index.html": "<p>home</p>\n", "1k.html": strings.Repeat("<p>page</p>\n", 90), "dir/index.html": "dir\n",
		"dir/page.htm": "htm\n", "nodir/file.txt": "txt\n", "d.html/index.html": "a directory named like a page\n",
		".git/config": "[core]\n", ".env": "SECRET=1\n", "dir/.htpasswd": "u:x\n", ".well-known/x.txt": "known\n",
		".hidden.html": "hidden\n", "a.bak": "bak\n", "a.BAK": "BAK\n", "a.html~": "tilde\n", "dump.sql": "sql\n",
		"db.sqlite3": "db\n", "x.log": "log\n", "x.Log": "Log\n", "index.html.old": "old\n", "a.swp": "swp\n",
		"app.3f9a2c1e.css": "body{}\n", "app.3F9A2C1E.CSS": "BODY{}\n", "app.20240101.js": "dated\n", "style.css": "p{}\n",
		"img.png": "png", "favicon.ico": "ico", "robots.txt": "User-agent: *\n", "feed.rss": "<rss/>\n",
		"site.webmanifest": "{}\n", "file.txt": strings.Repeat("text ", 200), "_next/static/chunk.js": "next\n",
		"assets/index-Bx7qK2mZ.js": "vite\n", "assets/logo.png": "logo", "file.txt.gz": "not really gzip",
		".git/x.html": "git page\n", "dir/.x.htm": "hidden htm\n", ".well-known/x.html": "known page\n",
		".WELL-KNOWN/x.html": "KNOWN page\n", "a.html.bak": "page bak\n", "x.html\n": "newline page\n",
		"a\n/.x.html": "newline hidden page\n", "a\n/b.html": "newline page\n",
		"index.php": "<?php\n", "x.php": "<?php\n", "wp-login.php": "<?php\n", "wp-config.php": "<?php\n",
		"xmlrpc.php": "<?php\n", "composer.json": "{}\n", "vendor/autoload.php": "<?php\n", "vendor/x.js": "x\n",
		"wp-content/uploads/a.php": "<?php\n", "sites/default/files/x.php": "<?php\n", "wp-includes/version.php": "<?php\n",
	} {
		p := filepath.Join(www, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// one fixed time, so that Last-Modified and ETag are the same in both
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	filepath.Walk(www, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, mtime, mtime) })

	targets := []string{
		"/", "/?x=1", "/index.html", "/INDEX.HTML", "/1k.html", "/1k.html?a=b", "/missing.html", "/missing",
		"/dir", "/dir/", "/dir/page.htm", "/dir/index.html", "/nodir", "/nodir/", "/nodir/file.txt", "/d.html", "/d.html/",
		"/.git/config", "/.git/", "/.git", "/.env", "/dir/.htpasswd", "/.well-known/x.txt", "/.well-known/", "/.well-known",
		"/.WELL-KNOWN/x.txt", "/.hidden.html", "/.missing", "/a.bak", "/a.BAK", "/a.html~", "/dump.sql", "/db.sqlite3",
		"/db.sqlite", "/x.log", "/x.Log", "/index.html.old", "/a.swp", "/a.orig", "/a.save", "/a.swo", "/a.dump", "/bak",
		"/app.3f9a2c1e.css", "/app.3F9A2C1E.CSS", "/app.20240101.js", "/style.css", "/missing.a1b2c3d4e5.js",
		"/img.png", "/favicon.ico", "/robots.txt", "/feed.rss", "/site.webmanifest", "/file.txt", "/nothing.css",
		"/_next/static/chunk.js", "/assets/index-Bx7qK2mZ.js", "/assets/logo.png",
		"/%2egit/config", "/%2Eenv", "/a%2Ebak", "/a%2ebak", "/1k%2ehtml", "/dir%2F", "/a.html%7e", "/a.html%7E",
		"/dir/../.env", "/./.env", "//.git/config", "/dir/./page.htm", "/%64ir/", "/%2e%77ell-known/x.txt",
		"/index.html%0A", "/a.bak%0A", "/x%00y", "/../etc/passwd", "/" + strings.Repeat("a", 300) + ".html",
		// the HTML location tested first: pages the deny location hides
		// (under a dot-directory, hidden, with a backup's suffix, in either
		// case, after a decoded newline) and pages it does not
		"/x.html%0A", "/a%0A/.x.html", "/a%0A/.x.html%0A", "/a%0A/b.html", "/.git/x.html", "/.git/x.HTML", "/%2Egit/x.html",
		"/dir/.x.htm", "/dir/.x.htm?x=1", "/.well-known/x.html", "/.WELL-KNOWN/x.html", "/.well-known/.x.html",
		"/a.html.bak", "/a.html.BAK", "/a.HTM~", "/.html", "/dir/.html", "/x.html/.y",
		// the php profiles' locations: scripts (answered 502 here: no
		// php-fpm listens), Composer's files, vendor/, uploads, the
		// profiles' own deny lists
		"/index.php", "/x.php", "/wp-login.php", "/wp-config.php", "/xmlrpc.php", "/composer.json", "/COMPOSER.LOCK",
		"/vendor/autoload.php", "/vendor/x.js", "/wp-includes/js/dist/vendor/react.min.js", "/wp-content/uploads/a.php",
		"/uploads/x.PHP", "/sites/default/files/x.php", "/sites/default/settings.php", "/x.inc", "/sites/a/private/x",
		"/wp-includes/version.php", "/index.php/a/b", "/a/.env.php", "/wp-admin", "/wp-admin/",
	}
	type req struct{ method, target, extra string }
	var reqs []req
	for _, tg := range targets {
		reqs = append(reqs, req{"GET", tg, ""}, req{"HEAD", tg, ""})
	}
	reqs = append(reqs, req{"GET", "/file.txt", "Accept-Encoding: gzip\r\n"}, req{"GET", "/1k.html", "Accept-Encoding: gzip\r\n"},
		req{"GET", "/", "Accept-Encoding: gzip\r\n"}, req{"POST", "/", "Content-Length: 0\r\n"}, req{"GET", "/1k.html", "If-None-Match: \"x\"\r\n"},
		req{"GET", "/1k.html", "If-Modified-Since: " + mtime.Format(http.TimeFormat) + "\r\n"}, req{"GET", "/file.txt", "Range: bytes=0-9\r\n"})

	// the home page's exact location takes index.html straight away: roots
	// where it is missing, a directory, or unreadable by the workers
	// (nobody: the test's nginx has no user directive) go on as before
	homeless := map[string]func(string) error{
		"no index.html": os.Remove,
		"index.html a directory": func(p string) error {
			return errors.Join(os.Remove(p), os.MkdirAll(filepath.Join(p, "index.html"), 0o755))
		},
		"index.html unreadable":        func(p string) error { return os.Chmod(p, 0o600) },
		"index.html a link to nowhere": func(p string) error { return errors.Join(os.Remove(p), os.Symlink("missing.html", p)) },
	}
	type site struct{ profile, root, how string }
	sites := []site{{"static", www, ""}, {"spa", www, ""}, {"php", www, ""}, {"wordpress", www, ""}, {"drupal", www, ""}, {"laravel", www, ""}}
	for _, how := range slices.Sorted(maps.Keys(homeless)) {
		root := filepath.Join(t.TempDir(), "www")
		if err := os.CopyFS(root, os.DirFS(www)); err != nil {
			t.Fatal(err)
		}
		if err := homeless[how](filepath.Join(root, "index.html")); err != nil {
			t.Fatal(err)
		}
		filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, mtime, mtime) })
		sites = append(sites, site{"static", root, how}, site{"spa", root, how})
	}
	for _, st := range sites {
		profile := st.profile
		t.Run(strings.TrimSpace(profile+" "+st.how), func(t *testing.T) {
			p, err := LoadProfile(profile)
			if err != nil {
				t.Fatal(err)
			}
			files, _, err := Render(p, facts(t, "medium"), knowledge.MustVersion("1.22.1"),
				Input{ServerNames: []string{"example.com"}, Root: st.root, Upstreams: []string{"unix:" + filepath.Join(www, "none.sock")}})
			if err != nil {
				t.Fatal(err)
			}
			serve := func(plain bool) (addr, dir string) {
				dir = t.TempDir()
				addr = fmt.Sprintf("127.0.0.1:%d", nginxtest.FreePort(t))
				tree := slices.Clone(files)
				for i, f := range tree {
					c := f.Content
					if f.Path == "nginx.conf" {
						// what Serve gives on the command line, a log
						// in the prefix, written line by line
						c = regexp.MustCompile(`(?m)^(user|pid|error_log) [^\n]*\n`).ReplaceAllString(c, "")
						c = strings.ReplaceAll(c, "/var/log/nginx/access.log combined buffer=64k flush=5s", dir+"/access.log combined")
						if !strings.Contains(c, dir+"/access.log") {
							t.Fatalf("no access log to compare in nginx.conf:\n%s", c)
						}
					}
					if strings.HasPrefix(f.Path, "sites/") {
						c = strings.ReplaceAll(c, "    listen [::]:80;\n", "")
						c = strings.ReplaceAll(c, "    listen [::]:80 default_server;\n", "")
						c = strings.ReplaceAll(c, "listen 80", "listen "+addr)
						if plain && strings.Contains(c, "location / {") {
							c = plainLocations(t, c, p.Kind == "php")
						}
					}
					tree[i].Content = c
				}
				write(t, dir, tree)
				nginxtest.Serve(t, dir, filepath.Join(dir, "nginx.conf"), addr)
				return addr, dir
			}
			cheapAddr, cheapDir := serve(false)
			plainAddr, plainDir := serve(true)

			statuses := map[string]int{}
			for _, r := range reqs {
				raw := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: example.com\r\nUser-Agent: equivalence\r\n%sConnection: close\r\n\r\n", r.method, r.target, r.extra)
				cheap, plain := exchange(t, cheapAddr, raw), exchange(t, plainAddr, raw)
				status, _, _ := strings.Cut(cheap, "\n")
				statuses[status]++
				if cheap != plain {
					t.Errorf("%s %s %q: the cheaper locations answer\n%s\nthe locations as they were\n%s", r.method, r.target, r.extra, cheap, plain)
				}
			}
			t.Logf("%d requests, answered: %v", len(reqs), statuses)
			// the access log: the same requests logged, the same lines
			cheapLog, plainLog := logLines(t, cheapDir), logLines(t, plainDir)
			if cheapLog != plainLog {
				t.Errorf("access logs differ:\n%s\nagainst\n%s", cheapLog, plainLog)
			}
			if n := strings.Count(cheapLog, "\n"); n < len(reqs)/2 {
				t.Errorf("only %d access log lines for %d requests", n, len(reqs))
			}
		})
	}
}

// exchange sends one raw request and gives the answer as text: the status
// line, the headers but Date in order, and the body; the server's port
// stands as PORT.
func exchange(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 30*time.Second) // a hang guard
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second)) // a hang guard
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(io.LimitReader(c, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	head, body, _ := bytes.Cut(all, []byte("\r\n\r\n"))
	var out strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(head))
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "Date: ") {
			out.WriteString(sc.Text() + "\n")
		}
	}
	fmt.Fprintf(&out, "\n%q", body)
	// a redirect names the server's own port
	_, port, _ := net.SplitHostPort(addr)
	return strings.ReplaceAll(out.String(), ":"+port+"/", ":PORT/")
}

var logTime = regexp.MustCompile(`\[[^]]*\]`)

// logLines is the access log of a prefix without the times, its lines
// sorted: the workers each write their own, so a line of a connection
// that lingers after its answer can come after a later one's.
func logLines(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(logTime.ReplaceAllString(string(b), "[]"), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}
