package generate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// defaultUser picks the account this machine's packages run nginx's
// workers as: www-data on Debian; nginx on RHEL, Alpine and the Docker
// image.
func TestDefaultUser(t *testing.T) {
	dir := t.TempDir()
	for passwd, want := range map[string]string{
		"root:x:0:0::/root:/bin/sh\nwww-data:x:33:33::/var/www:/usr/sbin/nologin\n":    "www-data",
		"root:x:0:0::/root:/bin/sh\nnginx:x:101:101::/var/cache/nginx:/sbin/nologin\n": "nginx",
		"root:x:0:0::/root:/bin/sh\n": "www-data",
	} {
		p := filepath.Join(dir, "passwd")
		os.WriteFile(p, []byte(passwd), 0o644)
		if got := defaultUser(p); got != want {
			t.Errorf("defaultUser: %q, want %q", got, want)
		}
	}
}

// --fpm-pool reads a pool file as php-fpm does: a [global] section before
// the pool, and include= lines (Debian's php-fpm.conf includes pool.d/*.conf).
// The same file is accepted by php-fpm -t, so gen reads what php-fpm runs.
func TestFPMPoolAsPHPFPMReadsIt(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pool.d"), 0o755)
	main := filepath.Join(dir, "php-fpm.conf")
	os.WriteFile(main, []byte(fmt.Sprintf("[global]\npid = %[1]s/php-fpm.pid\nerror_log = %[1]s/php-fpm.log\ninclude = %[1]s/pool.d/*.conf\n", dir)), 0o644)
	os.WriteFile(filepath.Join(dir, "pool.d/www.conf"), []byte(fmt.Sprintf("[www]\nuser = nobody\nlisten = %s/php.sock\npm = dynamic\npm.max_children = 7 ; seven\npm.start_servers = 2\npm.min_spare_servers = 1\npm.max_spare_servers = 3\n", dir)), 0o644)
	n, where, err := readFPMPool(main)
	if err != nil || n != 7 || !strings.Contains(where, "www.conf:5 [www]") {
		t.Errorf("readFPMPool: %d %q %v, want 7 from www.conf:5 [www]", n, where, err)
	}
	// a single file with [global] first
	single := filepath.Join(dir, "single.conf")
	os.WriteFile(single, []byte(fmt.Sprintf("[global]\npid = %[1]s/s.pid\nerror_log = %[1]s/s.log\n\n[www]\nuser = nobody\nlisten = %[1]s/s.sock\npm = static\npm.max_children = 4\n", dir)), 0o644)
	if n, _, err := readFPMPool(single); err != nil || n != 4 {
		t.Errorf("[global] before [www]: %d %v, want 4", n, err)
	}
	bins, _ := filepath.Glob("/usr/sbin/php-fpm*")
	if len(bins) == 0 || os.Geteuid() != 0 {
		return
	}
	for _, f := range []string{main, single} {
		if out, err := exec.Command(bins[0], "-t", "-n", "-y", f).CombinedOutput(); err != nil {
			t.Errorf("php-fpm -t refuses %s: %v\n%s", filepath.Base(f), err, out)
		}
	}
}
