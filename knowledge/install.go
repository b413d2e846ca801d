package knowledge

import "slices"

// Where nginx is installed: facts of its packages and builds rather than of
// its source.

// confDirs are where nginx's packages and builds keep the configuration the
// running nginx reads: the distributions' and nginx.org's packages, a build
// from source with its default prefix, FreeBSD's ports, Homebrew.
var confDirs = []string{"/etc/nginx", "/usr/local/nginx/conf", "/usr/local/etc/nginx", "/opt/homebrew/etc/nginx"}

// ConfDirs lists the directories where nginx's packages and builds keep the
// configuration the running nginx reads.
func ConfDirs() []string { return slices.Clone(confDirs) }

// packageFiles are the data files nginx's packages install next to
// nginx.conf (Debian's snippets too): repositories of site configurations
// often include them without carrying a copy.
var packageFiles = []string{"mime.types", "fastcgi_params", "fastcgi.conf", "scgi_params", "uwsgi_params",
	"proxy_params", "koi-utf", "koi-win", "win-utf", "fastcgi-php.conf", "snakeoil.conf"}

// PackageFiles lists the names of the data files nginx's packages install
// next to nginx.conf (mime.types, fastcgi_params, ...).
func PackageFiles() []string { return slices.Clone(packageFiles) }

// IsPackageFile reports whether a file name (without its directory) is one
// of the data files nginx's packages install next to nginx.conf.
func IsPackageFile(name string) bool { return slices.Contains(packageFiles, name) }
