package format

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"

	"github.com/nginxtune/nginxtune/parser"
)

const corpusDir = "../../shared/corpus"

func format(t *testing.T, name, src string, opt Options) (string, error) {
	t.Helper()
	f, d := parser.Parse(name, []byte(src))
	if d != nil {
		t.Fatalf("%s: %s", name, d.Message)
	}
	out, err := Source(f, opt)
	return string(out), err
}

func TestLayout(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"one per line", "events { worker_connections 768; }\n", "events {\n    worker_connections 768;\n}\n"},
		{"blank lines", "a 1;\n\n\n\n\nb 2;\n\nc 3;\n", "a 1;\n\n\nb 2;\n\nc 3;\n"},
		{"blank after brace, none before", "http {\n\n    a 1;\n\n}\n", "http {\n\n    a 1;\n}\n"},
		{"blank first line", "\n\n\n\ntypes {\n    text/html html;\n}\n\n\n", "\n\ntypes {\n    text/html html;\n}\n"},
		{"trailing comment", "a 1;   # one\nb 2;\n", "a 1; # one\nb 2;\n"},
		{"comment on brace", "http {   # h\n  a 1;\n}\n", "http { # h\n  a 1;\n}\n"},
		{"comment lines", "http {\n# c\n    a 1;\n  # d\n}\n", "http {\n    # c\n    a 1;\n    # d\n}\n"},
		{"aligned arguments", "fastcgi_param  A   $a;\nfastcgi_param\tB\t$b ;\n", "fastcgi_param  A   $a;\nfastcgi_param\tB\t$b;\n"},
		{"empty block", "location / {    }\n", "location / {}\n"},
		{"comment in empty block", "location / {\n# c\n}\n", "location / {\n    # c\n}\n"},
		{"quotes kept", "add_header X \"a  b\" 'c\\'d';\n", "add_header X \"a  b\" 'c\\'d';\n"},
		{"multi-line argument", "log_format main '$a'\n      '$b';\n", "log_format main '$a'\n    '$b';\n"},
		{"map kept", "map $a $b {\n  x   1;\n   y 2;\n}\n", "map $a $b {\n  x   1;\n   y 2;\n}\n"},
		{"lua kept", "content_by_lua_block {\n  ngx.say('{')  -- }\n}\n", "content_by_lua_block {\n    ngx.say('{')  -- }\n}\n"},
		{"crlf", "a 1;\r\nb { c 2; }\r\n", "a 1;\r\nb {\r\n    c 2;\r\n}\r\n"},
		{"if", "if ( $a ~* \"x\" ) { return 403; }\n", "if ( $a ~* \"x\" ) {\n    return 403;\n}\n"},
		{"end of file comment", "a 1;\n\n# end\n", "a 1;\n\n# end\n"},
	} {
		got, err := format(t, c.name, c.in, Options{})
		if err != nil || got != c.want {
			t.Errorf("%s: got %q (%v), want %q", c.name, got, err, c.want)
		}
	}
	got, _ := format(t, "tabs", "http { a 1; }\n", Options{Tabs: true})
	if got != "http {\n\ta 1;\n}\n" {
		t.Errorf("tabs: %q", got)
	}
	got, _ = format(t, "two", "http { a 1; }\n", Options{Indent: 2})
	if got != "http {\n  a 1;\n}\n" {
		t.Errorf("indent 2: %q", got)
	}
}

func TestBrokenRefused(t *testing.T) {
	f, d := parser.Parse("x.conf", []byte("http {\n"))
	if d == nil {
		t.Fatal("no syntax error")
	}
	if _, err := Source(f, Options{}); err == nil {
		t.Fatal("a broken file was formatted")
	}
}

