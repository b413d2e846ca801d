package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

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

// JSONWriter writes what a terminal or the runner would act on as JSON
// escapes, however the text is cut into writes, and a JSON reader gets
// the strings back exactly.
func TestJSONWriter(t *testing.T) {
	strs := []string{"a\u202egnp.conf", "c1\u009b[2J\x7f", "x ##[error]y ###[", "é😀\u2066\u2028", "bad\xff", "#", "##", "plain"}
	var enc bytes.Buffer
	if err := json.NewEncoder(&enc).Encode(strs); err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	w := NewJSONWriter(&whole)
	w.Write(enc.Bytes())
	w.Flush()
	for _, bad := range []string{"\u202e", "\u009b", "\x7f", "##[", "\u2066", "\u2028"} {
		if strings.Contains(whole.String(), bad) {
			t.Errorf("%q written raw: %s", bad, whole.String())
		}
	}
	for _, want := range []string{`\u202e`, `\u009b`, `\u007f`, `#\u0023[error]`} {
		if !strings.Contains(whole.String(), want) {
			t.Errorf("no %s in %s", want, whole.String())
		}
	}
	var back []string
	if err := json.Unmarshal(whole.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	for i := range strs {
		if want := strings.ToValidUTF8(strs[i], "\ufffd"); back[i] != want {
			t.Errorf("read back %q, want %q", back[i], want)
		}
	}
	// every cut into two and into single bytes gives the same text
	for cut := 0; cut <= enc.Len(); cut++ {
		var b bytes.Buffer
		w := NewJSONWriter(&b)
		w.Write(enc.Bytes()[:cut])
		w.Write(enc.Bytes()[cut:])
		w.Flush()
		if b.String() != whole.String() {
			t.Fatalf("cut at %d: %s", cut, b.String())
		}
	}
	var b bytes.Buffer
	w = NewJSONWriter(&b)
	for _, c := range enc.Bytes() {
		w.Write([]byte{c})
	}
	w.Flush()
	if b.String() != whole.String() {
		t.Fatalf("byte by byte: %s", b.String())
	}
}
