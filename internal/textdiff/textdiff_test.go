package textdiff

import "testing"

func TestUnified(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\n"
	want := `--- old
+++ new
@@ -1,6 +1,6 @@
 a
 b
-c
+C
 d
 e
 f
@@ -8,3 +8,4 @@
 h
 i
 j
+k
`
	if got := Unified("old", "new", old, new); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Unified("a", "b", "x\n", "x\n") != "" {
		t.Error("equal texts gave a diff")
	}
	if got := Unified("a", "b", "", "x\n"); got != "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n" {
		t.Errorf("new file: %q", got)
	}
	// a last line without a line ending differs from one with it, and
	// says so as diff does (git apply and patch need it)
	if got := Unified("a", "b", "x\ny", "x\ny\n"); got != "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n" {
		t.Errorf("no line ending: %q", got)
	}
}
