package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/parser"
)

const fixtures = "../fixtures"

func mustLoad(t *testing.T, p string, opt Options) *Tree {
	t.Helper()
	tr, err := Load(p, opt)
	if err != nil {
		t.Fatalf("Load(%s): %v", p, err)
	}
	return tr
}

func syntaxDiags(tr *Tree) []finding.Diagnostic {
	var out []finding.Diagnostic
	for _, d := range tr.Diagnostics {
		if d.Rule == parser.Syntax {
			out = append(out, d)
		}
	}
	return out
}

var (
	errorHdr = regexp.MustCompile(`(?m)^# error (\d+):(\d+) (.*)$`)
	nginxHdr = regexp.MustCompile(`(?m)^# nginx (\d+) (.*)$`)
)

// Each file in fixtures/parser/syntax states in its header where nginxtune
// reports the error ("# error LINE:COL TEXT") and what nginx -t says
// ("# nginx LINE TEXT", or "# nginx-ok" when nginx accepts the file).
func TestSyntaxFixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "parser/syntax/*.conf"))
	if len(files) == 0 {
		t.Fatal("no syntax fixtures")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m := errorHdr.FindSubmatch(src)
			if m == nil {
				t.Fatal("fixture has no # error header")
			}
			wantLine, _ := strconv.Atoi(string(m[1]))
			wantCol, _ := strconv.Atoi(string(m[2]))
			tr := mustLoad(t, f, Options{})
			ds := syntaxDiags(tr)
			if len(ds) != 1 {
				t.Fatalf("want 1 syntax diagnostic, got %d: %v", len(ds), ds)
			}
			d := ds[0]
			if d.Line != wantLine || d.Col != wantCol || !strings.Contains(d.Message, string(m[3])) {
				t.Errorf("got %d:%d %q, want %d:%d containing %q", d.Line, d.Col, d.Message, wantLine, wantCol, m[3])
			}

			abs, _ := filepath.Abs(f)
			res := nginxtest.Test(t, map[string][]byte{"nginx.conf": src}, "nginx.conf")
			if strings.Contains(string(src), "\n# nginx-ok\n") {
				if !res.OK {
					t.Fatalf("nginx rejects the file: %s", res.Output)
				}
				return
			}
			n := nginxHdr.FindSubmatch(src)
			if n == nil {
				t.Fatal("fixture has no # nginx header")
			}
			nLine, _ := strconv.Atoi(string(n[1]))
			if res.OK || res.Line != nLine || !strings.Contains(res.Message, string(n[2])) {
				t.Fatalf("nginx -t said %q at line %d (ok=%v), fixture expects %q at %d", res.Message, res.Line, res.OK, n[2], nLine)
			}
			// The line nginx names is the one we record for it.
			gotNginx := d.Line
			if d.EndLine != 0 {
				gotNginx = d.EndLine
			}
			if !strings.HasPrefix(d.Message, "missing \";\"") && gotNginx != res.Line {
				t.Errorf("%s: EndLine %d, nginx -t says %d", abs, gotNginx, res.Line)
			}
		})
	}
}

// Files in fixtures/parser/valid load cleanly and pass a real nginx -t;
// files in fixtures/parser/loads use modules Debian lacks and must load.
func TestValidFixtures(t *testing.T) {
	for _, dir := range []string{"valid", "loads"} {
		files, _ := filepath.Glob(filepath.Join(fixtures, "parser", dir, "*.conf"))
		if len(files) == 0 {
			t.Fatalf("no fixtures in %s", dir)
		}
		for _, f := range files {
			t.Run(dir+"/"+filepath.Base(f), func(t *testing.T) {
				tr := mustLoad(t, f, Options{})
				if len(tr.Diagnostics) != 0 {
					t.Fatalf("diagnostics: %v", tr.Diagnostics)
				}
				if dir != "valid" {
					return
				}
				src, _ := os.ReadFile(f)
				if res := nginxtest.Test(t, map[string][]byte{"nginx.conf": src}, "nginx.conf"); !res.OK {
					t.Fatalf("nginx -t: %s", res.Output)
				}
			})
		}
	}
}

