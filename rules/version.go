package rules

import "github.com/nginxtune/nginxtune/knowledge"

// Version is an nginx version (knowledge.Version): the zero value means
// unknown, and rules whose advice depends on the version then report for
// the versions where the problem exists and say which those are.
type Version = knowledge.Version

// Versions where nginx changed what rules advise (knowledge/version.go).
var (
	vHTTP2Directive    = knowledge.HTTP2Directive
	vUpstreamKeepalive = knowledge.UpstreamKeepaliveDefault
	vResolve           = knowledge.UpstreamResolve
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
