package nginxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sealed nginx -t writes nothing outside its prefix: a log in a
// directory of the host fails (read-only), a cache path under a directory
// the host lacks fails as on a fresh machine, the build's default paths
// (pid file, temporary directories) work, and the host is left as it was.
func TestSealedRunWritesNothingOutside(t *testing.T) {
	Require(t)
	if os.Geteuid() != 0 {
		t.Skip("sealing needs root")
	}
	outside := t.TempDir()
	marker := filepath.Join(outside, "access.log")
	r := Test(t, map[string][]byte{"nginx.conf": []byte("events {}\nhttp {\n    access_log " + marker + ";\n    server { listen 127.0.0.1:1; }\n}\n")}, "nginx.conf")
	if r.OK || !strings.Contains(r.Output, "Read-only file system") {
		t.Errorf("a log outside the prefix: ok=%v %s", r.OK, r.Output)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("nginx -t created %s outside its prefix", marker)
	}
	// the same log inside the prefix, with the build's defaults (pid file,
	// temporary paths, default access log) in the private directories
	r = Test(t, map[string][]byte{"nginx.conf": []byte("events {}\nhttp {\n    access_log logs.log;\n    proxy_cache_path cache keys_zone=c:1m;\n    server { listen 127.0.0.1:1; }\n}\n")}, "nginx.conf")
	if !r.OK {
		t.Errorf("a tree that writes only in its prefix: %s", r.Output)
	}
}