func find(t *testing.T, tr *Tree, name string, nth int) (*parser.Directive, *parser.Context) {
	t.Helper()
	var got *parser.Directive
	var gotCtx *parser.Context
	n := 0
	tr.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == name && got == nil {
			if n == nth {
				got, gotCtx = d, c // a walk's context stays valid after it
			}
			n++
		}
		return true
	})
	if got == nil {
		t.Fatalf("no %s #%d", name, nth)
	}
	return got, gotCtx
}

func TestPositionsAndValues(t *testing.T) {
	tr := mustLoad(t, filepath.Join(fixtures, "parser/valid/quoting.conf"), Options{})
	cases := []struct {
		name      string
		nth       int
		line, col int32
		endLine   int32
		args      []string
		ctx       string
	}{
		{"log_format", 0, 6, 5, 7, []string{"main", `$remote_addr - "$request" `, "status=$status\tbytes=$body_bytes_sent"}, "main/http"},
		{"set", 0, 24, 9, 24, []string{"$greeting", `hello "world"`}, "main/http/server"},
		{"set", 1, 25, 9, 25, []string{"$braced", "${greeting}x"}, "main/http/server"},
		{"add_header", 0, 26, 9, 26, []string{"X-Hash", "a#b"}, "main/http/server"},
		{"if", 0, 28, 13, 31, []string{"($http_x_test", "~", "^a b$", ")"}, "main/http/server/location"},
		{"return", 0, 29, 17, 30, []string{"200", "multi\nline"}, "main/http/server/location/if"},
		{"deny", 0, 33, 32, 33, []string{"all"}, "main/http/server/location/limit_except"},
		{"return", 2, 34, 13, 34, []string{"200", "single 'quoted'"}, "main/http/server/location"},
		{"root", 0, 38, 13, 38, []string{"/srv/www"}, "main/http/server/location"},
	}
	for _, c := range cases {
		d, ctx := find(t, tr, c.name, c.nth)
		if d.Line != c.line || d.Col != c.col || d.EndLine != c.endLine {
			t.Errorf("%s#%d at %d:%d-%d, want %d:%d-%d", c.name, c.nth, d.Line, d.Col, d.EndLine, c.line, c.col, c.endLine)
		}
		if got := strings.Join(d.ArgValues(), "|"); got != strings.Join(c.args, "|") {
			t.Errorf("%s#%d args %q, want %q", c.name, c.nth, got, strings.Join(c.args, "|"))
		}
		if got := strings.Join(ctx.Names, "/"); got != c.ctx {
			t.Errorf("%s#%d context %s, want %s", c.name, c.nth, got, c.ctx)
		}
		if !strings.HasPrefix(d.Text(), c.name) || !(strings.HasSuffix(d.Text(), ";") || strings.HasSuffix(d.Text(), "}")) {
			t.Errorf("%s#%d byte range gives %q", c.name, c.nth, d.Text())
		}
	}
	// map bodies are data: their entries are not walked as directives.
	tr.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == "default" || d.Name == "50%" {
			t.Errorf("walked into a data block: %s at %d", d.Name, d.Line)
		}
		return true
	})
	// comments keep their positions and tell trailing ones apart
	if len(tr.Roots[0].Comments) != 1 || tr.Roots[0].Comments[0].Line != 1 || tr.Roots[0].Comments[0].Trailing {
		t.Errorf("comments: %+v", tr.Roots[0].Comments)
	}
}

func TestCRLFAndBOM(t *testing.T) {
	tr := mustLoad(t, filepath.Join(fixtures, "parser/valid/crlf.conf"), Options{})
	d, _ := find(t, tr, "return", 0)
	if d.Line != 5 || d.Col != 3 || d.Arg(1) != "crlf" {
		t.Errorf("return at %d:%d %q", d.Line, d.Col, d.ArgValues())
	}
	tr = mustLoad(t, filepath.Join(fixtures, "parser/loads/bom.conf"), Options{})
	if tr.Roots[0].Directives[0].Name != "events" || tr.Roots[0].Directives[0].Col != 1 {
		t.Errorf("BOM: first directive %q at col %d", tr.Roots[0].Directives[0].Name, tr.Roots[0].Directives[0].Col)
	}
}

