package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repository for the official Docker image: nginx.conf includes
// /etc/nginx/conf.d/*.conf, and the sites are templates/*.conf.template that
// the image renders into conf.d with envsubst at start. They are linted as
// the conf.d files they become; their ${VARIABLES} are opaque (no finding
// judges a value only the container's environment knows); the hook on a
// changed template reads it through nginx.conf.
func TestDockerTemplates(t *testing.T) {
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, "templates"), 0o755)
	os.WriteFile(filepath.Join(repo, "nginx.conf"), []byte("user nginx;\nevents {}\nhttp {\n    server_tokens off;\n    include /etc/nginx/conf.d/*.conf;\n}\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "templates/default.conf.template"), []byte(`server {
    listen ${NGINX_PORT};
    server_name ${NGINX_HOST};
    gzip ${GZIP};
    location /static/ {
        proxy_pass http://127.0.0.1:3000;
    }
    location / {
        proxy_pass http://${APP_HOST}:${APP_PORT};
    }
}
`), 0o644)
	os.WriteFile(filepath.Join(repo, "templates/README.md"), []byte("# templates\n"), 0o644)
	t.Chdir(repo)
	for _, args := range [][]string{
		{"lint", "--no-config", "--no-host", "--nginx-version", "1.27.3", repo},
		{"lint", "--no-config", "--no-host", "--nginx-version", "1.27.3", "--changed", "templates/default.conf.template"},
	} {
		out, errOut, code := runCLI(t, "", args...)
		if code != ExitFindings || !strings.Contains(out, "templates/default.conf.template:6:20: warning: proxy_pass to the address 127.0.0.1:3000") {
			t.Errorf("%v: exit %d, want the template's finding:\n%s%s", args, code, out, errOut)
		}
		for _, line := range []string{":2:", ":3:", ":4:", ":9:"} {
			if strings.Contains(out, "default.conf.template"+line) {
				t.Errorf("%v: a finding on a line whose value envsubst writes:\n%s", args, out)
			}
		}
	}
}
