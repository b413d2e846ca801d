package knowledge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/knowledge"
)

// scriptCases pin how nginx 1.22.1 reads "$" in a value, each with the
// line of src/http/ngx_http_script.c (ngx_http_script_compile) that decides
// it. served is what "return 200 ARG" answers for /abc in "location ~
// ^/(a)(b)(c)$" after "set $v V" (TestVarRefsAgainstNginx serves them);
// bad is the error nginx -t reports instead, for the ones it refuses.
var scriptCases = []struct {
	arg    string
	refs   []knowledge.VarRef
	served string // what nginx answers, when it starts
	bad    string // nginx -t's error (its first words), when it does not
	source string // the line of ngx_http_script.c
}{
	{"$1", []knowledge.VarRef{ref("1", 0, 2, knowledge.Capture)}, "a", "", "480: one digit 1-9 is a capture"},
	{"$10", []knowledge.VarRef{ref("1", 0, 2, knowledge.Capture)}, "a0", "", "480-498: the capture takes one digit, then copy"},
	{"$3x", []knowledge.VarRef{ref("3", 0, 2, knowledge.Capture)}, "cx", "", "480-498"},
	{"$0", []knowledge.VarRef{ref("0", 0, 2, knowledge.Named)}, "", `unknown "0" variable`, "480: 0 is not a capture; 530-533 read it as a name"},
	{"$0x", []knowledge.VarRef{ref("0x", 0, 3, knowledge.Named)}, "", `unknown "0x" variable`, "521-539"},
	{"${1}", []knowledge.VarRef{ref("1", 0, 4, knowledge.Braced)}, "", `unknown "1" variable`, "507: a brace comes before any capture test"},
	{"$v", []knowledge.VarRef{ref("v", 0, 2, knowledge.Named)}, "V", "", "516-539"},
	{"$V", []knowledge.VarRef{ref("V", 0, 2, knowledge.Named)}, "V", "", "the name's case does not matter (ngx_http_get_variable_index lowers it)"},
	{"$vy", []knowledge.VarRef{ref("vy", 0, 3, knowledge.Named)}, "", `unknown "vy" variable`, "530-533: letters go on the name"},
	{"${v}y", []knowledge.VarRef{ref("v", 0, 4, knowledge.Braced)}, "Vy", "", "524-527: the brace closes the name"},
	{"$v-$args.", []knowledge.VarRef{ref("v", 0, 2, knowledge.Named), ref("args", 3, 8, knowledge.Named)}, "V-.", "", "538: any other byte ends the name"},
	{"x$1$v$2", []knowledge.VarRef{ref("1", 1, 3, knowledge.Capture), ref("v", 3, 5, knowledge.Named), ref("2", 5, 7, knowledge.Capture)}, "xaVb", "", "474-498"},
	{"a$", nil, "", "invalid variable name", "476-477: a $ at the end"},
	{"${", nil, "", "invalid variable name", "510-511: ${ at the end"},
	{"${}", nil, "", "invalid variable name", "548-549: an empty name"},
	{"$-", nil, "", "invalid variable name", "548-549"},
	{"$$v", []knowledge.VarRef{ref("v", 1, 3, knowledge.Named)}, "", "invalid variable name", "548-549: the first $ has no name"},
	{"${v", nil, "", `the closing bracket in "v" variable is missing`, "541-546"},
	{"${v-x}", nil, "", `the closing bracket in "v" variable is missing`, "538, 541-546: the name stops at -, unclosed"},
}

func ref(name string, start, end int, kind knowledge.VarKind) knowledge.VarRef {
	return knowledge.VarRef{Name: name, Start: start, End: end, Kind: kind}
}

func TestVarRefs(t *testing.T) {
	for _, c := range scriptCases {
		if got := knowledge.VarRefs(c.arg); !reflect.DeepEqual(got, c.refs) {
			t.Errorf("VarRefs(%q) = %+v, want %+v (ngx_http_script.c %s)", c.arg, got, c.refs, c.source)
		}
		want := c.bad
		if strings.HasPrefix(want, "unknown") {
			want = "" // the script compiles; the variable is missing later
		}
		if got := knowledge.ScriptError(c.arg); got != want {
			t.Errorf("ScriptError(%q) = %q, want %q (ngx_http_script.c %s)", c.arg, got, want, c.source)
		}
	}
}

// TestVarRefsAgainstNginx holds the table above against nginx itself: the
// values nginx refuses fail nginx -t with the error given, and the others
// answer what the table says when a real nginx serves them.
func TestVarRefsAgainstNginx(t *testing.T) {
	nginxtest.Require(t)
	conf := func(port int, args []string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "events {}\nhttp {\n  server {\n    listen 127.0.0.1:%d;\n", port)
		for i, a := range args {
			fmt.Fprintf(&b, "    location ~ ^/%d/(a)(b)(c)$ {\n      set $v V;\n      return 200 \"%s\";\n    }\n", i, a)
		}
		b.WriteString("  }\n}\n")
		return b.String()
	}
	var served []string
	for _, c := range scriptCases {
		if c.bad == "" {
			served = append(served, c.arg)
			continue
		}
		r := nginxtest.Test(t, map[string][]byte{"nginx.conf": []byte(conf(8080, []string{c.arg}))}, "nginx.conf")
		if r.OK || !strings.HasPrefix(r.Message, c.bad) {
			t.Errorf("nginx -t on %q: ok %v, %q; want the error %q", c.arg, r.OK, r.Message, c.bad)
		}
	}
	port := nginxtest.FreePort(t)
	dir := t.TempDir()
	text := conf(port, served)
	if r := nginxtest.Test(t, map[string][]byte{"nginx.conf": []byte(text)}, "nginx.conf"); !r.OK {
		t.Fatalf("nginx -t: %s", r.Output)
	}
	main := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(main, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	nginxtest.Serve(t, dir, main, fmt.Sprintf("127.0.0.1:%d", port))
	i := 0
	for _, c := range scriptCases {
		if c.bad != "" {
			continue
		}
		status, body := nginxtest.Get(t, fmt.Sprintf("http://127.0.0.1:%d/%d/abc", port, i))
		if status != 200 || body != c.served {
			t.Errorf("nginx answers %q with %d %q, want %q", c.arg, status, body, c.served)
		}
		i++
	}
}
