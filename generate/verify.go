package generate

// What gen checks before it writes: nginxtune's own reading of the tree
// with the new files in it (always; nothing it reads runs), and nginx -t
// (when nginx is installed and gen runs as root) over gen's files, or over
// the whole tree when that tree is trusted: the live configuration, or one
// named with --nginx-test. nginx -t reads every file a configuration names
// and creates its log files as root, so a tree from anywhere else never
// reaches it.

import (
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
	"github.com/nginxtune/nginxtune/templates"
)

// verifyOutput checks the generated files, together with the tree in dir
// ("" when gen only prints). into says dir's nginx.conf is the tree's own;
// theirs are the tree's files as --tune-main changes them (paths relative
// to dir): the tree's, not gen's, so nginx -t reads them only with the
// rest of a trusted tree.
func verifyOutput(w io.Writer, files, theirs []templates.File, v knowledge.Version, dir string, trusted bool, lay *templates.Layout, into bool) error {
	var conf []templates.File
	for _, f := range files {
		if !f.OS {
			conf = append(conf, f)
		}
	}
	if err := ownCheck(append(append([]templates.File(nil), conf...), theirs...), v, dir, lay); err != nil {
		return err
	}
	if pk := packageFiles(conf, dir, lay.ConfDir); dir != "" && len(pk) > 0 {
		fmt.Fprintf(w, "nginxtune: the tree includes %s, which nginx's package installs and gen does not write: install the tree in %s, beside them\n", strings.Join(pk, ", "), lay.ConfDir)
	}
	bin, installed := nginxFor(w, v)
	if bin == "" {
		return nil
	}
	n := &nginxT{bin: bin, dir: dir, lay: lay, into: into, whole: dir != "" && trusted, conf: conf, checked: conf, seenNames: map[string]bool{}}
	if n.whole {
		n.checked = append(append([]templates.File(nil), conf...), theirs...)
	}
	if dir != "" && !trusted && hasFiles(dir) {
		fmt.Fprintf(w, "nginxtune: nginx -t checks gen's files only, not the rest of %s: it is not the live configuration, and nginx -t would read every file it names and create its logs as root (--nginx-test if you trust it); nginxtune's own reading of the whole tree found nothing nginx refuses\n", untrusted.Escape(dir))
	}
	staged := false
	for _, file := range conf {
		staged = staged || file.Enable != ""
	}
	if staged {
		ok, msg, err := n.check(false)
		if err != nil {
			fmt.Fprintf(w, "nginxtune: not verified: %s\n", untrusted.Escape(err.Error()))
			return nil
		}
		if !ok {
			return fmt.Errorf("nginx -t rejects the generated configuration before the certificate exists: %s", msg)
		}
	}
	ok, msg, err := n.check(true)
	if err != nil {
		fmt.Fprintf(w, "nginxtune: not verified: %s\n", untrusted.Escape(err.Error()))
		return nil
	}
	if !ok {
		return fmt.Errorf("nginx -t rejects the generated configuration: %s", msg)
	}
	n.say(w, installed, staged)
	return nil
}

// nginxFor is the installed nginx binary and its version when nginx -t can
// check a configuration for v here (installed, run as root, of the same
// syntax); "" when it cannot, said.
func nginxFor(w io.Writer, v knowledge.Version) (bin, installed string) {
	bin = nginxcheck.Binary()
	if bin == "" {
		fmt.Fprintln(w, "nginxtune: not verified with nginx -t: no nginx installed here")
		return "", ""
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(w, "nginxtune: not verified with nginx -t: that needs root (the configuration names a user and system log files)")
		return "", ""
	}
	installed = nginxcheck.Version(bin)
	if installed == "" {
		fmt.Fprintln(w, "nginxtune: not verified with nginx -t: cannot read the installed nginx's version")
		return "", ""
	}
	iv, err := knowledge.ParseVersion(installed)
	if err != nil || (iv.Less(knowledge.HTTP2Directive) != v.Less(knowledge.HTTP2Directive)) {
		fmt.Fprintf(w, "nginxtune: not verified with nginx -t: the installed nginx %s reads different syntax than %s\n", installed, v)
		return "", ""
	}
	return bin, installed
}

