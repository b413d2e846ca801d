package templates

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// Layout is where an installation keeps its configuration: the account its
// workers run as, where sites live and how they are enabled, what the main
// nginx.conf includes, and whether the OS half (sysctl.d, a systemd
// drop-in) applies. gen writes a complete tree in a layout (--out), or adds
// a site to an existing tree of one (--into) without touching what the
// distribution includes.
type Layout struct {
	Name        string
	Description string
	// User is the workers' account the distribution's packages create.
	User string
	Pid  string
	// MimeTypes is the include of the types table, as nginx.conf writes it.
	MimeTypes string
	// Modules is the main-level include of the dynamic modules' loaders
	// ("" when the layout loads none).
	Modules string
	// SiteDir holds site files; EnabledDir, when set, holds the links that
	// enable them (Debian's sites-available and sites-enabled). SiteSuffix
	// ends a site's file name (Debian's sites have none).
	SiteDir, EnabledDir, SiteSuffix string
	// SharedDir holds the http-level files every site shares (the
	// websocket map), read before the sites; SharedPrefix starts the names
	// of gen's shared files and catch-all servers there.
	SharedDir, SharedPrefix string
	// HTTPIncludes are what a complete nginx.conf of the layout includes
	// in its http block, in order.
	HTTPIncludes []string
	// ConfDir is the configuration directory on the host.
	ConfDir string
	// OS is false in a container: no sysctl.d or systemd drop-in reaches
	// it; the run flags say the same (--ulimit, --sysctl).
	OS bool
	// PHPSocket is php-fpm's default pool socket ("" where php-fpm runs
	// elsewhere, as in another container).
	PHPSocket string
	// Logs is the directory of the log files.
	Logs string
}

// Layouts are the layouts gen knows, by name.
var Layouts = map[string]*Layout{
	"prefix": {
		Name:        "prefix",
		Description: "a tree of gen's own: nginx.conf includes sites/*.conf",
		User:        "www-data", Pid: "/run/nginx.pid", MimeTypes: "mime.types",
		SiteDir: "sites", SiteSuffix: ".conf", SharedDir: "sites", SharedPrefix: "00-",
		HTTPIncludes: []string{"sites/*.conf"}, ConfDir: "/etc/nginx", OS: true,
		PHPSocket: "unix:/run/php/php-fpm.sock", Logs: "/var/log/nginx",
	},
	"debian": {
		Name:        "debian",
		Description: "Debian and Ubuntu: sites-available with links in sites-enabled, conf.d, modules-enabled",
		User:        "www-data", Pid: "/run/nginx.pid", MimeTypes: "/etc/nginx/mime.types",
		Modules: "/etc/nginx/modules-enabled/*.conf",
		SiteDir: "sites-available", EnabledDir: "sites-enabled", SiteSuffix: "",
		SharedDir: "conf.d", SharedPrefix: "00-nginxtune-",
		HTTPIncludes: []string{"/etc/nginx/conf.d/*.conf", "/etc/nginx/sites-enabled/*"},
		ConfDir:      "/etc/nginx", OS: true,
		PHPSocket: "unix:/run/php/php-fpm.sock", Logs: "/var/log/nginx",
	},
	"rhel": {
		Name:        "rhel",
		Description: "RHEL, Fedora, Rocky, Alma: conf.d (and default.d for the stock server), modules from /usr/share/nginx/modules",
		User:        "nginx", Pid: "/run/nginx.pid", MimeTypes: "/etc/nginx/mime.types",
		Modules: "/usr/share/nginx/modules/*.conf",
		SiteDir: "conf.d", SiteSuffix: ".conf", SharedDir: "conf.d", SharedPrefix: "00-nginxtune-",
		HTTPIncludes: []string{"/etc/nginx/conf.d/*.conf"}, ConfDir: "/etc/nginx", OS: true,
		PHPSocket: "unix:/run/php-fpm/www.sock", Logs: "/var/log/nginx",
	},
	"docker": {
		Name:        "docker",
		Description: "the official nginx image (Debian and Alpine): conf.d, user nginx, no systemd or sysctl.d in the container",
		User:        "nginx", Pid: "/var/run/nginx.pid", MimeTypes: "/etc/nginx/mime.types",
		SiteDir: "conf.d", SiteSuffix: ".conf", SharedDir: "conf.d", SharedPrefix: "00-nginxtune-",
		HTTPIncludes: []string{"/etc/nginx/conf.d/*.conf"}, ConfDir: "/etc/nginx", OS: false,
		Logs: "/var/log/nginx",
	},
}

// LayoutNames lists the layouts.
func LayoutNames() []string {
	var out []string
	for n := range Layouts {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// LookupLayout returns a layout by name.
func LookupLayout(name string) (*Layout, error) {
	if l, ok := Layouts[name]; ok {
		return l, nil
	}
	return nil, fmt.Errorf("unknown layout %q (have %s)", name, strings.Join(LayoutNames(), ", "))
}

// SitePath is where a site's file goes, relative to the configuration
// directory.
func (l *Layout) SitePath(name string) string { return path.Join(l.SiteDir, name+l.SiteSuffix) }

// SharedPath is where a shared http-level file goes.
func (l *Layout) SharedPath(name string) string {
	return path.Join(l.SharedDir, l.SharedPrefix+name+".conf")
}

// CatchAllPath is where a catch-all server goes: with the sites, so that it
// is enabled the way they are.
func (l *Layout) CatchAllPath(name string) string {
	return path.Join(l.SiteDir, l.SharedPrefix+name+l.SiteSuffix)
}

// Existing describes the tree a site is added to (--into): what it has
// already, so that the new files neither repeat nor contradict it.
type Existing struct {
	// Default80 and Default443 name the server already answering unknown
	// names on the port ("sites-enabled/default:2"), "" when none: gen
	// then writes no catch-all of its own for that port.
	Default80, Default443 string
	// UpgradeMap names where $connection_upgrade is already defined.
	UpgradeMap string
	// Connections and Rlimit are the tree's main-level numbers (0: unset,
	// nginx's default). The site's open_file_cache is sized within the
	// descriptors they leave, unless TuneMain rewrites them.
	Connections int
	Rlimit      int
	TuneMain    bool
}

// SiteName is the name of the site's files: --site, else the first server
// name, else "default".
func SiteName(in Input) string {
	switch {
	case in.Site != "":
		return in.Site
	case len(in.ServerNames) > 0 && in.ServerNames[0] != "_":
		return in.ServerNames[0]
	}
	return "default"
}

// OwnPaths are the configuration files gen writes for a site in a layout,
// relative to the configuration directory: its own from an earlier run
// are not something the tree "has already".
func OwnPaths(l *Layout, site string) map[string]bool {
	own := map[string]bool{}
	for _, p := range []string{l.SitePath(site), stagedPath(l, site), l.CatchAllPath("default"), l.CatchAllPath("default-tls"), l.SharedPath("connection-upgrade")} {
		own[p] = true
		if l.EnabledDir != "" && strings.HasPrefix(p, l.SiteDir+"/") {
			own[path.Join(l.EnabledDir, path.Base(p))] = true
		}
	}
	own[enabledPath(l, site+"-tls")] = true
	return own
}
