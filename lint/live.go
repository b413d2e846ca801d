package lint

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/knowledge"
)

// IsLive reports whether path is in the configuration directory of a live
// installation (knowledge.ConfDirs): linting one asks the installed nginx
// for its version.
func IsLive(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, d := range knowledge.ConfDirs() {
		if abs == d || strings.HasPrefix(abs, d+"/") {
			return true
		}
	}
	return false
}

// allLive reports whether every linted path is in a live installation's
// configuration directory: the tree this machine's nginx already runs.
func allLive(paths []string) bool {
	for _, p := range paths {
		if p == "-" || !IsLive(p) {
			return false
		}
	}
	return len(paths) > 0
}

// liveVersion asks the installed nginx for its version when path is the
// configuration directory of a live installation.
func liveVersion(path string, nginx *nginxcheck.Installed) knowledge.Version {
	if !IsLive(path) {
		return knowledge.Version{}
	}
	v, err := knowledge.ParseVersion(nginx.Version())
	if err != nil {
		return knowledge.Version{}
	}
	return v
}

// RelPath shows a path relative to the working directory when it is below
// it.
func RelPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	return RelPathIn(wd)(p)
}

// RelPathIn is RelPath for a working directory read once: a report of
// 20,000 findings asked the kernel for it 60,000 times (a third of the
// time --format json took).
func RelPathIn(wd string) func(string) string {
	return func(p string) string {
		if !filepath.IsAbs(p) {
			return p
		}
		if r, err := filepath.Rel(wd, p); err == nil && !startsWithDotDot(r) {
			return r
		}
		return p
	}
}

func startsWithDotDot(p string) bool {
	return p == ".." || len(p) > 2 && p[:3] == "../"
}