// TestCorpus formats every corpus file that parses: the result must read
// as the original (Source checks it) and formatting it again must change
// nothing.
func TestCorpus(t *testing.T) {
	nginxtest.RequireCorpus(t, corpusDir)
	n, skipped := 0, 0
	refused := map[string]string{}
	filepath.WalkDir(corpusDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".tsv") || strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		f, d := parser.Parse(p, b)
		if d != nil {
			skipped++
			return nil
		}
		n++
		once, err := Source(f, Options{})
		var refusal *RefusedError
		if errors.As(err, &refusal) {
			refused[strings.TrimPrefix(p, corpusDir+"/")] = err.Error()
			return nil
		}
		if err != nil {
			t.Errorf("%v", err)
			return nil
		}
		if c := lineMates(f); !slices.Equal(c, lineMates(mustParse(t, p, once))) {
			t.Errorf("%s: a comment after code no longer follows the same statements", p)
		}
		g, d := parser.Parse(p, once)
		if d != nil {
			t.Errorf("%s: formatted file does not parse: %s", p, d.Message)
			return nil
		}
		twice, err := Source(g, Options{})
		if err != nil || !bytes.Equal(once, twice) {
			t.Errorf("%s: not idempotent (%v)", p, err)
		}
		// in columns, and moved to another step (data bodies with it), too
		for _, opt := range []Options{{Align: true}, {Indent: 2}, {Tabs: true}} {
			once, err := Source(f, opt)
			if err != nil {
				t.Errorf("%+v: %v", opt, err)
				continue
			}
			if again, err := Source(mustParse(t, p, once), opt); err != nil || !bytes.Equal(once, again) {
				t.Errorf("%s: %+v, not idempotent (%v)", p, opt, err)
			}
		}
		return nil
	})
	// a file fmt refuses as nginx would is one nginx -t refuses
	for _, r := range nginxtest.CorpusVerdicts(t, corpusDir) {
		if why, ok := refused[r.Path]; ok && r.OK {
			t.Errorf("%s: refused (%s), but nginx -t accepts it", r.Path, why)
		}
	}
	t.Logf("%d corpus files formatted, %d with syntax errors skipped, %d refused as nginx refuses them", n-len(refused), skipped, len(refused))
	if n < 1000 {
		t.Errorf("only %d corpus files", n)
	}
}

func mustParse(t *testing.T, name string, src []byte) *parser.File {
	t.Helper()
	f, d := parser.Parse(name, src)
	if d != nil {
		t.Fatalf("%s: %s", name, d.Message)
	}
	return f
}

// lineMates lists, for each comment after code, the statements (by their
// place in document order) that start on its line, -1 closing each list:
// what lint's "# nginxtune:disable RULE" at the end of a line covers.
func lineMates(f *parser.File) []int {
	var all []*parser.Directive
	var walk func([]*parser.Directive)
	walk = func(ds []*parser.Directive) {
		for _, d := range ds {
			all = append(all, d)
			walk(d.Block)
		}
	}
	walk(f.Directives)
	var out []int
	for _, c := range f.Comments {
		if !c.Trailing {
			continue
		}
		for i, d := range all {
			if int(d.Line) == c.Line {
				out = append(out, i)
			}
		}
		out = append(out, -1)
	}
	return out
}

// A comment after code keeps the statements it followed on its line: lint
// reads "# nginxtune:disable RULE" there as covering that line, and fmt
// moved it to the "{" line of the enclosing block, away from the
// directive it silenced (lint then reported the finding and an unused
// suppression).
func TestTrailingCommentKeepsItsLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"server { location / { autoindex on; } # nginxtune:disable autoindex-on\n}\n",
			"server { location / { autoindex on; } # nginxtune:disable autoindex-on\n}\n"},
		{"server {\n    location /a {   autoindex on;   # nginxtune:disable autoindex-on\n    }\n}\n",
			"server {\n    location /a { autoindex on; # nginxtune:disable autoindex-on\n    }\n}\n"},
		{"server {\n    listen 80; location / { autoindex on; }   # x\n  return 200;\n}\n",
			"server {\n    listen 80; location / { autoindex on; } # x\n    return 200;\n}\n"},
		{"server {\n    location / { # on the brace\n        autoindex on; }\n}\n",
			"server {\n    location / { # on the brace\n        autoindex on;\n    }\n}\n"},
		{"http {\n    map $a $b { default 0; } x 1; # x\n    server { listen 80; }\n}\n",
			"http {\n    map $a $b { default 0; } x 1; # x\n    server {\n        listen 80;\n    }\n}\n"},
	} {
		got, err := format(t, "c.conf", c.in, Options{})
		if err != nil || got != c.want {
			t.Errorf("%q:\ngot  %q (%v)\nwant %q", c.in, got, err, c.want)
			continue
		}
		if !slices.Equal(lineMates(mustParse(t, "in", []byte(c.in))), lineMates(mustParse(t, "out", []byte(got)))) {
			t.Errorf("%q: the comments follow other statements", c.in)
		}
		if again, _ := format(t, "c.conf", got, Options{}); again != got {
			t.Errorf("%q: not idempotent: %q", got, again)
		}
	}
}

