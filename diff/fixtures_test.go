package diff

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/route"
)

// fixtureCases lists fixtures/diff/<case>/{old,new} with their
// expect.txt.
func fixtureCases(t *testing.T) []string {
	dirs, _ := filepath.Glob("../fixtures/diff/*/expect.txt")
	if len(dirs) < 6 {
		t.Fatalf("%d diff fixtures, want at least 6", len(dirs))
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	return dirs
}

func loadCase(t *testing.T, dir string) (*Tree, *Tree) {
	t.Helper()
	old, new, err := loadPair(filepath.Join(dir, "old"), filepath.Join(dir, "new"))
	if err != nil {
		t.Fatal(err)
	}
	return old, new
}

// changeOf finds the change a request is in ("" when none).
func changeOf(rep *Report, line string) string {
	for _, c := range rep.Changes {
		for _, q := range c.Requests {
			if RequestLine(q) == line {
				return c.Kind
			}
		}
	}
	return ""
}

// TestFixtures checks each fixture pair against its expect.txt: "exit N"
// (0 no change, 1 a change), "changed KIND REQUEST" (the request is
// reported with that kind), "same REQUEST" (it is not), "setting NAME
// BLOCK [note TEXT]" (a directive in effect at the block changes, with a
// note holding TEXT), "cause LINES" (a change names these changed lines).
func TestFixtures(t *testing.T) {
	for _, dir := range fixtureCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			old, new := loadCase(t, dir)
			b, err := os.ReadFile(filepath.Join(dir, "expect.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
					lines = append(lines, l)
				}
			}
			var extra []route.Request
			for _, l := range lines {
				verb, rest, _ := strings.Cut(l, " ")
				if verb == "changed" {
					_, rest, _ = strings.Cut(rest, " ")
				}
				if verb == "changed" || verb == "same" {
					m, u, _ := strings.Cut(rest, " ")
					q, err := route.ParseRequest(u)
					if err != nil {
						t.Fatal(err)
					}
					q.Method = m
					extra = append(extra, q)
				}
			}
			rep := Compare(old, new, Options{Requests: extra, Every: true})
			var out bytes.Buffer
			if err := Write(&out, "text", rep); err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				verb, rest, _ := strings.Cut(l, " ")
				switch verb {
				case "exit":
					want, _ := strconv.Atoi(rest)
					if got := map[bool]int{true: 1}[rep.Changed()]; got != want {
						t.Errorf("exit %d, want %d:\n%s", got, want, out.String())
					}
					if want == 0 && !strings.Contains(out.String(), "no change in behaviour") {
						t.Errorf("no \"no change in behaviour\":\n%s", out.String())
					}
				case "changed":
					kind, req, _ := strings.Cut(rest, " ")
					if got := changeOf(rep, req); got != kind {
						t.Errorf("%s: reported as %q, want %q:\n%s", req, got, kind, out.String())
					}
				case "same":
					if got := changeOf(rep, rest); got != "" {
						t.Errorf("%s: reported as %q, want no change", rest, got)
					}
				case "setting":
					name, rest, _ := strings.Cut(rest, " ")
					block, note, _ := strings.Cut(rest, " note ")
					found := false
					for _, s := range rep.Settings {
						blocks := []string{s.Block}
						for _, x := range s.Also {
							blocks = append(blocks, x[:strings.LastIndex(x, " (")])
						}
						for _, b := range blocks {
							if s.Name == name && b == block && strings.Contains(strings.ToLower(s.Note), note) {
								found = true
							}
						}
					}
					if !found {
						t.Errorf("no change of %s at %s (note %q):\n%s", name, block, note, out.String())
					}
				case "cause":
					found := false
					for _, c := range rep.Changes {
						if strings.Join(c.Cause, "; ") == rest {
							found = true
						}
					}
					if !found {
						t.Errorf("no change caused by %q:\n%s", rest, out.String())
					}
				default:
					t.Fatalf("expect.txt: %q", l)
				}
			}
			if rep.Compared < 40 {
				t.Errorf("%d requests compared", rep.Compared)
			}
		})
	}
}

// TestUnchangedServersNeedNoRequests checks the shortcut Compare takes by
// default against asking every server: the same changes on every fixture
// pair and on a tree of many servers where one line changes.
func TestUnchangedServersNeedNoRequests(t *testing.T) {
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "    server {\n        listen 80;\n        server_name s%d.example;\n        location / { proxy_pass http://10.0.0.1:%d; }\n        location ~ \\.php$ { return 403; }\n    }\n", i, 8000+i)
	}
	b.WriteString("}\n")
	dir := t.TempDir()
	write(t, filepath.Join(dir, "old", "nginx.conf"), b.String())
	write(t, filepath.Join(dir, "new", "nginx.conf"), strings.Replace(b.String(), "http://10.0.0.1:8100;", "http://10.0.0.1:8100/;", 1))
	cases := append(fixtureCases(t), dir)
	for _, c := range cases {
		old, new := loadCase(t, c)
		short, every := Compare(old, new, Options{}), Compare(old, new, Options{Every: true})
		var got, want strings.Builder
		for _, x := range []struct {
			r *Report
			b *strings.Builder
		}{{short, &got}, {every, &want}} {
			for _, ch := range x.r.Changes {
				for _, q := range ch.Requests {
					fmt.Fprintf(x.b, "%s %s\n", ch.Kind, RequestLine(q))
				}
			}
			for _, s := range x.r.Settings {
				fmt.Fprintf(x.b, "%s %s\n", s.Block, s.Name)
			}
		}
		if got.String() != want.String() {
			t.Errorf("%s: without the unchanged servers\n%s\nwith every server\n%s", c, got.String(), want.String())
		}
		if c == dir && (short.Unchanged != 199 || short.Compared*20 > every.Compared) {
			t.Errorf("%d servers unchanged, %d requests of %d", short.Unchanged, short.Compared, every.Compared)
		}
	}
}
