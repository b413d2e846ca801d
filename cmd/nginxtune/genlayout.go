package main

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
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/report"
	"github.com/nginxtune/nginxtune/templates"
)

// existingTree is what gen reads of the tree it adds a site to.
type existingTree struct {
	dir    string
	tree   *parser.Tree
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
// outside dir is read unless dir is the live configuration directory.
func loadExisting(dir string, layoutName string) (*existingTree, error) {
	conf := filepath.Join(dir, "nginx.conf")
	if fi, err := os.Stat(conf); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("--into %s: no nginx.conf there (--into adds a site to an existing configuration; --out writes a complete one)", report.Escape(dir))
	}
	t, err := parser.Load(conf, parser.Options{Live: isLive(dir)})
	if err != nil {
		return nil, fmt.Errorf("--into: %v", err)
	}
	for _, d := range t.Diagnostics {
		if d.Severity == parser.SevError {
			return nil, fmt.Errorf("--into: %s:%d: %s: fix the configuration first (nginxtune lint %s)", report.Escape(d.File), d.Line, report.Escape(d.Message), report.Escape(dir))
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
	var httpIncludes []string
	hasDefaultD, rhelModules := false, false
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		switch {
		case d.Name == "include" && c.In() == "http" && d.File == t.Roots[0]:
			httpIncludes = append(httpIncludes, d.Arg(0))
		case d.Name == "include" && strings.Contains(d.Arg(0), "default.d/"):
			hasDefaultD = true
		case d.Name == "include" && strings.HasPrefix(d.Arg(0), "/usr/share/nginx/modules"):
			rhelModules = true
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
	if e.layout == nil {
		has := func(part string) bool {
			for _, inc := range httpIncludes {
				if strings.Contains(inc, part) {
					return true
				}
			}
			return false
		}
		switch {
		case has("sites-enabled/"):
			e.layout, e.why = templates.Layouts["debian"], "nginx.conf includes sites-enabled/"
		case has("conf.d/") && (hasDefaultD || rhelModules):
			e.layout, e.why = templates.Layouts["rhel"], "nginx.conf includes conf.d/ and default.d/ or /usr/share/nginx/modules"
		case has("conf.d/"):
			e.layout, e.why = templates.Layouts["docker"], "nginx.conf includes conf.d/ only, as the official image's does"
		case has("sites/"):
			e.layout, e.why = templates.Layouts["prefix"], "nginx.conf includes sites/ (gen's own layout)"
		default:
			return nil, fmt.Errorf("--into: %s includes none of sites-enabled/, conf.d/ or sites/ in its http block: gen cannot tell where a site is read from; give --layout", report.Escape(conf))
		}
	}
	// the directories the layout reads sites from must be included
	want := e.layout.SiteDir
	if e.layout.EnabledDir != "" {
		want = e.layout.EnabledDir
	}
	found := false
	for _, inc := range httpIncludes {
		found = found || strings.Contains(inc, want+"/")
	}
	if !found {
		return nil, fmt.Errorf("--into: %s does not include %s/ in its http block, where the %s layout puts sites: a site written there would not load", report.Escape(conf), want, e.layout.Name)
	}
	return e, nil
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
		return nil, nil, fmt.Errorf("%s:%d: include %s is not read (outside the tree) and may set worker_processes or worker_connections: set them there", report.Escape(relTo(e.dir, d.File.Path)), d.Line, report.Escape(d.Arg(0)))
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
		said = append(said, fmt.Sprintf("%s:%d: %s %s -> %s (%s)", report.Escape(relTo(e.dir, d.File.Path)), d.Line, name, report.Escape(d.Arg(0)), value, why))
	}
	set(e.workers, "worker_processes", pl.Workers, pl.WorkersWhy)
	set(e.conns, "worker_connections", strconv.Itoa(pl.WorkerConnections), pl.ConnectionsWhy)
	if e.rlimit != nil {
		set(e.rlimit, "worker_rlimit_nofile", strconv.Itoa(pl.RlimitNofile), pl.RlimitWhy)
	} else if d := e.workers; d != nil {
		edits[d.File] = append(edits[d.File], finding.Edit{Start: int(d.End), End: int(d.End), New: "\nworker_rlimit_nofile " + strconv.Itoa(pl.RlimitNofile) + ";"})
		said = append(said, fmt.Sprintf("%s:%d: worker_rlimit_nofile %d added (%s)", report.Escape(relTo(e.dir, d.File.Path)), d.Line+1, pl.RlimitNofile, pl.RlimitWhy))
	}
	for _, fe := range edits {
		sort.Slice(fe, func(i, j int) bool { return fe[i].Start < fe[j].Start })
	}
	return edits, said, nil
}