// nginxT checks gen's files with nginx -t, in a temporary prefix: with the
// whole tree in dir when that is trusted (whole), else alone.
type nginxT struct {
	bin   string
	dir   string
	lay   *templates.Layout
	into  bool // dir's nginx.conf is the tree's own
	whole bool
	// conf are gen's configuration files; checked those nginx -t reads
	// (with the tree's own that --tune-main changes, when whole)
	conf, checked []templates.File
	// the upstream names and the account that stood in for what this
	// machine lacks, said after the check
	standIns    []string
	seenNames   map[string]bool
	userStandIn string
}

// check runs nginx -t once: with the HTTPS site of a staged pair enabled
// (enableTLS) or as written. err says the check could not be made.
func (n *nginxT) check(enableTLS bool) (bool, string, error) {
	tmp, err := os.MkdirTemp("", "nginxtune-verify-")
	if err != nil {
		return false, "", err
	}
	defer os.RemoveAll(tmp)
	if err := nginxcheck.WriteSelfSigned(tmp); err != nil {
		return false, "", err
	}
	cert, key := filepath.Join(tmp, "cert.pem"), filepath.Join(tmp, "key.pem")
	if n.whole {
		if err := copyTree(n.dir, tmp, true, n.lay.ConfDir); err != nil {
			return false, "", err
		}
	}
	hasMain, err := n.put(tmp, enableTLS)
	if err != nil {
		return false, "", err
	}
	if !hasMain {
		if err := n.mainStub(tmp); err != nil {
			return false, "", err
		}
	}
	nginxcheck.StockFiles(tmp)
	linkModules(n.bin, tmp)
	if err := pointInto(tmp, n.lay, cert, key, n.whole); err != nil {
		return false, "", err
	}
	if u := standInUser(filepath.Join(tmp, "nginx.conf"), "/etc/passwd"); u != "" && !n.seenNames["user "+u] {
		n.seenNames["user "+u] = true
		n.userStandIn = u
	}
	res := nginxcheck.Run(n.bin, tmp, filepath.Join(tmp, "nginx.conf"))
	msg := strings.Join(strings.Fields(res.Message+" "+res.File), " ")
	return res.OK, strings.ReplaceAll(msg, tmp+"/", ""), nil
}

// put puts the checked files into the copy in tmp, with stand-ins for
// upstream names; hasMain says the copy has its nginx.conf.
func (n *nginxT) put(tmp string, enableTLS bool) (hasMain bool, err error) {
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return false, err
	}
	defer root.Close()
	hasMain = n.whole && n.into
	for _, file := range n.checked {
		name := file.Path
		if file.Enable != "" {
			if !enableTLS {
				continue
			}
			if n.lay.EnabledDir == "" {
				name = file.Enable // renamed into place
			}
		}
		hasMain = hasMain || name == "nginx.conf"
		content, named := standInUpstreams(file.Content)
		for _, nm := range named {
			if !n.seenNames[nm] {
				n.seenNames[nm] = true
				n.standIns = append(n.standIns, nm)
			}
		}
		if err := putFile(root, name, content, file.Link); err != nil {
			return false, err
		}
	}
	if enableTLS && n.lay.EnabledDir != "" {
		// the deploy hook's link for the staged HTTPS site
		for _, file := range n.conf {
			if file.Enable != "" {
				if err := putFile(root, file.Enable, "", filepath.Join("..", file.Path)); err != nil {
					return false, err
				}
			}
		}
	}
	return hasMain, nil
}

