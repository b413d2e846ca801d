package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRouteGolden(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, c := range []struct{ name, format string }{{"route-basic.text", "text"}, {"route-basic.json", "json"}} {
		out, errOut, code := runCLI(t, "", "route", "fixtures/route/basic.conf", "http://app.example/blog/post?id=7", "--all", "--format", c.format)
		if code != ExitOK || errOut != "" {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		golden(t, c.name, out)
	}
	out, _, _ := runCLI(t, "", "route", "fixtures/route/basic.conf", "http://app.example/blog/post?id=7", "--format", "json")
	var j struct {
		Server struct {
			File string
			Line int
		} `json:"server"`
		Location struct {
			File    string
			Line    int
			Pattern string
		} `json:"location"`
		Certain bool     `json:"certain"`
		Unknown []string `json:"depends_on"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Server.File != "fixtures/route/basic.conf" || j.Server.Line != 9 || j.Location.Pattern != `\.php$` || j.Certain || len(j.Unknown) != 2 {
		t.Errorf("json: %+v", j)
	}
}

func TestRouteErrors(t *testing.T) {
	t.Chdir(repoRoot(t))
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.conf")
	os.WriteFile(broken, []byte("events {}\nhttp {\n    server {\n        listen 80\n        location / { }\n"), 0o644)
	nohttp := filepath.Join(dir, "nohttp.conf")
	os.WriteFile(nohttp, []byte("events {}\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fixtures/route/basic.conf", "ftp://x/"}, "only http:// and https://"},
		{[]string{"fixtures/route/basic.conf", "http://x/", "--addr", "nope"}, "--addr"},
		{[]string{"fixtures/route/basic.conf", "http://x/", "--client", "1.2.3"}, "--client"},
		{[]string{"fixtures/route/basic.conf", "http://x/", "--header", "novalue"}, "--header"},
		{[]string{"fixtures/route/basic.conf", "http://x/", "--format", "xml"}, "--format"},
		{[]string{"fixtures/route/basic.conf", "/x", "--http-version", "2"}, "--http-version"},
		{[]string{broken, "http://x/"}, "broken.conf:"},
		{[]string{nohttp, "http://x/"}, "no http server blocks"},
		{[]string{filepath.Join(dir, "missing.conf"), "http://x/"}, "missing.conf"},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"route"}, c.args...)...)
		if code != ExitError || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line naming %q", c.args, code, errOut, c.want)
		}
	}
}

// A host name, header or file name from the command line or the tree is
// printed escaped: it cannot write to the terminal.
func TestRouteEscapes(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "evil\x1b[31m.conf")
	os.WriteFile(name, []byte("events {}\nhttp { server { listen 80; server_name \"a\x1b]0;pwn\x07\"; return 200; } }\n"), 0o644)
	out, errOut, code := runCLI(t, "", "route", name, "http://x\x1b[2J/")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("raw control bytes in output:\n%q", out)
	}
}