// A file keeps its own indentation unless told: Debian's files are
// indented with tabs, and fmt rewrote them with four spaces.
func TestOwnIndentation(t *testing.T) {
	for _, c := range []struct {
		in   string
		opt  Options
		want string
	}{
		{"http {\n\tsendfile on;\n\tserver { listen 80;\n  location / {} }\n}\n", Options{},
			"http {\n\tsendfile on;\n\tserver {\n\t\tlisten 80;\n\t\tlocation / {}\n\t}\n}\n"},
		{"http {\n  sendfile on;\n  server { listen 80; }\n}\n", Options{},
			"http {\n  sendfile on;\n  server {\n    listen 80;\n  }\n}\n"},
		{"http {\n\tsendfile on;\n}\n", Options{Indent: 4}, "http {\n    sendfile on;\n}\n"},
		{"http {\n  sendfile on;\n}\n", Options{Tabs: true}, "http {\n\tsendfile on;\n}\n"},
		{"http { sendfile on; }\n", Options{}, "http {\n    sendfile on;\n}\n"}, // nothing to tell: 4 spaces
	} {
		if got, err := format(t, "i.conf", c.in, c.opt); err != nil || got != c.want {
			t.Errorf("%q %+v:\ngot  %q (%v)\nwant %q", c.in, c.opt, got, err, c.want)
		}
	}
}

// nginx refuses a directive given a block it does not take, or without
// the block it needs, and a ";" missing before the next line's directive:
// fmt laid such input out as if it were sound ("listen 80 location / {").
// It refuses it, naming the line.
func TestRefusesWhatNginxRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"server {\n    listen 80 location / { return 200; }\n}\n", `x.conf:2:5: "listen" takes no block`},
		{"server {\n    location /;\n}\n", `x.conf:2:5: "location" opens a block`},
		{"location / {\n    proxy_pass http://a\n    proxy_set_header Host $host;\n}\n", `x.conf:2:24: missing ";"`},
	} {
		_, err := format(t, "x.conf", c.in, Options{})
		var r *RefusedError
		if !errors.As(err, &r) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
	}
	// a name the directive table does not know is taken as written
	if _, err := format(t, "x.conf", "server {\n    my_module_thing 1 { a 1; }\n}\n", Options{}); err != nil {
		t.Errorf("an unknown directive: %v", err)
	}
}

