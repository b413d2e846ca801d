package route

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
)

// fixtureCase is one "# route:" line of a route fixture.
type fixtureCase struct {
	line int
	req  Request
	want map[string]string // server, location: "@name" or "-"; status; closed
}

// fixtureCases reads the "# route: METHOD URL [HTTP/1.0] -> k=v ..." lines
// and the "# @name" markers of a fixture.
func fixtureCases(t *testing.T, src string) (cases []fixtureCase, marks map[string]int) {
	marks = map[string]int{}
	for i, line := range strings.Split(src, "\n") {
		if j := strings.Index(line, "# @"); j >= 0 {
			marks[strings.TrimSpace(line[j+2:])] = i + 1
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "# route:")
		if !ok {
			continue
		}
		reqPart, wantPart, ok := strings.Cut(rest, "->")
		if !ok {
			t.Fatalf("line %d: want METHOD URL -> expectations", i+1)
		}
		f := strings.Fields(reqPart)
		if len(f) != 2 && (len(f) != 3 || !strings.HasPrefix(f[2], "HTTP/")) {
			t.Fatalf("line %d: want METHOD URL [HTTP/1.x]", i+1)
		}
		req, err := ParseRequest(f[1])
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		req.Method = f[0]
		if len(f) == 3 {
			req.Proto = f[2]
		}
		c := fixtureCase{line: i + 1, req: req, want: map[string]string{}}
		for _, w := range strings.Fields(wantPart) {
			k, v, _ := strings.Cut(w, "=")
			c.want[k] = v
		}
		cases = append(cases, c)
	}
	return cases, marks
}

// TestFixtureRoutes checks every fixture's "# route:" lines.
func TestFixtureRoutes(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/route/*.conf")
	if len(paths) == 0 {
		t.Fatal("no route fixtures")
	}
	total := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases, marks := fixtureCases(t, string(b))
		tree, err := loader.Load(p, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := Build(tree)
		for _, c := range cases {
			total++
			res := cfg.Route(c.req, Options{RootCheck: true})
			if msg := checkCase(c, res, marks); msg != "" {
				t.Errorf("%s:%d: %s %s: %s\n%s", filepath.Base(p), c.line, c.req.Method, c.req.Target, msg, trace(res))
			}
		}
	}
	if total < 40 {
		t.Errorf("only %d route cases in the fixtures", total)
	}
}

func trace(res *Result) string {
	var b strings.Builder
	for _, s := range res.Steps {
		b.WriteString("    " + s.Detail + "\n")
	}
	for _, u := range res.Unknown {
		b.WriteString("    unknown: " + u + "\n")
	}
	return b.String()
}

func checkCase(c fixtureCase, res *Result, marks map[string]int) string {
	line := func(d *parser.Directive) string {
		if d == nil {
			return "-"
		}
		return strconv.Itoa(int(d.Line))
	}
	want := func(k string) (string, bool) {
		v, ok := c.want[k]
		if !ok {
			return "", false
		}
		if strings.HasPrefix(v, "@") {
			n, ok := marks[v]
			if !ok {
				return "unknown mark " + v, true
			}
			return strconv.Itoa(n), true
		}
		return v, true
	}
	if w, ok := want("server"); ok {
		got := "-"
		if res.Server != nil {
			got = line(res.Server.Dir)
		}
		if got != w {
			return "server at line " + got + ", want " + w + " (" + c.want["server"] + ")"
		}
	}
	if w, ok := want("location"); ok {
		got := "-"
		if res.Location != nil {
			got = line(res.Location.Dir)
		}
		if got != w {
			return "location at line " + got + ", want " + w + " (" + c.want["location"] + ")"
		}
	}
	if w, ok := c.want["status"]; ok && strconv.Itoa(res.Status) != w {
		return "status " + strconv.Itoa(res.Status) + ", want " + w
	}
	if _, ok := c.want["closed"]; ok != res.Closed {
		return "closed " + strconv.FormatBool(res.Closed) + ", want " + strconv.FormatBool(ok)
	}
	if !res.Certain() {
		return "route is not certain: " + strings.Join(res.Unknown, "; ")
	}
	return ""
}
