package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var sendfileOff = &engine.Rule{
	Doc: engine.Doc{
		ID:    "sendfile-off",
		Title: "Static files are served without sendfile",
		Why: `sendfile is off by default: nginx then reads each file into its own buffers and writes it
out again. With "sendfile on" the kernel sends the file straight from the page cache.
tcp_nopush only takes effect together with sendfile, so on its own it does nothing. Over
TLS nginx does not use sendfile unless kernel TLS is on ("ssl_conf_command Options KTLS;"
with OpenSSL 3), so servers that only listen with ssl or quic are left out.`,
		Fix:      `Write "sendfile on;" in the http block (and "tcp_nopush on;" with it). On FreeBSD with ZFS keep it off.`,
		Bad:      "events {}\nhttp {\n    tcp_nopush on;\n    server {\n        listen 80;\n        root /srv/www;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    sendfile on;\n    tcp_nopush on;\n    server {\n        listen 80;\n        root /srv/www;\n    }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module sendfile, tcp_nopush"},
	},
	Check: check(checkSendfileOff),
}

// tlsOnly reports whether every listen of a server terminates TLS (or is
// QUIC): there nginx does not use sendfile unless kernel TLS is on.
func tlsOnly(p *Pass, hs httpServer) bool {
	if !hs.tlsListens {
		return false
	}
	for _, d := range p.EffectiveIn(hs.c, hs.s, "ssl_conf_command").Dirs {
		if strings.EqualFold(d.Arg(0), "Options") && strings.Contains(strings.ToLower(d.Arg(1)), "ktls") {
			return false
		}
	}
	return true
}

// commented reports whether a directive carries a comment, on its line or
// on the line before: an informed choice, with its reason written down.
func commented(p *Pass, d *parser.Directive) bool {
	for _, c := range d.File.Comments {
		if c.Line == int(d.EndLine) && c.Trailing || c.Line == int(d.Line)-1 && !c.Trailing {
			// nginxtune's own comments (suppressions, and the "want"
			// expectations of its fixtures) give no reason
			t := strings.TrimSpace(c.Text)
			if !strings.HasPrefix(t, "nginxtune:") && !fixtureExpectation(p, t) {
				return true
			}
		}
	}
	return false
}

// fixtureExpectation reports whether a comment is a fixture's expectation:
// "want" and then only rule ids, each with an optional quoted pattern. A
// user's "# want it off: the disk is ZFS" is a reason, not fixture syntax.
func fixtureExpectation(p *Pass, text string) bool {
	rest, ok := strings.CutPrefix(text, "want ")
	if !ok {
		return false
	}
	m := expectationRe().FindStringSubmatch(strings.TrimSpace(rest))
	if m == nil {
		return false
	}
	for _, id := range ruleIDRe().FindAllString(expectationPatternRe().ReplaceAllString(m[0], ""), -1) {
		if !p.IsRule(id) {
			return false
		}
	}
	return true
}

var (
	expectationRe        = lazyre.New(`^[a-z0-9-]+(?:\s+"(?:[^"\\]|\\.)*")?(?:\s+[a-z0-9-]+(?:\s+"(?:[^"\\]|\\.)*")?)*$`)
	expectationPatternRe = lazyre.New(`"(?:[^"\\]|\\.)*"`)
	ruleIDRe             = lazyre.New(`[a-z0-9-]+`)
)

func checkSendfileOff(p *Pass) {
	isOff := func(d *parser.Directive) bool { return d.Arg(0) != "on" }
	reportStaticSetting(p, "sendfile", isOff, func(hs httpServer) bool { return tlsOnly(p, hs) },
		func(at, first *parser.Directive, n int) finding.Diagnostic {
			d := p.Diag(at, "files are served without sendfile (%s); it is off by default, so each file is copied through nginx's buffers; write \"sendfile on;\"", serversNote(first, n))
			if at.Name == parser.CtxHTTP {
				d.Fix = &finding.Fix{Description: "add sendfile on; to the http block", Edits: []finding.Edit{engine.InsertFirst(at, "sendfile on;")}}
			}
			return d
		},
		func(d *parser.Directive) finding.Diagnostic {
			if commented(p, d) {
				return p.DiagSev(finding.Info, d, "sendfile is off where files are served, with a comment giving the reason (shared folders of VirtualBox or Vagrant, FreeBSD with ZFS need it off); if the reason no longer holds, write \"sendfile on;\"")
			}
			diag := p.Diag(d, "sendfile is off where files are served: each one is copied through nginx's buffers instead of sent by the kernel")
			diag.Fix = &finding.Fix{Description: "turn sendfile on", Edits: []finding.Edit{engine.ReplaceArg(d, 0, "on")}}
			return diag
		})
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Name == "tcp_nopush" && d.Arg(0) == "on" && !engine.InStream(c) {
			if s := p.Effective(c.Blocks, c.Root, "sendfile"); s.Complete && (!s.Found() || isOff(s.Last())) {
				p.Reportf(d, "tcp_nopush works only together with sendfile, which is off here")
			}
		}
	}, "tcp_nopush")
}