func TestLuaBlocks(t *testing.T) {
	tr := mustLoad(t, filepath.Join(fixtures, "parser/loads/openresty.conf"), Options{})
	d, _ := find(t, tr, "init_by_lua_block", 0)
	if !strings.Contains(d.RawBody(), `local s = [==[ ]] } ]==]`) || d.EndLine != 11 {
		t.Errorf("init_by_lua_block body %q ends %d", d.RawBody(), d.EndLine)
	}
	d, ctx := find(t, tr, "content_by_lua_block", 0)
	if d.Line != 16 || d.EndLine != 19 || ctx.In() != "location" {
		t.Errorf("content_by_lua_block %d-%d in %s", d.Line, d.EndLine, ctx.In())
	}
	if _, ctx := find(t, tr, "js_content", 0); ctx.In() != "location" {
		t.Errorf("js_content in %s", ctx.In())
	}
}

func TestIncludeGlobSharedFile(t *testing.T) {
	dir := filepath.Join(fixtures, "trees/glob")
	tr := mustLoad(t, dir, Options{})
	if len(tr.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", tr.Diagnostics)
	}
	var names []string
	for _, f := range tr.Files {
		names = append(names, filepath.Base(f.Path))
	}
	// parsed once each, in the order nginx reads them; the hidden file is skipped
	if got := strings.Join(names, ","); got != "nginx.conf,mime.types,a.conf,proxy.conf,b.conf" {
		t.Errorf("files read: %s", got)
	}
	// the shared snippet is walked in both places, with each place's context
	var places []string
	tr.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == "proxy_http_version" {
			places = append(places, strings.Join(c.Names, "/")+"@"+filepath.Base(d.File.Path)+":"+strconv.Itoa(int(d.Line)))
		}
		return true
	})
	want := "main/http/server@proxy.conf:2 main/http/server/location@proxy.conf:2"
	if got := strings.Join(places, " "); got != want {
		t.Errorf("walked %s, want %s", got, want)
	}
	res := nginxtest.Run(t, nginxtest.Require(t), mustAbs(dir), mustAbs(filepath.Join(dir, "nginx.conf")))
	if !res.OK {
		t.Fatalf("nginx -t: %s", res.Output)
	}
}

func mustAbs(p string) string {
	a, _ := filepath.Abs(p)
	return a
}

func TestIncludeMissingAndCycle(t *testing.T) {
	tr := mustLoad(t, filepath.Join(fixtures, "trees/missing"), Options{})
	got := diagSummary(tr)
	want := "include-missing error nginx.conf:3:5 include-missing info nginx.conf:4:5"
	if got != want {
		t.Errorf("missing: %s, want %s", got, want)
	}
	tr = mustLoad(t, filepath.Join(fixtures, "trees/cycle"), Options{})
	if got := diagSummary(tr); got != "include-cycle error b.conf:2:1" {
		t.Errorf("cycle: %s", got)
	}
	// the walk terminates and sees a.conf and b.conf once each
	n := 0
	tr.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.Name == "server_tokens" || d.Name == "sendfile" {
			n++
		}
		return true
	})
	if n != 2 {
		t.Errorf("walked %d directives of the cycle, want 2", n)
	}
}

func diagSummary(tr *Tree) string {
	var parts []string
	for _, d := range tr.Diagnostics {
		parts = append(parts, d.Rule+" "+d.Severity.String()+" "+filepath.Base(d.File)+":"+strconv.Itoa(d.Line)+":"+strconv.Itoa(d.Col))
	}
	return strings.Join(parts, " ")
}

