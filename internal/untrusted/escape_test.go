package untrusted

import "testing"

// Escape leaves nothing the GitHub Actions runner reads as a workflow
// command: a leading "::" (after the blanks the runner trims, Unicode ones
// too) and "##[" anywhere; "::" elsewhere (an IPv6 address) stays. What it
// writes has nothing left to escape.
func TestEscapeWorkflowCommands(t *testing.T) {
	for in, want := range map[string]string{
		"::error file=README.md,line=1::X.conf": `\x3a:error file=README.md,line=1::X.conf`,
		"  ::warning::x":                        `  \x3a:warning::x`,
		"\u2003\u00a0::notice::x":               "\u2003\u00a0" + `\x3a:notice::x`,
		"\ufeff::error::x":                      "\ufeff" + `\x3a:error::x`,
		"\t::error::x":                          `\x09::error::x`, // the line starts with "\x09"
		"a ##[error]b":                          `a #\x23[error]b`,
		"###[x]##[":                             `##\x23[x]#\x23[`,
		"listen [::1]:80 and ::1":               "listen [::1]:80 and ::1",
		"::":                                    `\x3a:`,
		":one":                                  ":one",
	} {
		got := Escape(in)
		if got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if again := Escape(got); again != got {
			t.Errorf("Escape(%q) = %q escapes again to %q", in, got, again)
		}
	}
}

// EscapeLines keeps a diff a patch: tabs, line breaks and a carriage
// return before a line break stay; each line is neutralised as Escape
// neutralises one (a context line " ::error" of a multi-line string), and a
// carriage return elsewhere, which would start a line for the runner, is
// escaped.
func TestEscapeLines(t *testing.T) {
	for in, want := range map[string]string{
		"-\tlisten 80;\n+    listen 80;\n":      "-\tlisten 80;\n+    listen 80;\n",
		" server {\r\n-\tx;\r\n":                " server {\r\n-\tx;\r\n",
		" ::error file=a::b\n \t::warning::c\n": " \\x3a:error file=a::b\n \t\\x3a:warning::c\n",
		"+a\r::error::x\n":                      `+a\x0d::error::x` + "\n",
		"+\x1b[2J ##[error]\u202e\n":            `+\x1b[2J #\x23[error]\u{202E}` + "\n",
	} {
		if got := EscapeLines(in); got != want {
			t.Errorf("EscapeLines(%q) = %q, want %q", in, got, want)
		}
	}
}

// Escape writes control characters and invalid bytes as \xNN and the
// characters that reorder or break text as \u{NNNN}; a U+FFFD written out
// and other text stay as they are.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain.conf":      "plain.conf",
		"a\nb\x1b[31m":    `a\x0ab\x1b[31m`,
		"bad\xffbyte":     `bad\xffbyte`,
		"a\u202egnp.conf": `a\u{202E}gnp.conf`,
		"line\u2028sep":   `line\u{2028}sep`,
		"kept\ufffdand é": "kept\ufffdand é",
		"c1\u0085":        `c1\xc2\x85`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
