package rules

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// A variable whose value is made of itself, or of a variable made of it,
// is traced once: lint ends, and what the other definitions bring is still
// found (a stack overflow took lint and the language server down on each
// of these, the last an idiom of real configurations). A chain of
// variables each made of the one before twice is traced within the depth
// bound (8 definitions), not 2^40 times for a chain of 40.
func TestTaintCycles(t *testing.T) {
	chain := func(n int) string {
		b := new(strings.Builder)
		b.WriteString("set $v0 $uri;\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(b, "set $v%d $v%d$v%d;\n", i, i-1, i-1)
		}
		fmt.Fprintf(b, "add_header X $v%d;\n", n)
		return b.String()
	}
	rewrites := func(n int) string {
		b := new(strings.Builder)
		for i := 0; i < n; i++ {
			fmt.Fprintf(b, "rewrite ^/a%d(.*)$ /b$1;\n", i)
		}
		b.WriteString("add_header X-A $1;\n")
		return b.String()
	}
	cases := []struct {
		body     string
		injected bool // header-injection must fire: $uri reaches the header
	}{
		{"set $a $uri;\nset $a $a$a;\nadd_header X $a;\n", true},
		{"set $a $b;\nset $b $a;\nadd_header X $a;\n", false},
		{"set $a $b;\nset $b $a;\nset $b $uri;\nadd_header X $a;\n", true},
		{"if ($e ~ (.*)) {\nset $e $1;\n}\nreturn 302 http://x/$e;\n", false},
		{"set $k \"\";\nif ($http_x) {\nset $k \"${k}s\";\n}\nadd_header X $k;\n", false},
		{chain(6), true},
		// each rewrite's URI is what the rewrites before it left: 40 of
		// them were traced 2^40 times (22: 2.9 s), now once each
		{"#server\n" + rewrites(40), true},
		{chain(40), false}, // past the depth bound: not followed
	}
	for _, c := range cases {
		text := "events {}\nhttp {\n    server {\n        listen 80;\n        location / {\n" + c.body + "        }\n    }\n}\n"
		if body, ok := strings.CutPrefix(c.body, "#server\n"); ok { // in the server block itself
			text = "events {}\nhttp {\n    server {\n        listen 80;\n" + body + "    }\n}\n"
		}
		done := make(chan []finding.Diagnostic, 1)
		go func() { done <- lintText(t, text, engine.Config{}) }()
		var diags []finding.Diagnostic
		select {
		case diags = <-done:
		case <-time.After(2 * time.Minute): // a hang guard: the fixed trace takes milliseconds
			t.Fatalf("lint did not end on:\n%s", c.body)
		}
		fired := false
		for _, d := range diags {
			fired = fired || d.Rule == "header-injection"
		}
		if fired != c.injected {
			t.Errorf("header-injection fired %v, want %v, on:\n%s", fired, c.injected, c.body)
		}
	}
}
