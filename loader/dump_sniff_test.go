package loader

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// isDumpScanner is what isDump stands for: the first line that is neither
// blank nor nginx's own "nginx: ..." starts a dump section, read with
// bufio.Scanner (lines of up to 1 MiB).
func isDumpScanner(b []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "nginx: ") || strings.TrimSpace(line) == "" {
			continue
		}
		return strings.HasPrefix(line, dumpMarker)
	}
	return false
}

func TestIsDumpMatchesScanner(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, s := range []string{
		"",
		"# configuration file /etc/nginx/nginx.conf:\nuser www-data;\n",
		"nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful\n# configuration file /etc/nginx/nginx.conf:\n",
		"\r\n  \t\n# configuration file /x:\r\n",
		"user nginx;\n# configuration file /x:\n",
		"nginx:x\n# configuration file /x:\n",
		"# configuration file",
		"\n\n\n",
		long(1<<20-1) + "\n# configuration file /x:\n",
		long(1<<20) + "\n# configuration file /x:\n",
		long(1<<20+1) + "\n# configuration file /x:\n",
		"nginx: " + long(1<<20-8) + "\n# configuration file /x:\n",
		"nginx: " + long(1<<20-7) + "\n# configuration file /x:\n",
		"# configuration file /x:" + long(1<<20-24),
		"# configuration file /x:" + long(1<<20-23),
		"\n" + "# configuration file /x:" + long(1<<20-25) + "\r",
	} {
		if got, want := isDump([]byte(s)), isDumpScanner([]byte(s)); got != want {
			t.Errorf("isDump(%.60q... %d bytes) = %v, the scanner says %v", s, len(s), got, want)
		}
	}
}

func FuzzIsDump(f *testing.F) {
	f.Add([]byte("nginx: ok\n\r\n# configuration file /a:\n"))
	f.Add([]byte("  \n# configuration file"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := isDump(b), isDumpScanner(b); got != want {
			t.Errorf("isDump(%q) = %v, the scanner says %v", b, got, want)
		}
	})
}
