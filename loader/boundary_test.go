package loader

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/untrusted"
)

// messages joins what a tree's diagnostics say, for searching.
func messages(tr *Tree) string {
	var b strings.Builder
	for _, d := range tr.Diagnostics {
		b.WriteString(d.Rule + ": " + d.Message + "\n")
	}
	return b.String()
}

// A main file that is a link to a file outside the tree is not read, named
// directly or found in a linted directory, and the error is the same
// whether the target exists or not (no existence oracle).
func TestRootLinkOutside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "passwd")
	os.WriteFile(secret, []byte("root:x:0:0::/root:/bin/sh\n"), 0o644)
	for _, target := range []string{secret, filepath.Join(outside, "missing")} {
		tree := t.TempDir()
		os.Symlink(target, filepath.Join(tree, "nginx.conf"))
		for _, p := range []string{filepath.Join(tree, "nginx.conf"), tree} {
			_, err := Load(p, Options{})
			if !errors.Is(err, ErrRootOutside) {
				t.Errorf("Load(%s -> %s): %v, want ErrRootOutside", p, target, err)
			}
		}
		// a directory without nginx.conf: its *.conf files are roots
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "a.conf"), []byte("server { listen 80; }\n"), 0o644)
		os.Symlink(target, filepath.Join(dir, "b.conf"))
		if _, err := Load(dir, Options{}); !errors.Is(err, ErrRootOutside) {
			t.Errorf("Load(dir with b.conf -> %s): %v, want ErrRootOutside", target, err)
		}
		// allowed, or live: read as nginx would
		if target == secret {
			if _, err := Load(filepath.Join(tree, "nginx.conf"), Options{AllowOutside: []string{outside}}); err != nil {
				t.Errorf("allowed: %v", err)
			}
		}
	}
	// a link to a file inside the tree is fine
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "sites-available"), 0o755)
	os.MkdirAll(filepath.Join(tree, "sites-enabled"), 0o755)
	os.WriteFile(filepath.Join(tree, "nginx.conf"), []byte("events {}\nhttp { include sites-enabled/*; }\n"), 0o644)
	os.WriteFile(filepath.Join(tree, "sites-available/x"), []byte("server { listen 80; }\n"), 0o644)
	os.Symlink("../sites-available/x", filepath.Join(tree, "sites-enabled/x"))
	if _, err := Load(filepath.Join(tree, "sites-enabled/x"), Options{}); err != nil {
		t.Errorf("a site link inside the tree: %v", err)
	}
}

// An include pattern outside the tree, or one that reaches outside through
// a linked directory, is reported once by its pattern: no file name from
// outside appears, and the finding does not depend on what exists there.
func TestOutsideGlobNotListed(t *testing.T) {
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(outside, "alice/.ssh"), 0o755)
	os.WriteFile(filepath.Join(outside, "alice/.ssh/id_rsa_SECRETNAME"), []byte("k"), 0o600)
	os.WriteFile(filepath.Join(outside, "leak_SECRETNAME.conf"), []byte("server_name x;\n"), 0o644)
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "conf.d/real"), 0o755)
	os.WriteFile(filepath.Join(tree, "conf.d/real/ok.conf"), []byte("server { listen 80; }\n"), 0o644)
	os.Symlink(outside, filepath.Join(tree, "conf.d/linked"))
	os.Symlink(outside, filepath.Join(tree, "linkdir"))
	conf := "events {}\nhttp {\n" +
		"    include " + outside + "/*/.ssh/*;\n" +
		"    include linkdir/*.conf;\n" +
		"    include conf.d/*/*.conf;\n" +
		"    include ../" + filepath.Base(outside) + "/*.conf;\n" +
		"    include " + outside + "/alice/.ssh/id_rsa_SECRETNAME;\n" +
		"    include " + outside + "/alice/.ssh/missing_SECRETNAME;\n" +
		"}\n"
	os.WriteFile(filepath.Join(tree, "nginx.conf"), []byte(conf), 0o644)
	tr := mustLoad(t, tree, Options{})
	msgs := messages(tr)
	for _, f := range tr.Files {
		if !strings.HasPrefix(f.Path, tree) {
			t.Errorf("read outside the tree: %s", f.Path)
		}
	}
	// the names of outside files never appear, except where the
	// configuration itself wrote them (line 7)
	for _, d := range tr.Diagnostics {
		if strings.Contains(d.Message, "leak_") || strings.Contains(d.Message, "id_rsa") && d.Line != 7 {
			t.Errorf("an outside file's name in a finding: %s", d.Message)
		}
	}
	if n := strings.Count(msgs, "include-outside-tree"); n != 6 {
		t.Errorf("%d outside findings, want one per include (6):\n%s", n, msgs)
	}
	// the file that exists and the one that does not read the same
	var exists, missing string
	for _, d := range tr.Diagnostics {
		switch d.Line {
		case 7:
			exists = nameRe.ReplaceAllString(d.Message, "X")
		case 8:
			missing = nameRe.ReplaceAllString(d.Message, "X")
		}
	}
	if exists != missing || exists == "" {
		t.Errorf("an existing and a missing outside file are told apart:\n%s\n%s", exists, missing)
	}
	if tr.File(filepath.Join(tree, "conf.d/real/ok.conf")) == nil {
		t.Errorf("the inside match of conf.d/*/*.conf was not read")
	}
}

