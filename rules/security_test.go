package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// securityRules are the rules of the gixy family (docs/security.md): their
// fixture folders hold at least three cases each way. Every rule of the
// security category is one (checked below); the family also holds
// correctness rules gixy reports, such as if-is-evil.
var securityRules = []string{
	"alias-traversal", "allow-without-deny", "autoindex-on", "default-server-missing",
	"error-log-off", "header-inheritance", "header-injection", "header-multiline",
	"host-spoofing", "hsts-missing", "if-is-evil", "map-default-missing", "origin-regex",
	"proxy-dns-static", "proxy-pass-normalized", "regex-capture-missing", "regex-redos",
	"regex-unanchored", "resolver-public", "return-bypasses-access", "root-filesystem",
	"server-tokens", "ssl-stapling-no-resolver", "ssrf", "status-page-exposed",
	"try-files-proxy", "valid-referers-none", "weak-tls",
}

var lookAlike = regexp.MustCompile(`(?m)^\s*#\s*look-alike:`)

// TestRuleFixtureFolders: every rule has a folder fixtures/rules/<id>/ whose
// fires* fixtures expect it (the security rules at least three times) and
// whose clean* fixtures hold look-alikes (marked "# look-alike: why"; the
// security rules at least three) and expect it nowhere.
func TestRuleFixtureFolders(t *testing.T) {
	security := map[string]bool{}
	for _, id := range securityRules {
		if ByID(id) == nil {
			t.Errorf("%s is not a rule", id)
		}
		security[id] = true
	}
	for _, r := range All {
		if r.Category == engine.CategorySecurity && !security[r.ID] {
			t.Errorf("%s is a security rule outside the gixy family's fixture bar", r.ID)
		}
	}
	for _, r := range All {
		id := r.ID
		dir := filepath.Join("../fixtures/rules", id)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Errorf("%s: no fixture folder: %v", id, err)
			continue
		}
		fires, clean, alikes := 0, 0, 0
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if !e.IsDir() && !strings.HasSuffix(e.Name(), ".conf") {
				continue // a file the fixtures include (fastcgi_params), a .fixed golden
			}
			if e.IsDir() {
				if _, err := os.Stat(filepath.Join(p, "nginx.conf")); err != nil {
					continue // files an include reads
				}
			}
			tr, err := loader.Load(p, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, x := range expectations(t, tr) {
				if x.rule == id {
					n++
				}
			}
			switch {
			case strings.HasPrefix(e.Name(), "fires"):
				fires += n
			case strings.HasPrefix(e.Name(), "clean"):
				clean++
				if n > 0 {
					t.Errorf("%s expects %s %d times; a clean fixture holds look-alikes only", p, id, n)
				}
				for _, f := range tr.Files {
					alikes += len(lookAlike.FindAll(f.Src, -1))
				}
			default:
				t.Errorf("%s: name a fixture fires* or clean*", p)
			}
		}
		want := 1
		if security[id] {
			want = 3
		}
		if fires < want {
			t.Errorf("%s: the fires fixtures expect it %d times, want at least %d", id, fires, want)
		}
		if clean == 0 || alikes < want {
			t.Errorf("%s: %d look-alikes in clean fixtures, want at least %d", id, alikes, want)
		}
	}
}