// The body of a data block stayed where it was when its block moved: h5bp's
// map at two spaces, formatted with four, had its "map" line at four, its
// entries still at four and its "}" at two; a tab-indented Lua body ended
// up under a four-space line. A body moves as a whole: one level inside its
// statement, "}" under it, its lines' indentation relative to each other
// kept, the text of a word over several lines (a quoted string, a Lua long
// string) untouched.
func TestDataBodyMovesWhole(t *testing.T) {
	h5bp := "http {\n\n  # Add Cache-Control.\n  map $sent_http_content_type $cache_control {\n" +
		"    default                           \"public, immutable\";\n\n    # No content\n" +
		"    \"\"                                \"no-store\";\n    ~*json                            \"\"; # `no-cache` (*)\n  }\n\n  sendfile on;\n}\n"
	for _, c := range []struct {
		name, in string
		opt      Options
		want     string
	}{
		{"h5bp map, 2 to 4 spaces", h5bp, Options{Indent: 4},
			"http {\n\n    # Add Cache-Control.\n    map $sent_http_content_type $cache_control {\n" +
				"        default                           \"public, immutable\";\n\n        # No content\n" +
				"        \"\"                                \"no-store\";\n        ~*json                            \"\"; # `no-cache` (*)\n    }\n\n    sendfile on;\n}\n"},
		{"h5bp map as it is", h5bp, Options{}, h5bp},
		{"tab-indented lua under four spaces", "server {\n    listen 80;\n\tlocation / {\n\t\tcontent_by_lua_block {\n\t\t\tif ngx.var.a then\n\t\t\t\tngx.say(\"a\")\t\n\t\t\tend\n\t\t}\n\t}\n}\n", Options{},
			"server {\n    listen 80;\n    location / {\n        content_by_lua_block {\n            if ngx.var.a then\n            \tngx.say(\"a\")\n            end\n        }\n    }\n}\n"},
		{"lua long string and comment untouched", "server {\n  content_by_lua_block {\n      local s = [[\n  two\n      four ]] --[==[\n   c ]==]\n      ngx.say(\"a\\\n   b\")\n  }\n}\n", Options{Indent: 4},
			"server {\n    content_by_lua_block {\n        local s = [[\n  two\n      four ]] --[==[\n   c ]==]\n        ngx.say(\"a\\\n   b\")\n    }\n}\n"},
		{"multi-line value untouched", "http {\n map $a $b {\n   x \"one\n   two  \n three\";\n   y 2;\n }\n}\n", Options{Indent: 4},
			"http {\n    map $a $b {\n        x \"one\n   two  \n three\";\n        y 2;\n    }\n}\n"},
		{"commented out at the start of its line", "http {\n    geo $a {\n        default 0;\n#       10.0.0.0/8 1;\n          127.0.0.1 1;\n    }\n}\n", Options{Indent: 2},
			"http {\n  geo $a {\n    default 0;\n    #       10.0.0.0/8 1;\n      127.0.0.1 1;\n  }\n}\n"},
		{"close after an entry", "http {\n  types {\n      text/html html; }\n}\n", Options{Indent: 4},
			"http {\n    types {\n        text/html html; }\n}\n"},
		{"crlf", "http {\r\n  map $a $b {\r\n    x 1;  \r\n  }\r\n}\r\n", Options{Indent: 4},
			"http {\r\n    map $a $b {\r\n        x 1;\r\n    }\r\n}\r\n"},
		// a body written on its "{" line has no layout of its own to keep
		{"one-line map", "http {\n    map $a $b { default 0; ~x  1; }\n}\n", Options{},
			"http {\n    map $a $b {\n        default 0;\n        ~x  1;\n    }\n}\n"},
		{"one-line map, code after", "map $a $b { default 0; } x 1; # x\n", Options{}, "map $a $b { default 0; } x 1; # x\n"},
		{"one-line lua", "location / { content_by_lua_block { ngx.say(1) } }\n", Options{},
			"location / {\n    content_by_lua_block { ngx.say(1) }\n}\n"},
		{"empty map", "map $a $b {\n}\n", Options{}, "map $a $b {}\n"},
		// nginx ends a quoted word at its quote: ")" is a word of its own
		{"if", "if ($arg_s != \"\") { return 403; }\nif ($a = '') {}\n", Options{}, "if ($arg_s != \"\") {\n    return 403;\n}\nif ($a = '') {}\n"},
	} {
		got, err := format(t, c.name, c.in, c.opt)
		if err != nil || got != c.want {
			t.Errorf("%s:\ngot  %q (%v)\nwant %q", c.name, got, err, c.want)
			continue
		}
		if again, err := format(t, c.name, got, c.opt); again != got {
			t.Errorf("%s: not idempotent: %q (%v)", c.name, again, err)
		}
	}
}

