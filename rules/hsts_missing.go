package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var hstsMissing = &engine.Rule{
	Doc: engine.Doc{
		ID:    "hsts-missing",
		Title: "A TLS site without Strict-Transport-Security",
		Why: `Without HSTS a browser that is sent to http:// (a typed name, an old link) makes its first
request in clear text, and an attacker on the network answers it instead of the redirect to
https:// ("SSL stripping"). The Strict-Transport-Security header tells the browser to use
https:// only, for max-age seconds, before any request leaves it.`,
		Fix:      `add_header Strict-Transport-Security "max-age=63072000" always; in the TLS server (add includeSubDomains once every subdomain serves HTTPS).`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        root /srv/www;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        root /srv/www;\n        add_header Strict-Transport-Security \"max-age=63072000\" always;\n    }\n}\n",
		Severity: finding.Info,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"RFC 6797 (HTTP Strict Transport Security)", "Mozilla Server Side TLS guidelines (HSTS)"},
	},
	Check: check(checkHstsMissing),
	Scope: engine.ScopeServer,
}

// hstsSet reports whether a block level sends Strict-Transport-Security.
func (p *Pass) hstsSet(blocks []*parser.Directive, root *parser.File) bool {
	for _, d := range p.Effective(blocks, root, "add_header").Dirs {
		if strings.EqualFold(d.Arg(0), "Strict-Transport-Security") {
			return true
		}
	}
	for _, d := range p.Effective(blocks, root, "more_set_headers").Dirs {
		for _, a := range d.Args {
			if strings.HasPrefix(strings.ToLower(a.Value), "strict-transport-security") {
				return true
			}
		}
	}
	return false
}

func checkHstsMissing(p *Pass) {
	for _, hs := range p.httpServers() {
		s, c := hs.s, hs.c
		if !hs.tls {
			continue
		}
		// one walk of the server: what answers, and what may already say HSTS
		var fastcgi, rejects, unread, found bool
		walkLevels(s.Block, func(x *parser.Directive) {
			switch x.Name {
			case protoFastCGI, protoUWSGI, protoSCGI:
				fastcgi = true
			case "ssl_reject_handshake":
				rejects = rejects || x.Arg(0) == "on"
			case "include":
				unread = unread || len(x.Includes()) == 0 // an include nginxtune could not read may set it
			case "add_header", "more_set_headers":
				// set in some location: where it is not, header-inheritance says why
				found = found || strings.Contains(strings.ToLower(x.Arg(0)+x.Arg(1)), "strict-transport-security")
			}
		})
		if rejects || unread || found || !hs.files && !fastcgi {
			continue // a proxy (the backend may send it), a server that only redirects or rejects
		}
		if p.hstsSet(append(append([]*parser.Directive(nil), c.Blocks...), s), c.Root) {
			continue
		}
		p.Reportf(s, "this TLS server (%s) sends no Strict-Transport-Security: a visitor's first http:// request can be intercepted before the redirect; add \"add_header Strict-Transport-Security \"max-age=63072000\" always;\"", engine.Clip(serverName(s)))
	}
}

// walkLevels calls fn for every statement below dirs, reading included
// files where the include stands (an include nginxtune could not read is
// passed to fn as it is).
func walkLevels(dirs []*parser.Directive, fn func(*parser.Directive)) {
	for _, d := range parser.Level(dirs) {
		fn(d)
		if d.Block != nil {
			walkLevels(d.Block, fn)
		}
	}
}
