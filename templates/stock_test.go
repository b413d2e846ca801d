package templates

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/knowledge"
)

// The stock files gen writes into a tree of its own match their goldens
// (nginx -t reads them with every golden tree, TestGolden); mime.types
// names each extension once (nginx warns of a duplicate), gives every type
// the profiles compress a file name, and the gateway parameters use only
// variables nginx has.
func TestStockFiles(t *testing.T) {
	for name, content := range map[string]string{"mime.types": stockMimeTypes(), "fastcgi_params": stockParams("fastcgi"), "uwsgi_params": stockParams("uwsgi")} {
		golden := filepath.Join("testdata", "stock-"+name+".golden")
		if *update {
			os.WriteFile(golden, []byte(content), 0o644)
		} else if want, err := os.ReadFile(golden); err != nil || string(want) != content {
			t.Errorf("%s differs (go test ./templates -update to accept):\n%s", golden, content)
		}
	}
	seen, types := map[string]string{}, map[string]bool{}
	for _, m := range mimeTypes {
		types[m.typ] = true
		for _, e := range m.exts {
			if other, ok := seen[e]; ok {
				t.Errorf("extension %s for %s and %s", e, other, m.typ)
			}
			seen[e] = m.typ
		}
	}
	for _, name := range Profiles() {
		p, _ := LoadProfile(name)
		for _, ty := range p.GzipTypes {
			if !types[ty] && ty != "application/javascript" {
				t.Errorf("profile %s compresses %s, which mime.types gives no file", name, ty)
			}
		}
	}
	for _, proto := range []string{"fastcgi", "uwsgi"} {
		for _, v := range regexp.MustCompile(`\$([a-z_]+)`).FindAllStringSubmatch(stockParams(proto), -1) {
			if !knowledge.VariableKnown(v[1], false) {
				t.Errorf("%s_params: $%s is no nginx variable", proto, v[1])
			}
		}
		if !strings.Contains(stockParams(proto), proto+"_param QUERY_STRING $query_string;") {
			t.Errorf("%s_params without QUERY_STRING", proto)
		}
	}
}

// Every value gen writes by choice, not sized, says why in the comment
// above it (or above the location it opens), as the sized ones do:
// keepalive_timeout, client_max_body_size, the gzip settings, expires.
func TestValuesSayWhy(t *testing.T) {
	directive := regexp.MustCompile(`^\s*(keepalive_timeout|client_max_body_size|gzip_comp_level|gzip_min_length|gzip_vary|gzip_proxied|expires)\s`)
	for _, c := range cases() {
		for _, f := range render(t, c, "/c.pem", "/k.pem") {
			lines := strings.Split(f.Content, "\n")
			for i, l := range lines {
				if !directive.MatchString(l) {
					continue
				}
				above := func(j int) string {
					if j < 0 {
						return ""
					}
					return strings.TrimSpace(lines[j])
				}
				if !strings.HasPrefix(above(i-1), "#") && !(strings.HasSuffix(above(i-1), "{") && strings.HasPrefix(above(i-2), "#")) {
					t.Errorf("%s %s:%d: %q says not why", c.name(), f.Path, i+1, strings.TrimSpace(l))
				}
			}
		}
	}
}