func TestPathMaps(t *testing.T) {
	dir := filepath.Join(fixtures, "trees/mapped")
	// explicit map
	tr := mustLoad(t, dir, Options{Maps: []PathMap{{From: "/etc/nginx", To: dir}}})
	if len(tr.Diagnostics) != 0 || len(tr.Files) != 2 || filepath.Base(tr.Files[1].Path) != "site.conf" {
		t.Fatalf("explicit map: %v files=%d", tr.Diagnostics, len(tr.Files))
	}
	// inferred: /etc/nginx/conf.d does not exist here, conf.d does below the root
	if _, err := os.Stat("/etc/nginx/conf.d/site.conf"); err == nil {
		t.Skip("this machine has /etc/nginx/conf.d/site.conf")
	}
	tr = mustLoad(t, dir, Options{})
	if _, err := os.Stat("/etc/nginx/conf.d"); err == nil {
		// the live directory exists: the include reads it as nginx would
		return
	}
	if len(tr.Inferred) != 1 || tr.Inferred[0].From != "/etc/nginx" || len(tr.Files) != 2 {
		t.Errorf("inferred %v, files %d", tr.Inferred, len(tr.Files))
	}
}

func TestSnippetDirectory(t *testing.T) {
	tr := mustLoad(t, filepath.Join(fixtures, "trees/snippets"), Options{})
	got := map[string]string{}
	for _, r := range tr.Roots {
		got[filepath.Base(r.Path)] = strings.Join(r.Context, "/") + " " + r.ContextSource
	}
	want := map[string]string{
		"site.conf":       "main/http inferred",
		"standalone.conf": "main/http/server declared",
		"upstreams.conf":  "main/http inferred",
	}
	if len(got) != len(want) {
		t.Errorf("roots %v, want %v (loc.conf is included by site.conf)", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	_, ctx := find(t, tr, "proxy_pass", 0)
	if strings.Join(ctx.Names, "/") != "main/http/server/location" {
		t.Errorf("proxy_pass in %v", ctx.Names)
	}
}

func TestDump(t *testing.T) {
	for _, viaStdin := range []bool{false, true} {
		p := filepath.Join(fixtures, "trees/dump.txt")
		opt := Options{}
		if viaStdin {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			opt.Stdin, p = f, "-"
		}
		tr := mustLoad(t, p, opt)
		if !tr.Dump || len(tr.Files) != 3 || len(tr.Diagnostics) != 0 {
			t.Fatalf("dump: %v files=%d diags=%v", tr.Dump, len(tr.Files), tr.Diagnostics)
		}
		d, ctx := find(t, tr, "proxy_pass", 0)
		if d.File.Path != "/etc/nginx/sites-enabled/default" || d.Line != 5 || strings.Join(ctx.Names, "/") != "main/http/server/location" {
			t.Errorf("proxy_pass in %s:%d %v", d.File.Path, d.Line, ctx.Names)
		}
	}
}

func TestNoConfig(t *testing.T) {
	if _, err := Load(t.TempDir(), Options{}); err == nil {
		t.Error("empty directory loaded without error")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "nope.conf"), Options{}); err == nil {
		t.Error("missing file loaded without error")
	}
}

// How includes that read nothing are judged: nginx accepts a pattern that
// matches nothing; a template placeholder or an absolute path missing from
// a copy is information; a file that exists but cannot be read makes the
// tree unreadable.
func TestIncludeJudgement(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(`events {}
http {
    include /srv/custom/http[.]conf;
    include %home%/nginx/extra.conf;
    include /config/nginx/site-confs/*.conf;
    include /opt/app/nginx/app.conf;
    include missing.conf;
    include secret.conf;
}
`), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.conf"), []byte("sendfile on;\n"), 0o000)
	tr := mustLoad(t, dir, Options{})
	got := diagSummary(tr)
	// line 3, the "[.]" optional-include idiom, is no finding at all; the
	// absolute paths of lines 5 and 6 are outside the tree, whether or not
	// this machine has them
	want := "include-missing info nginx.conf:4:5 include-outside-tree info nginx.conf:5:5 include-outside-tree info nginx.conf:6:5 include-missing error nginx.conf:7:5"
	if os.Geteuid() != 0 { // root reads a 0000 file
		want += " include-missing error nginx.conf:8:5"
		if len(tr.Unreadable) != 1 {
			t.Errorf("unreadable: %v", tr.Unreadable)
		}
	}
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// the same absolute include in the live tree is an error
	tr = mustLoad(t, dir, Options{Live: true})
	if got := diagSummary(tr); !strings.Contains(got, "include-missing error nginx.conf:6:5") {
		t.Errorf("live: %s", got)
	}
	// a directory where a file is expected cannot be read
	os.Mkdir(filepath.Join(dir, "d.conf"), 0o755)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include d.conf;\n}\n"), 0o644)
	tr = mustLoad(t, dir, Options{})
	if len(tr.Unreadable) != 1 || !strings.Contains(diagSummary(tr), "include-missing error") {
		t.Errorf("directory as file: %v %s", tr.Unreadable, diagSummary(tr))
	}
}

