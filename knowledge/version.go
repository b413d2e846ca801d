package knowledge

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

// The versions where nginx changed something nginxtune advises on or
// writes (docs/tuning-kb sources: nginx CHANGES). rules, templates and the
// commands read them from here. Written as values, not parsed at start.
var (
	// SessionTicketKeyRotation: from 1.23.2 nginx rotates the session
	// ticket keys it makes itself; before, "ssl_session_tickets off" is
	// the safe default of a generated configuration.
	SessionTicketKeyRotation = Version{1, 23, 2}
	// HTTP2Directive: "http2 on;" appears, "listen ... http2" is
	// deprecated and "ssl on" removed.
	HTTP2Directive = Version{1, 25, 1}
	// AddHeaderInherit: add_header_inherit and add_trailer_inherit.
	AddHeaderInherit = Version{1, 29, 3}
	// UpstreamResolve: "server ... resolve" in open-source upstreams.
	UpstreamResolve = Version{1, 27, 3}
	// ResolverFix: 1.20.1 (and 1.21.0) fixed the resolver's one-byte
	// memory overwrite that forged DNS answers could reach (CVE-2021-23017).
	ResolverFix = Version{1, 20, 1}
	// UpstreamKeepaliveDefault: upstream blocks keep 32 idle connections
	// per worker by default and proxy_http_version defaults to 1.1.
	UpstreamKeepaliveDefault = Version{1, 29, 7}
	// PCRE2: nginx links PCRE2 when it finds it and uses PCRE2's JIT for
	// "pcre_jit on" whether or not it was configured --with-pcre-jit
	// (src/core/ngx_regex.c, ngx_regex_pcre_jit).
	PCRE2 = Version{1, 21, 5}
)
