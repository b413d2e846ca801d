package generate

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/templates"
)

// present reports whether anything is at p, a link included: a stock file
// (mime.types) there is the tree's own, and stays.
func present(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

var includeRe = lazyre.New(`(?m)^\s*include\s+([^\s;]+);`)

// packageFiles names the data files of nginx's package that the generated
// files include and neither write nor find in dir: a tree of a
// distribution's layout reads them from confDir (/etc/nginx) once it is
// installed there, and nginx -t read the verifying machine's.
func packageFiles(files []templates.File, dir, confDir string) []string {
	written := map[string]bool{}
	for _, f := range files {
		written[f.Path] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		for _, m := range includeRe().FindAllStringSubmatch(f.Content, -1) {
			name := path.Base(m[1])
			rel, ok := strings.CutPrefix(m[1], confDir+"/")
			if !knowledge.IsPackageFile(name) || (!ok && path.IsAbs(m[1])) || rel != name || written[name] || seen[name] || present(filepath.Join(dir, name)) {
				continue
			}
			seen[name] = true
			out = append(out, path.Join(confDir, name))
		}
	}
	return out
}