// mainStub writes the layout's nginx.conf into tmp for a site added to a
// tree nginx -t may not read: it stands in for the tree's, with a stand-in
// for the tree's $connection_upgrade map where the site relies on it.
func (n *nginxT) mainStub(tmp string) error {
	lay := n.lay
	stub := "events {}\nhttp {\n    include " + lay.MimeTypes + ";\n"
	if n.into && usesUpgradeMap(n.conf) {
		stub += "    map $http_upgrade $connection_upgrade {\n        default upgrade;\n        '' \"\";\n    }\n"
	}
	for _, inc := range lay.HTTPIncludes {
		stub += "    include " + inc + ";\n"
	}
	stub += "}\n"
	if lay.Modules != "" {
		stub = "include " + lay.Modules + ";\n" + stub
	}
	return os.WriteFile(filepath.Join(tmp, "nginx.conf"), []byte(stub), 0o644)
}

// say tells what nginx -t checked, and what stood in for what.
func (n *nginxT) say(w io.Writer, installed string, staged bool) {
	if len(n.standIns) > 0 {
		fmt.Fprintf(w, "nginxtune: nginx -t checked the configuration with 127.0.0.1 standing in for the upstream names %s, which may resolve only where nginx runs (a container network); they were not looked up\n", strings.Join(n.standIns, ", "))
	}
	if n.userStandIn != "" {
		fmt.Fprintf(w, "nginxtune: nginx -t checked the configuration as root: the account %s does not exist on this machine (it does where nginx runs: create it there, or give --user)\n", untrusted.Escape(n.userStandIn))
	}
	scope := ""
	if n.whole {
		scope = " with the whole of " + untrusted.Escape(n.dir)
	}
	certs := certPaths(n.conf)
	switch {
	case staged:
		fmt.Fprintf(w, "nginxtune: verified with nginx -t (nginx %s)%s as written, before the certificate exists (HTTP only: the challenge and the redirect), "+
			"and with the HTTPS site enabled, a self-signed certificate standing in for %s\n", installed, scope, strings.Join(certs, " and "))
	case len(certs) > 0:
		fmt.Fprintf(w, "nginxtune: verified with nginx -t (nginx %s)%s, a self-signed certificate standing in for %s\n", installed, scope, strings.Join(certs, " and "))
	default:
		fmt.Fprintf(w, "nginxtune: verified with nginx -t (nginx %s)%s\n", installed, scope)
	}
}

// usesUpgradeMap reports whether gen's files use $connection_upgrade
// without defining it: the tree they are added to does.
func usesUpgradeMap(files []templates.File) bool {
	uses := false
	for _, f := range files {
		if strings.Contains(f.Content, "map $http_upgrade $connection_upgrade") {
			return false
		}
		uses = uses || strings.Contains(f.Content, "$connection_upgrade")
	}
	return uses
}

func hasFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) > 0
}

// pointInto rewrites the copy in tmp for nginx -t: certificates to the
// stand-ins, the layout's configuration directory (/etc/nginx) in includes
// to tmp, and relative module paths to the installed nginx's. The modules
// include of the layout stays the host's unless the whole tree was copied.
func pointInto(tmp string, lay *templates.Layout, cert, key string, whole bool) error {
	conf := lay.ConfDir + "/"
	return filepath.WalkDir(tmp, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := replaceDirective(string(b), "ssl_certificate ", cert)
		s = replaceDirective(s, "ssl_certificate_key ", key)
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if !strings.HasPrefix(t, "include ") && !strings.HasPrefix(t, "load_module ") {
				continue
			}
			if !whole && lay.Modules != "" && strings.Contains(t, lay.Modules) {
				continue
			}
			lines[i] = strings.ReplaceAll(l, " "+conf, " "+tmp+"/")
		}
		s = strings.Join(lines, "\n")
		if s == string(b) {
			return nil
		}
		return os.WriteFile(p, []byte(s), 0o644)
	})
}