// nameRe matches the two outside names of TestOutsideGlobNotListed, whole
// or clipped.
var nameRe = regexp.MustCompile(`(id_rsa|missing)_S[A-Z]*(\.\.\.)?`)

// Include fan-out: 2,000 includes of a pattern matching 2,000 small files
// stay under the directive bound but would make every rule walk four
// million files. The loader refuses it at the include that multiplies
// most, and expands the pattern once.
func TestIncludeFanOutRefused(t *testing.T) {
	dir := fanOutTree(t, "gzip on;\n")
	tr := mustLoad(t, dir, Options{})
	if len(tr.Unreadable) == 0 || !strings.Contains(messages(tr), "more than 100000 files") {
		t.Errorf("fan-out not refused:\n%s", parserCut(messages(tr)))
	}
	if len(tr.Files) != 401 {
		t.Errorf("%d files read, want each once (401)", len(tr.Files))
	}
}

// fanOutTree writes a tree of 400 includes of 400 files, each holding
// body: 160,000 file instances, past MaxFileInstances.
func fanOutTree(t *testing.T, body string) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755)
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n")
	for i := 0; i < 400; i++ {
		b.WriteString("    include conf.d/*.conf;\n")
		os.WriteFile(filepath.Join(dir, "conf.d", fmt.Sprintf("%04d.conf", i)), []byte(body), 0o644)
	}
	b.WriteString("}\n")
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(b.String()), 0o644)
	return dir
}

func parserCut(s string) string { return untrusted.CutAt(s, 2000) }

// A checkout's modules-enabled holds links to the server's files
// (/usr/share/nginx/modules-available/...): one finding for the include,
// the same whether this machine has those files or not.
func TestOutsideLinksOneFinding(t *testing.T) {
	var msgs []string
	for _, exist := range []bool{false, true} {
		outside := filepath.Join(t.TempDir(), "modules-available")
		tree := filepath.Join(t.TempDir(), "nginx")
		os.MkdirAll(filepath.Join(tree, "modules-enabled"), 0o755)
		if exist {
			os.MkdirAll(outside, 0o755)
		}
		for _, m := range []string{"geoip", "mail", "stream", "xslt"} {
			if exist {
				os.WriteFile(filepath.Join(outside, "mod-"+m+".conf"), []byte("load_module x.so;\n"), 0o644)
			}
			os.Symlink(filepath.Join(outside, "mod-"+m+".conf"), filepath.Join(tree, "modules-enabled", "50-mod-"+m+".conf"))
		}
		os.WriteFile(filepath.Join(tree, "nginx.conf"), []byte("include /etc/nginx/modules-enabled/*.conf;\nevents {}\nhttp {}\n"), 0o644)
		tr := mustLoad(t, tree, Options{})
		if len(tr.Diagnostics) != 1 || tr.Diagnostics[0].Rule != "include-outside-tree" || !strings.Contains(tr.Diagnostics[0].Message, "4 of the files") {
			t.Errorf("exist=%v: want one include-outside-tree finding for the four links:\n%s", exist, messages(tr))
		}
		msgs = append(msgs, strings.ReplaceAll(messages(tr), filepath.Dir(outside), "X"))
	}
	if msgs[0] != msgs[1] {
		t.Errorf("the finding depends on what this machine has:\n%s\n%s", msgs[0], msgs[1])
	}
}