// A Lua string that goes on past a line break the scan ends it at (a "\z"
// escape, a "\" before CRLF) put the scan out of step with Lua: the long
// string after it was taken for code and its "]]" line indented, adding
// spaces to the string Lua reads. The long string must come out byte for
// byte.
func TestLuaStringPastLineBreakKeepsLongString(t *testing.T) {
	for _, c := range []struct{ name, in, text string }{
		{"\\z", "server {\nlocation / {\n        content_by_lua_block {\n            local s = \"a\\z\n               b\" .. [[\n  text\n]]\n            ngx.say(s)\n        }\n}\n}\n", "[[\n  text\n]]"},
		{"backslash crlf", "server {\r\nlocation / {\r\n\tcontent_by_lua_block {\r\n\t\tlocal s = \"a\\\r\nb\" .. [[\r\n  x\r\n]]\r\n\t}\r\n}\r\n}\r\n", "[[\r\n  x\r\n]]"},
	} {
		got, err := format(t, c.name, c.in, Options{})
		if err != nil || !strings.Contains(got, c.text) {
			t.Errorf("%s: the long string %q changed:\n%s(%v)", c.name, c.text, got, err)
		}
	}
}

// Options.Align puts the first arguments of consecutive one-line
// statements of a block in a column; a blank line, a comment on its own
// line, a block or a statement over several lines ends a run, and the
// arguments after the first keep their spaces. Off, nothing moves.
func TestAlign(t *testing.T) {
	in := "http {\n    sendfile on;\n    keepalive_timeout\t65;\n    tcp_nopush   on; # after\n\n" +
		"    gzip on;\n    gzip_types text/css  text/plain;\n    # c\n    root /srv;\n    index index.html;\n" +
		"    log_format main '$a'\n        '$b';\n    access_log /x main;\n    error_log /e;\n" +
		"    server { listen 80; server_name a; }\n    if_modified_since exact;\n" +
		"    a 1; bb 2; # x\n    ccc 3;\n\n    d 4;#x\n    ee 5;\n}\n"
	want := "http {\n    sendfile          on;\n    keepalive_timeout 65;\n    tcp_nopush        on; # after\n\n" +
		"    gzip       on;\n    gzip_types text/css  text/plain;\n    # c\n    root  /srv;\n    index index.html;\n" +
		"    log_format main '$a'\n        '$b';\n    access_log /x main;\n    error_log  /e;\n" +
		"    server {\n        listen      80;\n        server_name a;\n    }\n    if_modified_since exact;\n" +
		"    a 1; bb 2; # x\n    ccc 3;\n\n    d  4; #x\n    ee 5;\n}\n"
	got, err := format(t, "a.conf", in, Options{Align: true})
	if err != nil || got != want {
		t.Fatalf("got  %q (%v)\nwant %q", got, err, want)
	}
	if again, _ := format(t, "a.conf", got, Options{Align: true}); again != got {
		t.Errorf("not idempotent: %q", again)
	}
	if off, _ := format(t, "a.conf", want, Options{}); off != want {
		t.Errorf("without Align the columns moved: %q", off)
	}
}

// The attack on --align: one long name among many short statements. Every
// short statement was padded to the long name's column, so the output grew
// with the product of the two (a 4,000-byte name, as long as nginx takes
// a word, and 20,000 statements of 5 bytes: 104 KB in, 80 MB out). A name
// past maxColumn stays out of the column, and the output stays a constant
// times the input.
func TestAlignBounded(t *testing.T) {
	for _, n := range []int{1000, 20000} {
		src := strings.Repeat("x", 4000) + " 1;\n" + strings.Repeat("a 1;\n", n)
		out, err := format(t, "long.conf", src, Options{Align: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 2*len(src) {
			t.Errorf("%d statements: %d bytes in, %d out", n, len(src), len(out))
		}
	}
	got, _ := format(t, "a.conf", "ab 1;\n"+strings.Repeat("n", maxColumn+1)+" 2;\nabc 3;\n", Options{Align: true})
	if want := "ab 1;\n" + strings.Repeat("n", maxColumn+1) + " 2;\nabc 3;\n"; got != want {
		t.Errorf("a long name: %q", got)
	}
}
