package generate

// gen --into: adding a site to a configuration that exists (a
// distribution's /etc/nginx, or a checkout of one), without replacing what
// it includes.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
	"github.com/nginxtune/nginxtune/templates"
)

// existingTree is what gen reads of the tree it adds a site to.
type existingTree struct {
	dir    string
	tree   *loader.Tree
	layout *templates.Layout
	// why says how the layout was found
	why   string
	facts templates.Existing
	// main-level directives --tune-main rewrites ("" name: none)
	workers, rlimit, conns *parser.Directive
	// includes in the main or events context that left something unread
	// (outside the tree): they may set what --tune-main rewrites
	unreadMain []*parser.Directive
	user       string
}

// loadExisting reads the tree in dir with nginxtune's own parser: nothing
// outside dir is read unless dir is the live configuration directory
// (live).
func loadExisting(dir string, layoutName string, live bool) (*existingTree, error) {
	conf := filepath.Join(dir, "nginx.conf")
	if fi, err := os.Stat(conf); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("--into %s: no nginx.conf there (--into adds a site to an existing configuration; --out writes a complete one)", untrusted.Escape(dir))
	}
	t, err := loader.Load(conf, loader.Options{Live: live})
	if err != nil {
		return nil, fmt.Errorf("--into: %v", err)
	}
	for _, d := range t.Diagnostics {
		if d.Severity == finding.Error {
			return nil, fmt.Errorf("--into: %s:%d: %s: fix the configuration first (nginxtune lint %s)", untrusted.Escape(d.File), d.Line, untrusted.Escape(d.Message), untrusted.Escape(dir))
		}
	}
	// file names are related to the directory they are in: the loader
	// names every file by its real path
	real, err := filepath.Abs(dir)
	if err == nil {
		real, err = filepath.EvalSymlinks(real)
	}
	if err != nil {
		return nil, fmt.Errorf("--into: %v", unwrap(err))
	}
	e := &existingTree{dir: real, tree: t}
	if layoutName != "" {
		l, err := templates.LookupLayout(layoutName)
		if err != nil {
			return nil, fmt.Errorf("--layout: %v", err)
		}
		e.layout, e.why = l, "--layout "+layoutName
	}
	// what the http block includes says where sites go
	in := e.read()
	if e.layout == nil {
		if e.layout, e.why = in.layout(); e.layout == nil {
			return nil, fmt.Errorf("--into: %s includes none of sites-enabled/, conf.d/ or sites/ in its http block: gen cannot tell where a site is read from; give --layout", untrusted.Escape(conf))
		}
	}
	// the directories the layout reads sites from must be included
	want := e.layout.SiteDir
	if e.layout.EnabledDir != "" {
		want = e.layout.EnabledDir
	}
	if !in.has(want + "/") {
		return nil, fmt.Errorf("--into: %s does not include %s/ in its http block, where the %s layout puts sites: a site written there would not load", untrusted.Escape(conf), want, e.layout.Name)
	}
	return e, nil
}

// includes is what a tree's includes say of its layout.
type includes struct {
	http                     []string // the http block's, in nginx.conf
	hasDefaultD, rhelModules bool
}

// read reads the main numbers, the user and the includes of the tree.
func (e *existingTree) read() includes {
	var in includes
	t := e.tree
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		switch {
		case d.Name == "include" && c.In() == "http" && d.File == t.Roots[0]:
			in.http = append(in.http, d.Arg(0))
		case d.Name == "include" && strings.Contains(d.Arg(0), "default.d/"):
			in.hasDefaultD = true
		case d.Name == "include" && strings.HasPrefix(d.Arg(0), "/usr/share/nginx/modules"):
			in.rhelModules = true
		case d.Name == "include" && (c.In() == "main" || c.In() == "events") && t.NotRead(d):
			e.unreadMain = append(e.unreadMain, d)
		case d.Name == "user" && c.In() == "main" && len(d.Args) > 0:
			e.user = d.Arg(0)
		case d.Name == "worker_processes" && c.In() == "main":
			e.workers = d
		case d.Name == "worker_rlimit_nofile" && c.In() == "main":
			e.rlimit = d
			e.facts.Rlimit, _ = strconv.Atoi(d.Arg(0))
		case d.Name == "worker_connections" && c.In() == "events":
			e.conns = d
			e.facts.Connections, _ = strconv.Atoi(d.Arg(0))
		}
		return true
	})
	return in
}