// TestOutsideLinkTargetNotFollowed: a link inside the tree whose target
// lies outside is found outside by its target as written. The target is
// not looked at: what a link outside points to (the process's working
// directory behind /proc/self/cwd, a chain of links leading back into the
// tree) neither shows in a finding nor changes what is read.
func TestOutsideLinkTargetNotFollowed(t *testing.T) {
	tree := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "conf.d"), 0o755)
	os.MkdirAll(filepath.Join(tree, "sub"), 0o755)
	os.WriteFile(filepath.Join(tree, "sub/inner.conf"), []byte("server { listen 8080; }\n"), 0o644)
	// outside/hop -> tree/sub/inner.conf: the chain leads back inside
	os.Symlink(filepath.Join(tree, "sub/inner.conf"), filepath.Join(outside, "hop_SECRETNAME.conf"))
	os.Symlink(filepath.Join(outside, "hop_SECRETNAME.conf"), filepath.Join(tree, "conf.d/a.conf"))
	os.Symlink("/proc/self/cwd/x.conf", filepath.Join(tree, "conf.d/b.conf"))
	// a directory outside that links back into the tree
	os.Symlink(filepath.Join(tree, "sub"), filepath.Join(outside, "back"))
	conf := "events {}\nhttp {\n    include conf.d/*.conf;\n    include " + outside + "/back/inner.conf;\n}\n"
	os.WriteFile(filepath.Join(tree, "nginx.conf"), []byte(conf), 0o644)
	t.Chdir(outside) // /proc/self/cwd: a name only the outside knows
	tr := mustLoad(t, tree, Options{})
	inner := filepath.Join(tree, "sub/inner.conf")
	if tr.File(inner) != nil {
		t.Errorf("sub/inner.conf was read through links outside the tree")
	}
	msgs := messages(tr)
	if n := strings.Count("\n"+msgs, "\ninclude-outside-tree:"); n != 2 {
		t.Errorf("%d outside findings, want one per include (2):\n%s", n, msgs)
	}
	if !strings.Contains(msgs, "/proc/self") {
		t.Errorf("the link's target as written is not named:\n%s", msgs)
	}
	for _, d := range tr.Diagnostics {
		if strings.Contains(d.Message, "SECRETNAME") || d.Line == 3 && strings.Contains(d.Message, tree+",") {
			t.Errorf("a finding shows what a link outside points to: %s", d.Message)
		}
	}
	// a directory the user allows is looked at: the chain through it is
	// followed back to inner.conf
	if tr := mustLoad(t, tree, Options{AllowOutside: []string{outside}}); tr.File(inner) == nil {
		t.Errorf("with --allow-outside %s, sub/inner.conf was not read through it:\n%s", outside, messages(tr))
	}
	// the same tree with the outside links gone reads the same
	os.Remove(filepath.Join(outside, "hop_SECRETNAME.conf"))
	os.Remove(filepath.Join(outside, "back"))
	if again := messages(mustLoad(t, tree, Options{})); again != msgs {
		t.Errorf("findings changed with the outside's links:\n%s\n---\n%s", msgs, again)
	}
}

// NearestMain finds no main file for a file whose directory lies outside
// stop (a link's target elsewhere): the nginx.conf beside it is not
// looked at.
func TestNearestMainStaysBelowStop(t *testing.T) {
	stop, elsewhere := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "nginx.conf"), []byte("events {}\n"), 0o644)
	os.WriteFile(filepath.Join(stop, "nginx.conf"), []byte("events {}\n"), 0o644)
	os.MkdirAll(filepath.Join(stop, "sites"), 0o755)
	if got := NearestMain(filepath.Join(elsewhere, "site.conf"), stop); got != "" {
		t.Errorf("outside stop: %q", got)
	}
	if got := NearestMain(filepath.Join(stop, "sites", "a.conf"), stop); got != filepath.Join(stop, "nginx.conf") {
		t.Errorf("inside stop: %q", got)
	}
}
