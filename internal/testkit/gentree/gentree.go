// Package gentree writes large synthetic configuration trees for benchmarks.
package gentree

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// TB is the part of testing.TB Write uses: the package stays out of the
// testing package, which non-test code should not import.
type TB interface {
	Helper()
	Fatal(args ...any)
}

// Write writes a configuration of servers server blocks spread over
// files include files and returns the main file's path and the total size.
func Write(tb TB, dir string, servers, files int) (string, int64) {
	tb.Helper()
	main, size, err := WriteTree(dir, servers, files, "/var/log/nginx")
	if err != nil {
		tb.Fatal(err)
	}
	return main, size
}

// WriteTree is Write outside tests: the access logs go to logDir, so that a
// real "nginx -t" of the tree (which opens them) writes nowhere else.
func WriteTree(dir string, servers, files int, logDir string) (string, int64, error) {
	return WriteShape(dir, Shape{Servers: servers, Files: files, LogDir: logDir})
}

// Shape is a synthetic tree: Servers server blocks over Files include
// files; with Upstreams, that many upstream blocks (without keepalive) that
// the servers' /api/ locations proxy to, each location setting a header of
// its own under the http level's X-Forwarded-For: a tree full of findings
// (upstream-keepalive, header-inheritance), where output costs count.
// With Sites, every server is a finding-heavy site of its own instead (see
// writeSites), and Upstreams is not used.
type Shape struct {
	Servers, Files, Upstreams int
	Sites                     bool
	LogDir                    string
}

// WriteShape writes a tree of the shape and returns the main file's path
// and the total size.
func WriteShape(dir string, sh Shape) (string, int64, error) {
	servers, files, logDir := sh.Servers, sh.Files, sh.LogDir
	if err := os.MkdirAll(filepath.Join(dir, "sites"), 0o755); err != nil {
		return "", 0, err
	}
	if sh.Sites {
		return writeSites(dir, sh)
	}
	main := "worker_processes auto;\nevents { worker_connections 1024; }\nhttp {\n    sendfile on;\n    include sites/*.conf;\n}\n"
	if sh.Upstreams > 0 {
		main = "worker_processes auto;\nevents { worker_connections 1024; }\nhttp {\n    sendfile on;\n    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n    include upstreams.conf;\n    include sites/*.conf;\n}\n"
		var u strings.Builder
		for i := 0; i < sh.Upstreams; i++ {
			fmt.Fprintf(&u, "upstream up%d {\n    server 127.0.0.1:%d;\n}\n", i, 10000+i%50000)
		}
		if err := os.WriteFile(filepath.Join(dir, "upstreams.conf"), []byte(u.String()), 0o644); err != nil {
			return "", 0, err
		}
	}
	total := int64(len(main))
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		return "", 0, err
	}
	per := servers / files
	for f := 0; f < files; f++ {
		var b strings.Builder
		for s := 0; s < per; s++ {
			n := f*per + s
			fmt.Fprintf(&b, `server {
    listen 80;
    server_name site%d.example.com www.site%d.example.com;
    root /srv/site%d;
    access_log %s/site%d.log combined buffer=64k;
    location / {
        try_files $uri $uri/ /index.html;
    }
    location /api/ {
        proxy_pass %s;
        proxy_set_header Host $host;
        proxy_set_header X-Real-IP $remote_addr;
    }
    location ~* \.(css|js|png)$ { expires 30d; add_header Cache-Control "public"; }
}
`, n, n, n, logDir, n, backend(n, sh.Upstreams))
		}
		total += int64(b.Len())
		if err := os.WriteFile(filepath.Join(dir, "sites", fmt.Sprintf("s%03d.conf", f)), []byte(b.String()), 0o644); err != nil {
			return "", 0, err
		}
	}
	return filepath.Join(dir, "nginx.conf"), total, nil
}

func backend(n, upstreams int) string {
	if upstreams > 0 {
		return fmt.Sprintf("http://up%d", n%upstreams)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", 9000+n%1000)
}

// siteMain is the main file of a tree of sites: the websocket map the
// sites take their Connection header from.
const siteMain = `worker_processes auto;
events { worker_connections 1024; }
http {
    sendfile on;
    map $http_upgrade $connection_upgrade {
        default upgrade;
        '' close;
    }
    include sites/*.conf;
}
`

// writeSites writes Servers sites over Files include files, each a
// finding-heavy site as real ones are: a location proxying to an upstream
// without keepalive (one for every four sites, defined beside the first)
// with the Connection header of the websocket map (upstream-keepalive), and
// server-level security headers that every other site's proxy location,
// setting a header of its own, loses (header-inheritance): 15,000 findings
// in 20,000 sites, about 23 lines a site. Each site has an access log of
// its own, as in the other shapes: nginx -t looks each new log up in the
// list of those it has (the more sites, the longer each), then opens them
// all. Where the open-file limit is 20,000 or less it stops at the last
// few with "Too many open files", after all the rest of its work.
func writeSites(dir string, sh Shape) (string, int64, error) {
	total := int64(len(siteMain))
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(siteMain), 0o644); err != nil {
		return "", 0, err
	}
	per := sh.Servers / sh.Files
	for f := 0; f < sh.Files; f++ {
		var b strings.Builder
		for s := 0; s < per; s++ {
			n := f*per + s
			up := f*per + s - s%4 // the group's first site, in this file
			if up == n {
				fmt.Fprintf(&b, "upstream app%d {\n    server 127.0.0.1:%d;\n}\n", up, 10000+n%50000)
			}
			own := ""
			if n%2 == 0 {
				own = fmt.Sprintf("        add_header X-Site site%d;\n", n)
			}
			fmt.Fprintf(&b, `server {
    listen 80;
    server_name site%d.example.com;
    root /srv/site%d;
    index index.html index.htm;
    access_log %s/site%d.log combined buffer=64k;
    add_header X-Frame-Options SAMEORIGIN;
    add_header X-Content-Type-Options nosniff;
    location / {
        try_files $uri $uri/ /index.html;
    }
    location /app/ {
        proxy_pass http://app%d;
        proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_set_header Host $host;
%s    }
    location ~* \.(css|js|png)$ {
        expires 30d;
    }
}
`, n, n, sh.LogDir, n, up, own)
		}
		total += int64(b.Len())
		if err := os.WriteFile(filepath.Join(dir, "sites", fmt.Sprintf("s%03d.conf", f)), []byte(b.String()), 0o644); err != nil {
			return "", 0, err
		}
	}
	return filepath.Join(dir, "nginx.conf"), total, nil
}
