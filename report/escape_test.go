package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

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