// has reports whether the http block includes something under part.
func (in includes) has(part string) bool {
	for _, inc := range in.http {
		if strings.Contains(inc, part) {
			return true
		}
	}
	return false
}

// layout is the layout the includes say, and why; nil when they say none.
func (in includes) layout() (*templates.Layout, string) {
	switch {
	case in.has("sites-enabled/"):
		return templates.Layouts["debian"], "nginx.conf includes sites-enabled/"
	case in.has("conf.d/") && (in.hasDefaultD || in.rhelModules):
		return templates.Layouts["rhel"], "nginx.conf includes conf.d/ and default.d/ or /usr/share/nginx/modules"
	case in.has("conf.d/"):
		return templates.Layouts["docker"], "nginx.conf includes conf.d/ only, as the official image's does"
	case in.has("sites/"):
		return templates.Layouts["prefix"], "nginx.conf includes sites/ (gen's own layout)"
	}
	return nil, ""
}

// survey fills what the tree has that a new site must not repeat: a
// default server per port and the websocket map. Files at own (gen's paths
// for this run) are its own earlier output and do not count.
func (e *existingTree) survey(own map[string]bool) {
	mine := func(d *parser.Directive) bool {
		rel, err := filepath.Rel(e.dir, d.File.Path)
		return err == nil && own[filepath.ToSlash(rel)]
	}
	e.tree.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if mine(d) {
			return true
		}
		where := fmt.Sprintf("%s:%d", relTo(e.dir, d.File.Path), d.Line)
		switch {
		case d.Name == "listen" && c.In() == "server" && c.Has("http"):
			def := false
			for _, a := range d.Args[1:] {
				def = def || a.Value == "default_server" || a.Value == "default"
			}
			if !def {
				break
			}
			port := listenPort(d.Arg(0))
			if port == "80" && e.facts.Default80 == "" {
				e.facts.Default80 = where
			}
			if port == "443" && e.facts.Default443 == "" {
				e.facts.Default443 = where
			}
		case d.Name == "map" && len(d.Args) == 2 && d.Arg(1) == "$connection_upgrade" && e.facts.UpgradeMap == "":
			e.facts.UpgradeMap = where
		}
		return true
	})
}

// listenPort is the port of a listen address ("80", "*:80", "[::]:80").
func listenPort(a string) string {
	if i := strings.LastIndex(a, ":"); i >= 0 && !strings.HasSuffix(a, "]") {
		return a[i+1:]
	}
	if _, err := strconv.Atoi(a); err == nil {
		return a
	}
	return "80"
}

