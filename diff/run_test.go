package diff

import (
	"archive/tar"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOutputsEscapeTreeBytes is the attack of a pull request whose tree
// carries terminal escapes, bidirectional overrides and GitHub workflow
// commands in names and paths: no output format lets one through.
func TestOutputsEscapeTreeBytes(t *testing.T) {
	dir := t.TempDir()
	base := "events {}\nhttp {\n    server {\n        listen 80;\n        server_name \"evil\x1b[2J.example\";\n        location / { return 200; }\n%s    }\n}\n"
	write(t, filepath.Join(dir, "old", "nginx.conf"), strings.Replace(base, "%s", "", 1))
	write(t, filepath.Join(dir, "new", "nginx.conf"), strings.Replace(base, "%s",
		"        location \"/x\x1b]0;title\x07\n::error::pwned\" { return 403; }\n        location /a\u202e { add_header \"X\x1b[31m\" \"##[error]no\"; return 404; }\n", 1))
	old, new, err := loadPair(filepath.Join(dir, "old"), filepath.Join(dir, "new"))
	if err != nil {
		t.Fatal(err)
	}
	rep := Compare(old, new, Options{})
	if !rep.Changed() {
		t.Fatal("no change reported")
	}
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Write(&b, f, rep); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07\u202e") || strings.Contains(out, "##[") {
			t.Errorf("%s: raw escape, override or ##[ in the output:\n%q", f, out)
		}
		for _, line := range strings.Split(out, "\n") {
			l := strings.TrimLeft(line, " \t")
			if strings.HasPrefix(l, "::") && !(f == "github" && (strings.HasPrefix(l, "::warning file=") || strings.HasPrefix(l, "::notice "))) {
				t.Errorf("%s: a line starts a workflow command: %q", f, line)
			}
		}
		if !strings.Contains(out, "evil") {
			t.Errorf("%s: the server is not named:\n%s", f, out)
		}
	}
}

// TestExtractStaysInside is the attack of a revision whose archive holds
// an entry above the tree, or a link out of it followed by a file through
// the link: nothing is written outside the temporary directory.
func TestExtractStaysInside(t *testing.T) {
	outside := t.TempDir()
	for _, entries := range [][]tar.Header{
		{{Name: "link", Typeflag: tar.TypeSymlink, Linkname: outside}, {Name: "link/owned", Typeflag: tar.TypeReg, Size: 1}},
		{{Name: "../owned", Typeflag: tar.TypeReg, Size: 1}},
		{{Name: "a/../../owned", Typeflag: tar.TypeReg, Size: 1}},
	} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, h := range entries {
			h.Mode = 0o644
			tw.WriteHeader(&h)
			if h.Size > 0 {
				tw.Write([]byte("x"))
			}
		}
		tw.Close()
		dir := filepath.Join(t.TempDir(), "in")
		os.MkdirAll(dir, 0o700)
		if err := extract(&buf, dir); err == nil {
			t.Errorf("%s: extracted without an error", entries[len(entries)-1].Name)
		}
		if _, err := os.Stat(filepath.Join(outside, "owned")); err == nil {
			t.Fatalf("%s: written outside the tree", entries[len(entries)-1].Name)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "owned")); err == nil {
			t.Fatalf("%s: written above the tree", entries[len(entries)-1].Name)
		}
	}
}

