package host

// What the installed nginx says of itself (nginx -V).

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
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

// splitArgs splits configure arguments, keeping quoted values together.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote == 0 && (c == ' ' || c == '\t'):
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// RunNginxV runs the installed nginx's "nginx -V" (nginxcheck finds the
// binary and caches the answer under its identity).
func RunNginxV() (string, error) {
	bin := nginxcheck.Binary()
	if bin == "" {
		return "", fmt.Errorf("no nginx binary on PATH or in /usr/sbin, /usr/local/sbin, /usr/local/nginx/sbin")
	}
	return nginxcheck.V(bin)
}
