package rules

import "github.com/nginxtune/nginxtune/knowledge"

// Versions where nginx changed what rules advise (knowledge/version.go).
var (
	vHTTP2Directive    = knowledge.HTTP2Directive
	vUpstreamKeepalive = knowledge.UpstreamKeepaliveDefault
	vResolve           = knowledge.UpstreamResolve
)

// Before reports whether the linted version is older than w, or unknown
// (and so possibly older).
func (p *Pass) Before(w knowledge.Version) bool { return !p.Version.Known() || p.Version.Less(w) }

// AtLeast reports whether the linted version is w or newer, or unknown (and
// so possibly newer).
func (p *Pass) AtLeast(w knowledge.Version) bool { return !p.Version.Known() || !p.Version.Less(w) }

// versionNote explains, when the version is unknown, which versions a
// finding applies to. How to give the version is said once, in the
// summary of the run, not in every finding.
func (p *Pass) versionNote(cond string) string {
	if p.Version.Known() {
		return ""
	}
	return " (this applies to nginx " + cond + ")"
}

// Assumed says which nginx the rules judged for, once per run: the
// version and where it came from (from: "--nginx-version", "the installed
// nginx", ...), or, when none was given, every version of the directive
// table (an error where all of them refuse, information where they
// differ) and how to give one.
func Assumed(v knowledge.Version, from string) string {
	if v.Known() {
		if from == "" {
			return "nginx " + v.String()
		}
		return "nginx " + v.String() + ", " + from
	}
	vs := knowledge.CoreVersions()
	return "no nginx version given, so judged by every version nginxtune knows, " + vs[0] + " to " + vs[len(vs)-1] +
		": an error where all refuse, information where they differ; set one with --nginx-version or nginx-version: in .nginxtune.yaml"
}
