package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/nginxtest"
)

// upstream-keepalive --fix moves literal proxy_pass addresses into upstream
// blocks. The backends must see the same request afterwards: a real nginx
// proxies to backends that echo the Host header and the TLS server name they
// received, before and after the fix.
func TestFixKeepsHostHeader(t *testing.T) {
	nginxtest.Require(t)
	dir := t.TempDir()
	nginxtest.WriteSelfSigned(t, dir)
	front, plain, tlsPort := nginxtest.FreePort(t), nginxtest.FreePort(t), nginxtest.FreePort(t)
	conf := fmt.Sprintf(`events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:%[2]d;
        location / { return 200 "host=$http_host conn=$http_connection\n"; }
    }
    server {
        listen 127.0.0.1:%[3]d ssl;
        ssl_certificate cert.pem;
        ssl_certificate_key key.pem;
        location / { return 200 "host=$http_host sni=$ssl_server_name\n"; }
    }
    server {
        listen 127.0.0.1:%[1]d;
        proxy_set_header X-Seen yes;
        location /named/ {
            proxy_pass http://localhost:%[2]d/;
        }
        location /addr/ {
            proxy_pass http://127.0.0.1:%[2]d;
        }
        location /tls/ {
            proxy_ssl_server_name on;
            proxy_pass https://localhost:%[3]d/;
        }
    }
}
`, front, plain, tlsPort)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	fetch := func() map[string]string {
		t.Helper()
		got := map[string]string{}
		for _, loc := range []string{"/named/", "/addr/", "/tls/"} {
			code, body := nginxtest.Get(t, fmt.Sprintf("http://127.0.0.1:%d%s", front, loc))
			if code != 200 {
				t.Fatalf("%s: status %d: %s", loc, code, body)
			}
			got[loc] = body
		}
		return got
	}
	var before map[string]string
	t.Run("before", func(t *testing.T) {
		nginxtest.Serve(t, dir, path, fmt.Sprintf("127.0.0.1:%d", front))
		before = fetch()
	})
	if before == nil {
		t.FailNow()
	}
	if !strings.Contains(before["/named/"], fmt.Sprintf("host=localhost:%d ", plain)) || !strings.Contains(before["/tls/"], "sni=localhost") {
		t.Fatalf("unexpected backend view before the fix: %q", before)
	}

	_, errOut, code := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.22.1", "--fix", "--enable", "upstream-keepalive,proxy-keepalive-headers", path)
	fixed, _ := os.ReadFile(path)
	if code != 0 || !strings.Contains(errOut, "applied") {
		t.Fatalf("lint --fix: exit %d, %s\n%s", code, errOut, fixed)
	}
	if res := nginxtest.Run(t, nginxtest.Require(t), dir, path); !res.OK {
		t.Fatalf("nginx -t after --fix: %s\n%s", res.Output, fixed)
	}
	if !strings.Contains(string(fixed), "keepalive 32;") {
		t.Fatalf("no upstream written:\n%s", fixed)
	}
	t.Run("after", func(t *testing.T) {
		nginxtest.Serve(t, dir, path, fmt.Sprintf("127.0.0.1:%d", front))
		after := fetch()
		for loc, want := range before {
			// The fix adds keep-alive: Connection becomes empty, the rest
			// of what the backend sees stays.
			want = strings.Replace(want, "conn=close", "conn=", 1)
			if after[loc] != want {
				t.Errorf("%s: backend saw %q before the fix and %q after\n%s", loc, before[loc], after[loc], fixed)
			}
		}
	})
}
