package route

import (
	"strconv"
	"strings"
	"testing"
)

// TestPCRESemantics: what nginx's PCRE does where Go's regexp would not
// (each row was checked against nginx 1.22.1 with PCRE2 10.42 serving the
// pattern as a location).
func TestPCRESemantics(t *testing.T) {
	for _, c := range []struct {
		pattern  string
		caseless bool
		subject  string
		match    bool
		caps     string // "$1|$2|..." when it matches
	}{
		{`/\.(?!well-known/)`, false, "/.git/config", true, ""},
		{`/\.(?!well-known/)`, false, "/.well-known/acme-challenge/x", false, ""},
		{`[.-](?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\.(?:css|js)$`, true, "/app.3F9A2B1C.JS", true, ""},
		{`[.-](?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\.(?:css|js)$`, true, "/app.deadbeef.js", false, ""},
		{`[.-](?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\.(?:css|js)$`, true, "/app.12345678.js", false, ""},
		{`^/(?!(a)b)(.*)$`, false, "/ac", true, "|ac"}, // no capture from a negative lookahead
		{`\.php$`, false, "/x.php\n", true, ""},        // "$" before a final newline
		{`\.php\z`, false, "/x.php\n", false, ""},
		{`\.php\Z`, false, "/x.php\n", true, ""},
		{`^/.$`, false, "/\xc3\xa9", false, ""}, // "." is one byte
		{`^/..$`, false, "/\xc3\xa9", true, ""},
		{`^/\s$`, false, "/\v", true, ""},
		{`(?<=/img)/(\w+)`, false, "/img/logo", true, "logo"},
		{`(?<!/img)/(\w+)$`, false, "/img/logo", false, ""},
		{`^/(\w+)/\1$`, false, "/ab/ab", true, "ab"},
		{`^/(\w+)/\1$`, true, "/ab/AB", true, "ab"},
		{`^/(?<word>\w+)/\k<word>$`, false, "/x/x", true, "x"},
		{`^/(?>a+)ab`, false, "/aaab", false, ""},
		{`^/a++b`, false, "/aaab", true, ""},
		{`^/a*+a`, false, "/aaa", false, ""},
		{`^/(?i)abc(?-i)D`, false, "/ABCD", true, ""},
		{`^/(?i)abc(?-i)D`, false, "/ABCd", false, ""},
		{`^/x{1001}$`, false, "/" + strings.Repeat("x", 1001), true, ""}, // Go refuses repeats over 1000
		{`^/(a|ab)(c|bcd)(d*)$`, false, "/abcd", true, "a|bcd|"},
		{`(?x) ^/ a b  # comment` + "\n" + `c`, false, "/abc", true, ""},
		{`^/\Qa.b\E+$`, false, "/a.bbb", true, ""},
	} {
		re := (&Config{regexes: map[string]*compiled{}}).compile(c.pattern, c.caseless)
		caps, ok, why := matchCaps(re, c.subject)
		if why != "" {
			t.Errorf("%q on %q: %s", c.pattern, c.subject, why)
			continue
		}
		if ok != c.match {
			t.Errorf("%q on %q: match %v, want %v", c.pattern, c.subject, ok, c.match)
			continue
		}
		if ok && c.caps != "" {
			var got []string
			for i := 1; ; i++ {
				v, has := caps[strconv.Itoa(i)]
				if !has {
					break
				}
				got = append(got, v)
			}
			if strings.Join(got, "|") != c.caps {
				t.Errorf("%q on %q: captures %q, want %q", c.pattern, c.subject, strings.Join(got, "|"), c.caps)
			}
		}
	}
	for _, p := range []string{`(a(?R)?b)`, `(?(1)a|b)`, `\X`, `(*SKIP)`, `(?<=a+)b`, `a{2,1}`, `\1`} {
		if re := (&Config{regexes: map[string]*compiled{}}).compile(p, false); re.ok() {
			t.Errorf("%q: route runs it, but nginx's PCRE refuses it or route's matcher lacks it", p)
		}
	}
}

// A pattern that backtracks exponentially (nested repeats and a lookahead
// Go's engine lacks) stops at the step bound: route answers, and says it
// cannot tell, rather than running for 2^n steps.
func TestPCREBound(t *testing.T) {
	re, err := compilePCRE(`^/(?=a)(a|aa)+$`, false)
	if err != nil {
		t.Fatal(err)
	}
	if idx, over := re.run("/" + strings.Repeat("a", 20)); over || idx == nil {
		t.Fatalf("20 a: %v %v", idx, over)
	}
	// 2^45 ways to split the a's before the b fails the match
	if _, over := re.run("/" + strings.Repeat("a", 90) + "b"); !over {
		t.Fatal("90 a and b: the bound did not stop the match")
	}
	// as deep as the bound allows, without a stack per byte
	if idx, over := re.run("/" + strings.Repeat("a", 4000)); over || idx == nil {
		t.Errorf("4,000 a: %v %v", idx, over)
	}
	cfg := build(t, `events {}
http {
    server {
        listen 80;
        location ~ ^/(?=a)(a|aa)+$ { return 200 "a"; }
        location / { return 404; }
    }
}`)
	r, _ := ParseRequest("http://h/" + strings.Repeat("a", 90) + "b")
	res := cfg.Route(r, Options{})
	if res.Certain() || !strings.Contains(strings.Join(res.Unknown, "\n"), "route's bound") {
		t.Errorf("%s: unknown %q, want one naming the bound", res.Answer, res.Unknown)
	}
}

// ok reports whether route can run the expression.
func (c *compiled) ok() bool { return c.re != nil || c.bt != nil }