// copyTree copies the tree in from into dir for nginx -t or for
// nginxtune's own reading: regular files (at most 10,000 of 1 MiB), and
// links. A link that names a place inside the tree (read as written;
// nothing outside is looked at: an absolute one into the configuration
// directory names the copy's) is a relative link inside the copy, so that
// a file changed in the copy is read through it too. One that leads out is
// left out, as the loader would not follow it, or, with follow (a trusted
// tree), a copy of the file it names. What gen puts into the copy goes
// through an os.Root of it (putFile): no link the tree brought is written
// through.
func copyTree(from, dir string, follow bool, confDir string) error {
	if abs, err := filepath.Abs(from); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			from = real // the tree's own directory, named by a link
		}
	}
	n := 0
	err := filepath.WalkDir(from, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == from {
				return fs.SkipAll
			}
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil || rel == "." {
			return err
		}
		target := filepath.Join(dir, rel)
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if n++; n > 10_000 {
			return fmt.Errorf("%s: more than 10,000 files; not verified with them", from)
		}
		src := p
		if e.Type()&fs.ModeSymlink != 0 {
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if named := linkInside(from, p, l, confDir); named != "" {
				l, err := filepath.Rel(filepath.Dir(target), filepath.Join(dir, named))
				if err != nil {
					return nil
				}
				return os.Symlink(l, target)
			}
			if !follow {
				return nil
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil // a dangling link: nginx skips it as a glob match
			}
			if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
				return nil
			}
			src = real
		} else if !e.Type().IsRegular() {
			return nil
		}
		b, err := boundedread.File(src, 1<<20, "")
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	return err
}

// linkInside is where the link at p (in the tree at from) to l points,
// relative to the tree, read as written: "" when that is outside. An
// absolute link into the configuration directory (Debian's
// /etc/nginx/sites-available/x) names the tree's file.
func linkInside(from, p, l, confDir string) string {
	named := ""
	if rest, ok := strings.CutPrefix(l, confDir+"/"); ok && confDir != "" {
		named = rest
	} else {
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		named, _ = filepath.Rel(from, l)
	}
	if !filepath.IsLocal(named) {
		return ""
	}
	return named
}

// putFile puts a file (or a link, with link) at name in a check's copy of
// a tree: its name is replaced (a link there is removed, not followed), and
// a link on the way is followed only inside the copy (os.Root): a link the
// copied tree brought never leads a write out.
func putFile(root *os.Root, name, content, link string) error {
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if link != "" {
		return root.Symlink(link, name)
	}
	return root.WriteFile(name, []byte(content), 0o644)
}

// ownCheck reads the tree in dir with the new files in it, with nginxtune's
// own parser (nothing outside the copy is read) and the rules whose errors
// nginx -t reports too: two default servers for one port, one upstream
// name twice, a duplicate map. It runs whether or not nginx is installed.
func ownCheck(files []templates.File, v knowledge.Version, dir string, lay *templates.Layout) error {
	tmp, err := os.MkdirTemp("", "nginxtune-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if dir != "" {
		if err := copyTree(dir, tmp, false, lay.ConfDir); err != nil {
			return err
		}
	}
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, f := range files {
		if err := putFile(root, f.Path, f.Content, f.Link); err != nil {
			return err
		}
	}
	main := filepath.Join(tmp, "nginx.conf")
	if _, err := os.Stat(main); err != nil {
		return nil // only printed, or no main file to read the files from
	}
	if err := pointInto(tmp, lay, "cert.pem", "key.pem", false); err != nil {
		return err
	}
	t, err := loader.Load(main, loader.Options{})
	if err != nil {
		return fmt.Errorf("nginxtune's own reading of the tree: %v", err)
	}
	cfg := engine.Config{Version: v, Disabled: map[string]bool{}}
	for _, r := range rules.All {
		if !rules.NginxRefuses(r.ID) {
			cfg.Disabled[r.ID] = true
		}
	}
	// what the copy could not read (the host's modules, files outside the
	// tree) is not the new files' doing
	cfg.Disabled["include-missing"] = true
	cfg.Disabled["unknown-directive"] = true
	cfg.Disabled["host-module-missing"] = true
	for _, d := range rules.Run(t, cfg) {
		if d.Severity < finding.Error || !rules.NginxRefuses(d.Rule) {
			continue
		}
		where := strings.TrimPrefix(d.File, tmp+"/")
		if dir != "" {
			where = filepath.Join(dir, where)
		}
		return fmt.Errorf("with the new files the tree does not load: %s:%d: %s [%s]", untrusted.Escape(where), d.Line, untrusted.Escape(d.Message), d.Rule)
	}
	return nil
}

