package format

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nginxtune/nginxtune/parser"
)

// FuzzFormat formats arbitrary bytes that parse: it must never panic or
// hang, never answer ErrChanged (formatting that would change what nginx
// reads is a bug), and what it writes must parse again to the same
// statements, arguments, bodies and comments (Same, checked here apart
// from the check Source makes itself) and format to itself: formatting is
// idempotent, in each layout.
func FuzzFormat(f *testing.F) {
	seeds, _ := filepath.Glob("../fixtures/parser/*/*.conf")
	more, _ := filepath.Glob("../fixtures/mission/*.conf")
	for _, s := range append(seeds, more...) {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b, uint8(0), false)
		}
	}
	f.Add([]byte("http {\n\tserver { listen 80; # trailing\n  location / { return 200 \"a b\"; }\n}}\n"), uint8(2), false)
	f.Add([]byte("\xEF\xBB\xBFevents {}\r\nhttp {\r\n  map $a $b { default 1; }\r\n}\r\n"), uint8(0), true)
	f.Add([]byte("content_by_lua_block { ngx.say('}') }\n# end   \n"), uint8(8), false)
	f.Fuzz(func(t *testing.T, src []byte, indent uint8, tabs bool) {
		if len(src) > 1<<16 {
			return
		}
		file, diag := parser.Parse("fuzz.conf", src)
		if diag != nil {
			return
		}
		opt := Options{Indent: int(indent % 9), Tabs: tabs}
		once, err := Source(file, opt)
		var changed *ErrChanged
		if errors.As(err, &changed) {
			t.Fatalf("%v\n%q", err, src)
		}
		if err != nil {
			return // refused as nginx would refuse it, or nested too deep
		}
		again, diag := parser.Parse("fuzz.conf", once)
		if diag != nil {
			t.Fatalf("the output does not parse: %s\n%q\n%q", diag.Message, src, once)
		}
		if err := Same(file, again); err != nil {
			t.Fatalf("the output reads otherwise: %v\n%q\n%q", err, src, once)
		}
		twice, err := Source(again, opt)
		if err != nil {
			t.Fatalf("the output does not format: %v\n%q", err, once)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("formatting is not idempotent:\n%q\nonce:\n%q\ntwice:\n%q", src, once, twice)
		}
	})
}