// An nginx -T dump of a tree whose conf.d is empty: nginx accepted it, and
// the pattern that matched nothing is no finding.
func TestDumpEmptyGlob(t *testing.T) {
	dump := "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n" +
		"# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n    include /etc/nginx/sites-enabled/*;\n}\n\n" +
		"# configuration file /etc/nginx/sites-enabled/default:\nserver { listen 80; }\n\n"
	tr, err := Load("-", Options{Stdin: strings.NewReader(dump)})
	if err != nil {
		t.Fatal(err)
	}
	if got := diagSummary(tr); got != "" {
		t.Errorf("dump: %s", got)
	}
}

// Files reached through links are one file at their real path, with the
// link they were named by; an absolute link in a copy points into the copy.
func TestRealPaths(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sites-available"), 0o755)
	os.MkdirAll(filepath.Join(dir, "sites-enabled"), 0o755)
	os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp {\n    include /etc/nginx/sites-enabled/*;\n    include conf.d/*.conf;\n    include linked/*.conf;\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sites-available/a"), []byte("server { listen 80; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sites-available/b"), []byte("server { listen 81; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "conf.d/x.conf"), []byte("sendfile on;\n"), 0o644)
	os.Symlink("../sites-available/a", filepath.Join(dir, "sites-enabled/a"))
	os.Symlink("/etc/nginx/sites-available/b", filepath.Join(dir, "sites-enabled/b"))
	os.Symlink("conf.d", filepath.Join(dir, "linked"))
	tr := mustLoad(t, dir, Options{})
	real, _ := filepath.EvalSymlinks(dir)
	a := tr.File(filepath.Join(real, "sites-available/a"))
	b := tr.File(filepath.Join(real, "sites-available/b"))
	if a == nil || b == nil {
		t.Fatalf("files: %v", paths(tr))
	}
	if !strings.HasSuffix(a.Via, "sites-enabled/a") || !strings.HasSuffix(b.Via, "sites-enabled/b") {
		t.Errorf("via: %q %q", a.Via, b.Via)
	}
	if len(tr.Outside) != 0 {
		t.Errorf("read outside the copy: %v", tr.Outside)
	}
	// conf.d/x.conf through conf.d and through the linked directory: one file
	n := 0
	for _, f := range tr.Files {
		if strings.HasSuffix(f.Path, "/x.conf") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("x.conf read %d times: %v", n, paths(tr))
	}
}

func paths(tr *Tree) []string {
	var out []string
	for _, f := range tr.Files {
		out = append(out, f.Path)
	}
	return out
}

// A fragment linted alone resolves its relative includes against the
// directory of the nginx.conf above it, as nginx's prefix does.
func TestFragmentIncludesFromMainDir(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sites-available"), 0o755)
	os.MkdirAll(filepath.Join(dir, "snippets"), 0o755)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\nhttp { include sites-available/*; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "snippets/php.conf"), []byte("fastcgi_index index.php;\n"), 0o644)
	site := filepath.Join(dir, "sites-available/app")
	os.WriteFile(site, []byte("server {\n    listen 80;\n    location ~ \\.php$ { include snippets/php.conf; }\n}\n"), 0o644)
	tr := mustLoad(t, site, Options{})
	if got := diagSummary(tr); got != "" {
		t.Errorf("fragment: %s", got)
	}
	if len(tr.Files) != 2 {
		t.Errorf("files: %v", paths(tr))
	}
}

// oneCharClasses is the regular expression ^[^\[\]]*(\[[^\]]\][^\[\]]*)+$
// written out by hand; the two agree on every case here and on what the
// fuzzer finds (FuzzOneCharClasses).
func TestOneCharClassesIsTheRegexp(t *testing.T) {
	for _, s := range []string{"", "a", "[", "]", "[]", "[.]", "site[.]conf", "x[.]y[.]z", "[[]", "[]]", "a[bc]d",
		"a[.]]", "a[.][", "[é]", "[\xff]", "a[.", "ab]", "[.]x[", "é[.]é", "[.][.]"} {
		fuzzOneCharClasses(t, s)
	}
}

func FuzzOneCharClasses(f *testing.F) {
	for _, s := range []string{"site[.]conf", "[é]", "[]]", "a[.][", "[\xff]"} {
		f.Add(s)
	}
	f.Fuzz(fuzzOneCharClasses)
}

var oneCharClassRe = regexp.MustCompile(`^[^\[\]]*(\[[^\]]\][^\[\]]*)+$`)

func fuzzOneCharClasses(t *testing.T, s string) {
	if got, want := oneCharClasses(s), oneCharClassRe.MatchString(s); got != want {
		t.Errorf("oneCharClasses(%q) = %v, the regexp says %v", s, got, want)
	}
}

// Files an include matches are read on every processor when they are large
// enough together (prefetchMin); the tree is the same as when they are read
// one after another: the same files in the same order, the same
// diagnostics (a file with a syntax error, one reached through a link and
// directly, a hard link, an unreadable one, one too deep in links).
func TestPrefetchMatchesSequential(t *testing.T) {
	defer func(n int) { prefetchMin = n }(prefetchMin)
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("nginx.conf", "events {}\nhttp {\n    include sites/*.conf;\n    include more/*;\n}\n")
	for i := 0; i < 40; i++ {
		write(fmt.Sprintf("sites/s%02d.conf", i), fmt.Sprintf("server {\n    listen %d;\n    server_name s%d.example;\n    include snippets/common.conf;\n}\n", 8000+i, i))
	}
	write("sites/broken.conf", "server {\n    listen 81\n")
	write("snippets/common.conf", "location / { try_files $uri =404; }\n")
	if err := os.Symlink("../sites/s01.conf", filepath.Join(dir, "sites", "zz-link.conf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "sites", "s02.conf"), filepath.Join(dir, "sites", "zz-hard.conf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop.conf", filepath.Join(dir, "sites", "loop.conf")); err != nil {
		t.Fatal(err)
	}
	write("more/a", "map $uri $x { default 1; }\n")
	write("more/b", "upstream b { server 127.0.0.1:9; }\n")
	load := func() string {
		tr, err := Load(filepath.Join(dir, "nginx.conf"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, r := range tr.Roots {
			fmt.Fprintf(&b, "root %s\n", r.Path)
		}
		for _, f := range tr.Files {
			fmt.Fprintf(&b, "file %s via %q broken %v context %v %s\n", f.Path, f.Via, f.Broken, f.Context, f.ContextSource)
			parser.WalkFile(f.Directives, func(d *parser.Directive) {
				fmt.Fprintf(&b, "  %d:%d-%d %d-%d %s %q", d.Line, d.Col, d.EndLine, d.Start, d.End, d.Name, d.ArgValues())
				for _, inc := range d.Includes() {
					fmt.Fprintf(&b, " %s", inc.Path)
				}
				b.WriteString("\n")
			})
		}
		for _, d := range tr.Diagnostics {
			fmt.Fprintf(&b, "%+v\n", d)
		}
		fmt.Fprintf(&b, "\n%d files %d diagnostics", len(tr.Files), len(tr.Diagnostics))
		return b.String()
	}
	prefetchMin = 1 << 30
	seq := load()
	prefetchMin = 0
	for i := 0; i < 3; i++ {
		if par := load(); par != seq {
			t.Fatalf("read in parallel:\n%s\nread in turn:\n%s", par, seq)
		}
	}
	if !strings.Contains(seq, "broken.conf") || !strings.Contains(seq, "loop.conf") {
		t.Errorf("the tree misses a case:\n%s", seq)
	}
}

// LoadFS reads a tree from an fs.FS as Load reads it from the disk: the
// same statements and the same diagnostics, paths relative to the FS.
func TestLoadFSAgreesWithLoad(t *testing.T) {
	for _, dir := range []string{"../fixtures/trees/glob", "../fixtures/trees/missing", "../fixtures/trees/cycle", "../fixtures/lsp"} {
		abs, _ := filepath.Abs(dir)
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		disk, err := Load(filepath.Join(abs, "nginx.conf"), Options{})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		mem, err := LoadFS(os.DirFS(abs), "nginx.conf", Options{})
		if err != nil {
			t.Fatalf("%s: LoadFS: %v", dir, err)
		}
		show := func(tr *Tree, prefix string) string {
			var b strings.Builder
			tr.Walk(func(d *parser.Directive, c *parser.Context) bool {
				fmt.Fprintf(&b, "%s:%d %s %s %v\n", strings.TrimPrefix(d.File.Path, prefix), d.Line, d.Name, strings.Join(d.ArgValues(), " "), c.Names)
				return true
			})
			for _, dg := range tr.Diagnostics {
				fmt.Fprintf(&b, "%s:%d %s\n", strings.TrimPrefix(dg.File, prefix), dg.Line, dg.Rule)
			}
			return b.String()
		}
		if a, b := show(disk, abs), show(mem, ""); a != b {
			t.Errorf("%s: Load and LoadFS differ:\n%s\n---\n%s", dir, a, b)
		}
	}
}

// Statements and Visits are counted while the tree loads (finish keeps what
// expanding each file saw of it): the counts are those of walking the
// loaded tree, on every fixture tree, a dump with a file nothing includes,
// and trees cut at the directive and file-instance bounds.
func TestCountsMatchWalk(t *testing.T) {
	var paths []string
	for _, pat := range []string{"trees/*", "parser/valid/*.conf", "parser/syntax/*.conf"} {
		m, _ := filepath.Glob(filepath.Join(fixtures, pat))
		paths = append(paths, m...)
	}
	// each file includes the next twice: 2^24 places, past MaxDirectiveVisits
	amp := t.TempDir()
	os.WriteFile(filepath.Join(amp, "nginx.conf"), []byte("events {}\nhttp {\n    include f0.conf;\n}\n"), 0o644)
	for i := 0; i < 24; i++ {
		os.WriteFile(filepath.Join(amp, fmt.Sprintf("f%d.conf", i)), fmt.Appendf(nil, "gzip on;\ninclude f%d.conf;\nserver { include f%d.conf; }\n", i+1, i+1), 0o644)
	}
	os.WriteFile(filepath.Join(amp, "f24.conf"), []byte("gzip on;\n"), 0o644)
	fan := fanOutTree(t, "gzip on;\nserver { listen 80; }\n") // past MaxFileInstances
	// a dump whose second file nothing includes
	dump := filepath.Join(t.TempDir(), "dump.txt")
	os.WriteFile(dump, []byte("# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp { include /etc/nginx/a.conf; }\n\n"+
		"# configuration file /etc/nginx/a.conf:\nserver { listen 80; location / { } }\n\n"+
		"# configuration file /etc/nginx/b.conf:\nserver { listen 81; types { text/html html; } }\n"), 0o644)
	paths = append(paths, amp, fan, dump)
	for _, p := range paths {
		tr, err := Load(p, Options{})
		if err != nil {
			continue // not a configuration (a fixture's data file)
		}
		if !tr.counted {
			t.Fatalf("%s: not counted while loading", p)
		}
		if (p == amp || p == fan) && len(tr.Unreadable) == 0 {
			t.Fatalf("%s: not cut at a bound", p)
		}
		walked := *tr
		walked.counted = false
		if tr.Statements() != walked.Statements() || tr.Visits() != walked.Visits() {
			t.Errorf("%s: counted %d statements, %d visits; a walk gives %d, %d", p,
				tr.Statements(), tr.Visits(), walked.Statements(), walked.Visits())
		}
		visits := 0
		tr.Walk(func(*parser.Directive, *parser.Context) bool { visits++; return true })
		if visits != tr.Visits() {
			t.Errorf("%s: Walk meets %d directives, Visits says %d", p, visits, tr.Visits())
		}
	}
	if len(paths) < 20 {
		t.Fatalf("only %d trees", len(paths))
	}
}