// stapling decides OCSP stapling for a certificate: on when it names a
// responder (Let's Encrypt's have none since 2025) and this host's
// resolv.conf gives a resolver to reach it; why says which.
func stapling(certFile, resolvConf string) ([]string, string) {
	b, err := boundedread.File(certFile, 1<<20, "")
	if err != nil {
		return nil, ""
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, ""
	}
	servers, ok := ocspServers(block.Bytes)
	if !ok {
		return nil, ""
	}
	if len(servers) == 0 {
		return nil, "no OCSP stapling: the certificate names no OCSP responder"
	}
	rb, err := boundedread.File(resolvConf, 64<<10, "")
	var resolvers []string
	if err == nil {
		for _, l := range strings.Split(string(rb), "\n") {
			f := strings.Fields(l)
			if len(f) >= 2 && f[0] == "nameserver" && net.ParseIP(f[1]) != nil && len(resolvers) < 3 {
				ip := f[1]
				if strings.Contains(ip, ":") {
					ip = "[" + ip + "]"
				}
				resolvers = append(resolvers, ip)
			}
		}
	}
	if len(resolvers) == 0 {
		return nil, "no OCSP stapling: the certificate names a responder, but " + resolvConf + " gives no resolver for nginx to reach it"
	}
	return resolvers, "OCSP stapling: the certificate names a responder (" + untrusted.Escape(untrusted.Clip(servers[0])) + "); the resolvers are " + resolvConf + "'s"
}

var brotliModuleRe = lazyre.New(`ngx_http_brotli_(filter|static)_module`)

// brotliFor decides brotli: --brotli on or off, or auto: on when the
// host's nginx has the ngx_brotli filter module built in or loaded by the
// layout's modules include (gen's complete prefix layout loads no dynamic
// module), or, added to a tree, loaded by the tree.
func brotliFor(o *Options, facts *host.Facts, lay *templates.Layout, ex *existingTree) (filter, static bool, why string, err error) {
	switch o.Brotli {
	case "off":
		return false, false, "", nil
	case "on":
		return true, true, "--brotli on", nil
	case "auto", "":
	default:
		return false, false, "", fmt.Errorf("--brotli %q: want auto, on or off", o.Brotli)
	}
	for _, a := range facts.NginxConfigure.Value {
		if strings.Contains(a, "brotli") {
			return true, true, "built into this nginx (" + facts.NginxConfigure.Source + ")", nil
		}
	}
	if ex != nil {
		ex.tree.Walk(func(d *parser.Directive, c *parser.Context) bool {
			if d.Name == "load_module" {
				switch m := brotliModuleRe().FindStringSubmatch(d.Arg(0)); {
				case m == nil:
				case m[1] == "filter":
					filter, why = true, "loaded by "+relTo(ex.dir, d.File.Path)
				default:
					static = true
				}
			}
			return true
		})
		return filter, static && filter, why, nil
	}
	// the installed nginx runs what gen writes unless the facts are of
	// another host (as for the version)
	if lay.Modules == "" || o.FactsFile != "" {
		return false, false, "", nil
	}
	matches, _ := filepath.Glob(lay.Modules)
	for _, m := range matches {
		b, err := boundedread.File(m, 64<<10, "")
		if err != nil {
			continue
		}
		for _, mm := range brotliModuleRe().FindAllStringSubmatch(string(b), -1) {
			if mm[1] == "filter" {
				filter, why = true, "loaded by "+m
			} else {
				static = true
			}
		}
	}
	return filter, static && filter, why, nil
}