// TestGit compares the working tree with a revision, and two revisions.
func TestGit(t *testing.T) {
	repo, run := gitRepo(t)
	oldSrc, _ := os.ReadFile("../fixtures/diff/regex-swallows/old/nginx.conf")
	newSrc, _ := os.ReadFile("../fixtures/diff/regex-swallows/new/nginx.conf")
	run("init", "-q")
	write(t, filepath.Join(repo, "deploy", "nginx.conf"), string(oldSrc))
	run("add", ".")
	run("commit", "-q", "-m", "old")
	path := filepath.Join(repo, "deploy")
	var out bytes.Buffer
	rep, err := Run(RunOptions{Args: []string{path}, Git: "HEAD", Format: "text", Out: &out})
	if err != nil || rep.Changed() {
		t.Fatalf("unchanged working tree: %v %s", err, out.String())
	}
	write(t, filepath.Join(path, "nginx.conf"), string(newSrc))
	out.Reset()
	if rep, err = Run(RunOptions{Args: []string{path}, Git: "HEAD", Format: "text", Out: &out}); err != nil || changeOf(rep, "GET http://app.example/api/x.php") != KindBlock {
		t.Fatalf("working tree against HEAD: %v\n%s", err, out.String())
	}
	run("commit", "-q", "-am", "new")
	out.Reset()
	if rep, err = Run(RunOptions{Args: []string{filepath.Join(path, "nginx.conf")}, Git: "HEAD~1..HEAD", Format: "github", Out: &out}); err != nil || changeOf(rep, "GET http://app.example/api/x.php") != KindBlock {
		t.Fatalf("HEAD~1..HEAD: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "file="+filepath.ToSlash(path)+"/nginx.conf,line=16") {
		t.Errorf("the annotation is not on the new location in the working tree:\n%s", out.String())
	}
	for _, bad := range []string{"--upload-pack=x", "nope", "HEAD..--x"} {
		if _, err := Run(RunOptions{Args: []string{path}, Git: bad, Format: "text", Out: &out}); err == nil {
			t.Errorf("--git %q: no error", bad)
		}
	}
}

// TestReadRequests reads URLs and access-log lines in the combined format
// and in a tree's own log_format.
func TestReadRequests(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "nginx.conf"), "events {}\nhttp {\n    log_format vhost '$host $remote_addr [$time_local] \"$request\" $status';\n    server { listen 80; server_name a.example; }\n}\n")
	tr, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	in := `# requests
http://a.example/x?y=1
/nohost
b.example/p
10.0.0.1 - - [02/Dec/2026:07:00:00 +0000] "POST /login HTTP/1.1" 200 12 "-" "curl/8"
a.example 10.0.0.2 [02/Dec/2026:07:00:00 +0000] "GET /vhost/page HTTP/1.1" 404
`
	reqs, err := ReadRequests("reqs.txt", strings.NewReader(in), tr)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range reqs {
		got = append(got, RequestLine(q))
	}
	want := []string{"GET http://a.example/x?y=1", "GET http://(no Host)/nohost", "GET http://b.example/p", "POST http://(no Host)/login (HTTP/1.0)", "GET http://a.example/vhost/page"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := ReadRequests("reqs.txt", strings.NewReader("http://a/\nnot a request line\n"), tr); err == nil || !strings.HasPrefix(err.Error(), "reqs.txt:2: ") {
		t.Errorf("a bad line: %v", err)
	}
}

// A requests file with a line of ten million characters (a hostile access
// log) is refused with the line it stops at, as every bad line is, not
// with the scanner's message and no place.
func TestRequestFileLongLine(t *testing.T) {
	in := "http://a/\n/" + strings.Repeat("a", 10_000_000) + "\n"
	_, err := ReadRequests("access.log", strings.NewReader(in))
	if err == nil || !strings.HasPrefix(err.Error(), "access.log:2: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a 10,000,000-character line: %v, want one line starting access.log:2:", err)
	}
}

// A revision whose tree is larger than diff reads (a committed file past
// 64 MiB) is refused saying so, not as git's broken pipe (or as a
// revision that has no such path), whichever way git stops.
func TestGitTreeTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB file")
	}
	repo, run := gitRepo(t)
	run("init", "-q")
	write(t, filepath.Join(repo, "nginx.conf"), "events {}\nhttp { server { listen 80; } }\n")
	write(t, filepath.Join(repo, "big.txt"), strings.Repeat("a", maxArchive+1))
	run("add", ".")
	run("commit", "-q", "-m", "big")
	if err := os.Remove(filepath.Join(repo, "big.txt")); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err := Run(RunOptions{Args: []string{repo}, Git: "HEAD", Format: "text", Out: &out})
	if err == nil || err.Error() != "--git: HEAD: "+errTooLarge.Error() {
		t.Errorf("a 64 MiB tree: %v, want one line saying it is larger than 64 MiB", err)
	}
}

// gitRepo makes an empty repository and returns it with a function running
// git there (skipping the test without git).
func gitRepo(t *testing.T) (string, func(args ...string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return repo, run
}

// A pull request that adds thousands of regex server names asks route to
// match every generated request (one per name, and more) against every
// name, in both trees: 10,000 of them ran for hours. Past diff's bound of
// matches the run is refused in one line before any request is asked;
// 3,000 names (36 million matches) ran for tens of seconds before.
func TestRegexExplosionRefused(t *testing.T) {
	dir := t.TempDir()
	var names strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&names, ` "~^(a+)+b%d\.(x|y)+\.example$"`, i)
	}
	for _, side := range []string{"old", "new"} {
		extra := ""
		if side == "new" {
			extra = "location /new/ { return 204; }"
		}
		write(t, filepath.Join(dir, side, "nginx.conf"), "events {}\nhttp {\n server {\n  listen 80;\n  server_name"+names.String()+";\n  "+extra+"\n }\n}\n")
	}
	var out bytes.Buffer
	_, err := Run(RunOptions{Args: []string{filepath.Join(dir, "old"), filepath.Join(dir, "new")}, Format: "text", Out: &out})
	if err == nil || !strings.Contains(err.Error(), "regular-expression matches") || strings.Contains(err.Error(), "\n") {
		t.Errorf("3,000 regex server names: %v, want one line refusing the run", err)
	}
	if out.Len() != 0 {
		t.Errorf("a refused run wrote %d bytes", out.Len())
	}
}

