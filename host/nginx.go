package host

// What the installed nginx says of itself (nginx -V).

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nginxtune/nginxtune/internal/lazyre"
)

// ParseNginxV reads the version and configure arguments from "nginx -V".
func ParseNginxV(out string) (version string, args []string) {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "nginx version: nginx/"); ok {
			version = strings.Fields(v + " ")[0]
		}
		if a, ok := strings.CutPrefix(strings.TrimSpace(l), "configure arguments:"); ok {
			args = splitArgs(a)
		}
	}
	return version, args
}

// OpenSSLFromV reads the OpenSSL version nginx runs with from "nginx -V"
// ("built with OpenSSL 3.0.17 1 Jul 2025 (running with OpenSSL 3.5.1 ...)"):
// the library loaded at run time decides which TLS groups nginx offers.
// "" when nginx was built with another library (BoringSSL, LibreSSL).
func OpenSSLFromV(out string) string {
	if v := versionAfter(out, "running with OpenSSL "); v != "" {
		return v
	}
	return versionAfter(out, "built with OpenSSL ")
}

// versionAfter returns the first OpenSSL version (N.N.N, then at most one
// lower-case letter) that follows lead in s: what the expression
// lead([0-9]+\.[0-9]+\.[0-9]+[a-z]?) finds, written out because a hook run
// reads nginx -V every time and compiling the expression cost more than
// the rest of that reading.
func versionAfter(s, lead string) string {
	for {
		i := strings.Index(s, lead)
		if i < 0 {
			return ""
		}
		s = s[i+len(lead):]
		n := 0
		for part := 0; part < 3; part++ {
			if part > 0 {
				if n >= len(s) || s[n] != '.' {
					n = -1
					break
				}
				n++
			}
			d := n
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				n++
			}
			if n == d {
				n = -1
				break
			}
		}
		if n < 0 {
			continue
		}
		if n < len(s) && s[n] >= 'a' && s[n] <= 'z' {
			n++
		}
		return s[:n]
	}
}

// splitArgs splits configure arguments, keeping quoted values together. An
// argument without quotes is a piece of s, not a copy: nginx -V has sixty
// of them, read on every pre-commit run.
func splitArgs(s string) []string {
	var out []string
	var b []byte
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		// most arguments have no quote: a tight loop to their end, and
		// quoteArg from their first quote (a third of the instructions of
		// one loop for both)
		start := i
		for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\'' && s[i] != '"' {
			i++
		}
		if i == len(s) || s[i] == ' ' || s[i] == '\t' {
			out = append(out, s[start:i])
			continue
		}
		b = append(b[:0], s[start:i]...)
		b, i = quoteArg(s, i, b)
		if len(b) > 0 {
			out = append(out, string(b))
		}
	}
	return out
}

// quoteArg reads on from the first quote of an argument at s[i], appending
// to b what the argument holds without its quotes, up to the first blank
// outside quotes; it returns b and where it stopped.
func quoteArg(s string, i int, b []byte) ([]byte, int) {
	quote := byte(0)
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t'):
			return b, i
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		default:
			b = append(b, c)
		}
	}
	return b, i
}

// nginxBinaries are where packages and source builds put nginx.
var nginxBinaries = []string{"usr/sbin/nginx", "usr/local/sbin/nginx", "usr/local/nginx/sbin/nginx", "usr/bin/nginx"}

// binVersionRe finds the version string in a binary, compiled only when a
// container's nginx is read.
var binVersionRe = lazyre.New(`nginx/([0-9]+\.[0-9]+\.[0-9]+)\x00`)

// NginxVFromBinary answers for "nginx -V" of the nginx installed under root
// (a container's filesystem) without running it: a binary from another
// filesystem is not run here. The version ("nginx/1.22.1") and the configure
// arguments are strings in the binary; links are followed only inside root.
// The file is read up to 64 MiB.
func NginxVFromBinary(root string) (string, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", err
	}
	defer r.Close()
	for _, p := range nginxBinaries {
		f, err := openRegular(r, p)
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, 64<<20))
		f.Close()
		if err != nil {
			return "", err
		}
		m := binVersionRe().FindSubmatch(b)
		if m == nil {
			return "", fmt.Errorf("%s/%s: no nginx version string in the binary", root, p)
		}
		out := "nginx version: nginx/" + string(m[1]) + "\n"
		if i := bytes.Index(b, []byte("configure arguments:")); i >= 0 {
			end := bytes.IndexByte(b[i:], 0)
			if end < 0 || end > 64<<10 {
				end = min(len(b)-i, 64<<10)
			}
			out += string(b[i:i+end]) + "\n"
		}
		return out, nil
	}
	return "", fmt.Errorf("no nginx binary under %s (%s); the version is unknown", root, strings.Join(nginxBinaries, ", "))
}