var prefixRe = lazyre.New(`--prefix=(\S+)`)

// linkModules makes "load_module modules/x.so" of a copied tree find the
// installed nginx's modules: tmp/modules names its prefix's.
func linkModules(bin, tmp string) {
	out, err := nginxcheck.V(bin)
	if err != nil {
		return
	}
	prefix := "/usr/local/nginx"
	if m := prefixRe().FindStringSubmatch(out); m != nil {
		prefix = m[1]
	}
	if fi, err := os.Stat(filepath.Join(prefix, "modules")); err == nil && fi.IsDir() {
		os.Symlink(filepath.Join(prefix, "modules"), filepath.Join(tmp, "modules"))
	}
}

var userLineRe = lazyre.New(`(?m)^(\s*user\s+)([^\s;]+)((?:\s+[^\s;]+)?;)`)

// standInUser makes nginx -t of a configuration for another machine pass
// its user directive here: an account this machine lacks (nginx on a
// Debian host checking a file for RHEL or a container) becomes root in the
// copy. It returns the account replaced, "" when none.
func standInUser(conf, passwd string) string {
	b, err := os.ReadFile(conf)
	if err != nil {
		return ""
	}
	m := userLineRe().FindSubmatchIndex(b)
	if m == nil {
		return ""
	}
	name := string(b[m[4]:m[5]])
	if accounts(passwd)[name] {
		return ""
	}
	out := string(b[:m[0]]) + string(b[m[2]:m[3]]) + "root;" + string(b[m[1]:])
	if os.WriteFile(conf, []byte(out), 0o644) != nil {
		return ""
	}
	return name
}

// certPaths lists the certificate and key files the generated files name.
func certPaths(files []templates.File) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		for _, l := range strings.Split(f.Content, "\n") {
			t := strings.Fields(strings.TrimSuffix(strings.TrimSpace(l), ";"))
			if len(t) == 2 && (t[0] == "ssl_certificate" || t[0] == "ssl_certificate_key") && !seen[t[1]] {
				seen[t[1]] = true
				out = append(out, t[1])
			}
		}
	}
	return out
}

// replaceDirective points every "NAME value;" line at path.
func replaceDirective(content, name, path string) string {
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, name) {
			lines[i] = l[:len(l)-len(strings.TrimLeft(l, " \t"))] + name + path + ";"
		}
	}
	return strings.Join(lines, "\n")
}

// upstreamServerRe reads an upstream's "server HOST[:PORT] ...;" line.
var upstreamServerRe = lazyre.New(`(?m)^(\s*server\s+)([A-Za-z][A-Za-z0-9.-]*)((?::[0-9]+)?(?:\s[^;]*)?;)`)

// standInUpstreams replaces, for nginx -t, the upstream servers named by a
// host name with 127.0.0.1: nginx -t resolves every name, and one that
// exists only where the configuration runs (a container network's
// "app:3000") fails it with "host not found" although the configuration is
// fine. No name is looked up here, by nginx -t or by gen. It returns the
// names replaced.
func standInUpstreams(content string) (string, []string) {
	var names []string
	out := upstreamServerRe().ReplaceAllStringFunc(content, func(m string) string {
		sub := upstreamServerRe().FindStringSubmatch(m)
		name := sub[2]
		if name == "localhost" || strings.HasPrefix(name, "unix") || net.ParseIP(name) != nil {
			return m
		}
		names = append(names, name)
		return sub[1] + "127.0.0.1" + sub[3]
	})
	return out, names
}
