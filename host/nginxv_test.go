package host

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// opensslExpr is what versionAfter stands for.
var opensslExpr = map[string]*regexp.Regexp{
	"running with OpenSSL ": regexp.MustCompile(`running with OpenSSL ([0-9]+\.[0-9]+\.[0-9]+[a-z]?)`),
	"built with OpenSSL ":   regexp.MustCompile(`built with OpenSSL ([0-9]+\.[0-9]+\.[0-9]+[a-z]?)`),
}

func checkVersionAfter(t *testing.T, s string) {
	t.Helper()
	for lead, re := range opensslExpr {
		want := ""
		if m := re.FindStringSubmatch(s); m != nil {
			want = m[1]
		}
		if got := versionAfter(s, lead); got != want {
			t.Errorf("versionAfter(%q, %q) = %q, the expression finds %q", s, lead, got, want)
		}
	}
}

// TestVersionAfterMatchesExpression: the real lines of nginx -V, and every
// tail of up to four characters after the lead over digits, dots, letters
// and spaces, twice in a row (the first occurrence may not be a version).
func TestVersionAfterMatchesExpression(t *testing.T) {
	for _, s := range []string{
		"built with OpenSSL 3.0.17 1 Jul 2025\n",
		"built with OpenSSL 3.0.17 1 Jul 2025 (running with OpenSSL 3.5.1 1 Jul 2025)\n",
		"built with OpenSSL 1.1.1w  11 Sep 2023\n",
		"built with LibreSSL 3.8.2\n",
		"built with BoringSSL\n",
		"built with OpenSSL 3.0 (running with OpenSSL 3.0.2a)",
		"",
	} {
		checkVersionAfter(t, s)
	}
	alphabet := []string{"", "1", "22", ".", "a", "z", "A", " ", "-"}
	n := 0
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				for _, d := range alphabet {
					for _, e := range alphabet {
						tail := a + b + c + d + e
						checkVersionAfter(t, "built with OpenSSL "+tail)
						checkVersionAfter(t, "running with OpenSSL "+tail+" running with OpenSSL 1.2."+tail)
						n++
					}
				}
			}
		}
	}
	if t.Failed() {
		t.Logf("%d tails", n)
	}
}

func FuzzVersionAfter(f *testing.F) {
	f.Add("built with OpenSSL 3.0.17 1 Jul 2025 (running with OpenSSL 3.5.1 1 Jul 2025)")
	f.Add("running with OpenSSL 1.1.1w")
	f.Fuzz(func(t *testing.T, s string) { checkVersionAfter(t, s) })
}

// splitArgsByte is the byte-at-a-time reading splitArgs stands for: quotes
// group, and are dropped; spaces and tabs outside quotes separate.
func splitArgsByte(s string) []string {
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

func TestSplitArgsMatchesByteReading(t *testing.T) {
	alphabet := []string{"a", "-", "=", " ", "\t", "'", "\"", "''", "\"\""}
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		if got, want := splitArgs(s), splitArgsByte(s); !slices.Equal(got, want) {
			t.Errorf("splitArgs(%q) = %q, want %q", s, got, want)
		}
		if depth == 0 {
			return
		}
		for _, a := range alphabet {
			walk(s+a, depth-1)
		}
	}
	walk("", 5)
	real := ` --with-cc-opt='-g -O2 -ffile-prefix-map=/build/nginx=. -fstack-protector-strong' --with-ld-opt='-Wl,-z,relro -Wl,-z,now -fPIC' --prefix=/usr/share/nginx --with-http_ssl_module "--add-dynamic-module=/build/a b"`
	if got, want := splitArgs(real), splitArgsByte(real); !slices.Equal(got, want) {
		t.Errorf("nginx -V's arguments: %q, want %q", got, want)
	}
}

func FuzzSplitArgs(f *testing.F) {
	f.Add(` --with-cc-opt='-g -O2' --prefix=/usr "x y"`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := splitArgs(s), splitArgsByte(s); !slices.Equal(got, want) {
			t.Errorf("splitArgs(%q) = %q, want %q", s, got, want)
		}
	})
}