// The bound leaves the 20,000-server tree and its kind alone: what a
// request costs is the regexes at its port, not every one of the tree.
func TestWorkCountsOnePort(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n")
	for i := range 2000 {
		fmt.Fprintf(&b, " server { listen 80; server_name s%d.example; location ~ \\.php$ { return 200; } location ~ /\\. { deny all; } }\n", i)
	}
	b.WriteString("}\n")
	write(t, filepath.Join(dir, "nginx.conf"), b.String())
	tr, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	reqs := requestSet(nil, tr.cfg, tr.cfg)
	if err := checkWork(reqs, tr, tr); err != nil {
		t.Errorf("2,000 servers with two regex locations each: %v", err)
	}
}

// A revision's .gitattributes assigns its files to a filter driver of the
// user's git configuration (git-lfs's on many CI machines, whose smudge
// fetches from the server the tree's .lfsconfig names): git archive ran
// the driver's command for each file. It must run nothing.
func TestGitRunsNoFilter(t *testing.T) {
	repo, run := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "smudged")
	run("init", "-q")
	run("config", "filter.demo.smudge", "touch '"+marker+"'; cat")
	run("config", "filter.demo.clean", "cat")
	run("config", "filter.demo.required", "true")
	write(t, filepath.Join(repo, ".gitattributes"), "*.conf filter=demo\n")
	write(t, filepath.Join(repo, "nginx.conf"), "events {}\nhttp { server { listen 80; } }\n")
	run("add", ".")
	run("commit", "-q", "-m", "filtered")
	if _, err := os.Stat(marker); err == nil {
		os.Remove(marker) // git add's checkout side, not diff
	}
	var out bytes.Buffer
	rep, err := Run(RunOptions{Args: []string{repo}, Git: "HEAD", Format: "text", Out: &out})
	if err != nil || rep.Changed() {
		t.Fatalf("--git HEAD over a filtered file: %v %s", err, out.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("--git ran the filter driver the revision's .gitattributes names")
	}
}

// A tree with thousands of log_format directives made every line of an
// access log be matched against each of them before the combined format
// (5,000 in each tree and 20,000 lines ran for 205 s): the format that
// read the line before is tried first, so each line costs one match.
// The limit only catches the old behaviour: 60,000 lines ran for minutes.
func TestManyLogFormats(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n")
	for i := range 5000 {
		fmt.Fprintf(&b, " log_format f%d '$remote_addr %d $host [$time_local] \"$request\" $status $a1 $a2 $a3 $a4 $a5';\n", i, i)
	}
	b.WriteString(" server { listen 80; }\n}\n")
	write(t, filepath.Join(dir, "nginx.conf"), b.String())
	tr, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for i := range 60000 {
		fmt.Fprintf(&log, "10.0.0.1 - - [02/Dec/2026:08:00:00 +0000] \"GET /p/%d HTTP/1.1\" 200 12 \"-\" \"curl/8\"\n", i)
	}
	formats := logFormats(tr, tr)
	done := make(chan error, 1)
	go func() {
		reqs, err := ReadRequests("access.log", strings.NewReader(log.String()), tr, tr)
		if err == nil && len(reqs) != 60000 {
			err = fmt.Errorf("%d requests, want 60000", len(reqs))
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("60,000 lines against %d log formats did not finish in 60 s", len(formats))
	}
}

// A server whose first name samples to a Host nginx refuses (a regex
// name "~^::x") still has its locations asked, with a name nginx takes:
// the change in its location is reported, not "no change in behaviour".
func TestRefusedHostFirstStillAsksLocations(t *testing.T) {
	dir := t.TempDir()
	base := "events {}\nhttp {\n    server {\n        listen 80;\n        server_name ~^::x app.test;\n        location /api/ { return %d; }\n    }\n    server {\n        listen 80 default_server;\n        return 404;\n    }\n}\n"
	write(t, filepath.Join(dir, "old", "nginx.conf"), fmt.Sprintf(base, 200))
	write(t, filepath.Join(dir, "new", "nginx.conf"), fmt.Sprintf(base, 403))
	old, new, err := loadPair(filepath.Join(dir, "old"), filepath.Join(dir, "new"))
	if err != nil {
		t.Fatal(err)
	}
	if rep := Compare(old, new, Options{}); !rep.Changed() {
		t.Error("the location's new status was not reported")
	}
}