func relTo(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// mainEdits are --tune-main's changes to the tree: the main numbers gen
// sized, each replacing the value in the file that holds it (nginx.conf,
// or a file it includes, as events.conf), or added after
// worker_processes; nothing else in those files changes. The edits of a
// file are in order.
func (e *existingTree) mainEdits(pl templates.Plan) (map[*parser.File][]finding.Edit, []string, error) {
	edits := map[*parser.File][]finding.Edit{}
	var said []string
	// a number the files read do not set may be set by an include they
	// could not read: changing the rest would leave the numbers
	// inconsistent, and adding it would set it twice
	if (e.conns == nil || e.workers == nil) && len(e.unreadMain) > 0 {
		d := e.unreadMain[0]
		return nil, nil, fmt.Errorf("%s:%d: include %s is not read (outside the tree) and may set worker_processes or worker_connections: set them there", untrusted.Escape(relTo(e.dir, d.File.Path)), d.Line, untrusted.Escape(d.Arg(0)))
	}
	set := func(d *parser.Directive, name, value, why string) {
		if d == nil {
			return
		}
		if d.Arg(0) == value {
			return
		}
		a := d.Args[0]
		edits[d.File] = append(edits[d.File], finding.Edit{Start: int(a.Offset), End: int(a.Offset) + len(a.Raw), New: value})
		said = append(said, fmt.Sprintf("%s:%d: %s %s -> %s (%s)", untrusted.Escape(relTo(e.dir, d.File.Path)), d.Line, name, untrusted.Escape(d.Arg(0)), value, why))
	}
	set(e.workers, "worker_processes", pl.Workers, pl.WorkersWhy)
	set(e.conns, "worker_connections", strconv.Itoa(pl.WorkerConnections), pl.ConnectionsWhy)
	if e.rlimit != nil {
		set(e.rlimit, "worker_rlimit_nofile", strconv.Itoa(pl.RlimitNofile), pl.RlimitWhy)
	} else if d := e.workers; d != nil {
		edits[d.File] = append(edits[d.File], finding.Edit{Start: int(d.End), End: int(d.End), New: "\nworker_rlimit_nofile " + strconv.Itoa(pl.RlimitNofile) + ";"})
		said = append(said, fmt.Sprintf("%s:%d: worker_rlimit_nofile %d added (%s)", untrusted.Escape(relTo(e.dir, d.File.Path)), d.Line+1, pl.RlimitNofile, pl.RlimitWhy))
	}
	for _, fe := range edits {
		sort.Slice(fe, func(i, j int) bool { return fe[i].Start < fe[j].Start })
	}
	return edits, said, nil
}

// treeEdit is --tune-main's change to one file of the tree: the file that
// holds the numbers it sets (nginx.conf, or a file it includes), as it was
// read (its real path, device and inode: only that file is written), at
// rel in the tree.
type treeEdit struct {
	file *parser.File
	rel  string
	data []byte
}

// tuneMain is the tree's files with the main numbers the plan sets, when
// TuneMain asks for it (said either way); none when nothing changes. A
// number set in a file outside the tree (a live configuration may include
// one) is refused, saying where it is.
func (g *generation) tuneMain(plan templates.Plan) ([]treeEdit, error) {
	ex, o := g.ex, g.o
	var out []treeEdit
	if ex != nil {
		edits, said, err := ex.mainEdits(plan)
		switch {
		case err != nil && o.TuneMain:
			return nil, fmt.Errorf("--tune-main: %v; nothing written", err)
		case err != nil:
			fmt.Fprintf(g.notes, "nginxtune: nginx.conf left as it is; --tune-main would refuse: %v\n", err)
		case len(edits) == 0:
		case o.TuneMain:
			for file, fe := range edits {
				rel, err := filepath.Rel(ex.dir, file.Path)
				if err != nil || !filepath.IsLocal(rel) {
					return nil, fmt.Errorf("--tune-main: %s sets the worker numbers and is outside %s: change them there; nothing written", untrusted.Escape(file.Path), untrusted.Escape(o.Into))
				}
				b, err := engine.ApplyEdits(file.Src, fe)
				if err != nil {
					return nil, fmt.Errorf("--tune-main: %s: %v", untrusted.Escape(rel), err)
				}
				out = append(out, treeEdit{file, rel, b})
			}
			sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
			for _, l := range said {
				fmt.Fprintf(g.notes, "nginxtune: --tune-main: %s\n", untrusted.Escape(l))
			}
		default:
			for _, l := range said {
				fmt.Fprintf(g.notes, "nginxtune: nginx.conf left as it is; --tune-main would set %s\n", untrusted.Escape(l))
			}
		}
		if ex.facts.Default80 != "" && len(o.ServerNames) > 0 {
			fmt.Fprintf(g.notes, "nginxtune: %s is the default server for port 80 and answers names no site serves; no catch-all added (disable it to have unknown names closed)\n", untrusted.Escape(ex.facts.Default80))
		}
	}
	return out, nil
}
