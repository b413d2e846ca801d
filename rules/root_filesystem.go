package rules

import (
	"path"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var rootFilesystem = &engine.Rule{
	Doc: engine.Doc{
		ID:    "root-filesystem",
		Title: "root or alias at / or a system directory",
		Why: `"root /;" serves the whole filesystem: /etc/passwd, private keys and the configuration
itself are one request away wherever a location without a handler reaches files. A root at
/etc or /proc does the same for the files there. The directory named is judged, ".." resolved:
/etc, /run, /var/lib, /dev/shm themselves and anything under /proc, /sys and /dev are the
system's; an application's directory below them (/etc/nginx/errors, /run/app/files,
/var/lib/app/media, GitLab's /dev/shm/gitlab/avatars) is someone's deliberate choice.`,
		Fix:      `Point root at the directory that holds the site and nothing else (/var/www/site).`,
		Bad:      "events {}\nhttp {\n    server {\n        root /;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        root /var/www/site;\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module root", "gixy: root at / (the check's idea; written anew here)"},
	},
	Check: check(checkRootFilesystem),
	Scope: engine.ScopeServer,
}

// systemRoots are directories no web server should serve from: each one
// itself, and, for those whose every subdirectory is the system's own
// (systemTrees), any directory below it.
var systemRoots = []string{"/etc", "/proc", "/sys", "/dev", "/dev/shm", "/root", "/boot", "/run", "/var/run", "/var/lib", "/usr/lib", "/bin", "/sbin", "/usr/bin", "/usr/sbin"}

// systemTrees hold nothing but the kernel's and the devices' files, except
// /dev/shm, a memory file system where applications keep directories of
// their own (GitLab's /dev/shm/gitlab/avatars).
var systemTrees = []string{"/proc", "/sys", "/dev"}

// systemDirectory reports whether a root or alias serves a directory of
// the system: judged on the directory it names ("/dev/shm/gitlab/avatars"
// is an application's, "/dev/shm" and "/dev/disk" are not), with ".."
// resolved.
func systemDirectory(dir string) bool {
	if !strings.HasPrefix(dir, "/") {
		return false
	}
	v := path.Clean(dir)
	if v == "/dev/null" {
		return false
	}
	for _, s := range systemRoots {
		if v == s {
			return true
		}
	}
	if strings.HasPrefix(v, "/dev/shm/") {
		return false
	}
	for _, s := range systemTrees {
		if strings.HasPrefix(v, s+"/") {
			return true
		}
	}
	return false
}

func checkRootFilesystem(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Name == "root" && servesNothing(p, c) {
			return // no request is answered from this root
		}
		v := strings.TrimSuffix(d.Arg(0), "/")
		if v == "" && d.Arg(0) == "/" {
			p.ReportArgf(d, 0, "%s / serves the whole filesystem (/etc/passwd, keys, this configuration) wherever files are served; point it at the site's own directory", d.Name)
			return
		}
		// the directory itself; a subdirectory (/etc/nginx/errors,
		// /var/lib/app/media, /run/app/files) is someone's deliberate choice
		if systemDirectory(d.Arg(0)) {
			p.ReportArgf(d, 0, "%s %s serves a system directory; point it at the site's own directory", d.Name, engine.Clip(d.Arg(0)))
		}
	}, "root", "alias")
}

// servesNothing reports whether the block a root stands in answers no
// request from it: a location that hands every request on (proxy_pass,
// return, ...), or a server whose "location /" and every other location
// do, or have a root or alias of their own.
func servesNothing(p *Pass, c *parser.Context) bool {
	b := c.Blocks
	if len(b) == 0 {
		return false
	}
	block := b[len(b)-1]
	handles := func(l *parser.Directive) bool {
		for _, x := range parser.Level(l.Block) {
			if knowledge.Responds(x.Name) || x.Name == "alias" || x.Name == "root" {
				return true
			}
		}
		return false
	}
	switch block.Name {
	case "location":
		for _, x := range parser.Level(block.Block) {
			if knowledge.Responds(x.Name) {
				return true
			}
		}
		return false
	case "server":
		slash := false
		var all func(ds []*parser.Directive) bool
		all = func(ds []*parser.Directive) bool {
			for _, x := range ds {
				if x.Name != "location" || x.Block == nil {
					continue
				}
				if len(x.Args) == 1 && x.Arg(0) == "/" {
					slash = true
				}
				if !handles(x) || !all(parser.Level(x.Block)) {
					return false
				}
			}
			return true
		}
		return all(parser.Level(block.Block)) && slash
	}
	return false
}
