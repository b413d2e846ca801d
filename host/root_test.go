package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadRoot of another machine's filesystem (a container's) reads its nginx
// binary for the version and never runs it.
func TestReadRootRunsNothing(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	bin := filepath.Join(root, "usr/sbin/nginx")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	script := "#!/bin/sh\ntouch " + marker + "\n# nginx/1.25.3\x00\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f := ReadRoot(root)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the nginx binary under the root was run")
	}
	if f.NginxVersion.Value != "1.25.3" || !strings.Contains(f.NginxVersion.Source, "(read, not run)") {
		t.Errorf("nginx version %q from %q, want 1.25.3 read from the binary", f.NginxVersion.Value, f.NginxVersion.Source)
	}
}
