package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is an nginx version. The zero value means unknown: rules whose
// advice depends on the version then report for the versions where the
// problem exists and say which those are.
type Version struct{ Major, Minor, Patch int }

// ParseVersion reads "1.22.1", "nginx/1.22.1" or the output of nginx -v.
func ParseVersion(s string) (Version, error) {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "nginx/"); i >= 0 {
		s = s[i+len("nginx/"):]
	}
	if i := strings.IndexAny(s, " \n("); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("nginx version %q: want MAJOR.MINOR.PATCH, e.g. 1.22.1", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return Version{}, fmt.Errorf("nginx version %q: want MAJOR.MINOR.PATCH, e.g. 1.22.1", s)
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, nil
}

// MustVersion is ParseVersion for constants.
func MustVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

// Known reports whether the version was given.
func (v Version) Known() bool { return v != Version{} }

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

func (v Version) String() string {
	if !v.Known() {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Versions where nginx changed what rules advise (see docs/rules.md).
var (
	vHTTP2Directive    = MustVersion("1.25.1") // http2 on; listen ... http2 deprecated; ssl removed
	vUpstreamKeepalive = MustVersion("1.29.7") // upstream keepalive 32 by default, proxy_http_version 1.1
	vResolve           = MustVersion("1.27.3") // "server ... resolve" in open-source upstreams
)

// Before reports whether the linted version is older than w, or unknown
// (and so possibly older).
func (p *Pass) Before(w Version) bool { return !p.Version.Known() || p.Version.Less(w) }

// AtLeast reports whether the linted version is w or newer, or unknown (and
// so possibly newer).
func (p *Pass) AtLeast(w Version) bool { return !p.Version.Known() || !p.Version.Less(w) }

// versionNote explains, when the version is unknown, which versions a
// finding applies to.
func (p *Pass) versionNote(cond string) string {
	if p.Version.Known() {
		return ""
	}
	return " (this applies to nginx " + cond + "; give --nginx-version to lint for one version)"
}
