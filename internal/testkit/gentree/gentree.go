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
type Shape struct {
	Servers, Files, Upstreams int
	LogDir                    string
}

// WriteShape writes a tree of the shape and returns the main file's path
// and the total size.
func WriteShape(dir string, sh Shape) (string, int64, error) {
	servers, files, logDir := sh.Servers, sh.Files, sh.LogDir
	if err := os.MkdirAll(filepath.Join(dir, "sites"), 0o755); err != nil {
		return "", 0, err
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
