package rules

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var weakTLS = &engine.Rule{
	Doc: engine.Doc{
		ID:    "weak-tls",
		Title: "TLS protocols or ciphers below Mozilla's intermediate profile",
		Why: `SSLv3, TLS 1.0 and TLS 1.1 have known attacks (POODLE, BEAST) and are disabled by every
current browser; RC4, 3DES, NULL and EXPORT suites can be broken or downgraded to. Offering
them helps no real client and lets an attacker in the middle pick the weakest. A value written
at the http (or stream) level is judged by the TLS servers that inherit it: none is reported
when every TLS server sets its own (or includes a file nginxtune could not read, which may), and
it is information while no server of the tree uses TLS (Debian's stock nginx.conf; Debian 12's
OpenSSL refuses TLS 1.0 and 1.1 at its default security level anyway).`,
		Fix:      `"ssl_protocols TLSv1.2 TLSv1.3;" and Mozilla's intermediate cipher list (nginxtune gen writes both).`,
		Bad:      "events {}\nhttp {\n    ssl_protocols TLSv1 TLSv1.1 TLSv1.2;\n}\n",
		Good:     "events {}\nhttp {\n    ssl_protocols TLSv1.2 TLSv1.3;\n}\n",
		Severity: finding.Warning,
		Category: engine.CategorySecurity,
		Since:    "0.2.0",
		Versions: "all (TLSv1 and TLSv1.1 are off by default since 1.27.3)",
		Sources:  []string{"Mozilla Server Side TLS guidelines 5.7 (intermediate)", "RFC 8996 (TLS 1.0 and 1.1 deprecated)", "RFC 7465 (RC4 prohibited)"},
	},
	Check: check(checkWeakTLS),
}

// weakProtocols and weakCipherWords are below Mozilla's intermediate
// profile (TLS 1.2 and 1.3, AEAD suites with forward secrecy).
var weakProtocols = map[string]bool{"SSLv2": true, "SSLv3": true, "TLSv1": true, "TLSv1.1": true}

var weakCipherWords = []string{"RC4", "3DES", "DES-CBC3", "NULL", "EXPORT", "EXP-", "aNULL", "eNULL", "MD5", "DES-CBC-"}

// tlsUse is what the servers of one http (or stream) block make of a TLS
// setting written at that level.
type tlsUse struct {
	tls, inherit int // TLS servers; those that use the block's value
}

func checkWeakTLS(p *Pass) {
	// per http or stream block and setting name: how many TLS servers use
	// the value written at the block's level (a server that sets its own,
	// or may through an include nginxtune did not read, does not)
	uses := map[*parser.Directive]map[string]*tlsUse{}
	p.Each(func(s *parser.Directive, c *parser.Context) {
		top := c.Enclosing(parser.CtxHTTP)
		if top == nil {
			top = c.Enclosing(parser.CtxStream)
		}
		if s.Block == nil || top == nil || !isTLSServer(s) {
			return
		}
		if uses[top] == nil {
			uses[top] = map[string]*tlsUse{}
		}
		for _, name := range []string{"ssl_protocols", "ssl_ciphers"} {
			u := uses[top][name]
			if u == nil {
				u = &tlsUse{}
				uses[top][name] = u
			}
			u.tls++
			if len(p.Find(s.Block, name)) == 0 && !p.UnreadInclude(s.Block) {
				u.inherit++
			}
		}
	}, "server")
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if (d.Name == "ssl_protocols" || d.Name == "ssl_ciphers") && (c.In() == parser.CtxHTTP || c.In() == parser.CtxStream) {
			var u *tlsUse
			if len(c.Blocks) > 0 {
				u = uses[c.Blocks[len(c.Blocks)-1]][d.Name]
			}
			switch {
			case u == nil && (len(c.Blocks) == 0 || c.Root != nil && c.Root.ContextSource != "root"):
				// a snippet read at http level: its servers are elsewhere
			case u == nil:
				// no server of the tree terminates TLS: the value is used by
				// none, and Debian's stock http-level line is no risk yet
				if weakTLSValue(d) != "" {
					p.ReportSeverityf(finding.Info, d, "%s; no server in this tree uses TLS yet, so nothing offers it now, but the first one that does will inherit it", weakTLSValue(d))
				}
				return
			case u.inherit == 0:
				return // every TLS server sets its own (or may, in an include not read)
			}
		}
		if msg := weakTLSValue(d); msg != "" {
			if d.Name == "ssl_ciphers" || d.Name == "proxy_ssl_ciphers" {
				p.ReportArgf(d, 0, "%s", msg)
			} else {
				p.Reportf(d, "%s", msg)
			}
		}
	}, "ssl_protocols", "proxy_ssl_protocols", "ssl_ciphers", "proxy_ssl_ciphers")
}

// weakTLSValue says what is weak in a protocol or cipher directive, "" when
// nothing is.
func weakTLSValue(d *parser.Directive) string {
	switch d.Name {
	case "ssl_protocols", "proxy_ssl_protocols":
		var weak []string
		for _, a := range d.Args {
			if weakProtocols[a.Value] {
				weak = append(weak, a.Value)
			}
		}
		if len(weak) > 0 {
			return fmt.Sprintf("%s offers %s, broken or deprecated (RFC 8996) and refused by current browsers; write \"%s TLSv1.2 TLSv1.3;\"", d.Name, strings.Join(weak, ", "), d.Name)
		}
	default:
		var weak []string
		for _, part := range strings.FieldsFunc(d.Arg(0), func(r rune) bool { return r == ':' || r == ' ' || r == ',' }) {
			if strings.HasPrefix(part, "!") || strings.HasPrefix(part, "-") {
				continue
			}
			for _, w := range weakCipherWords {
				if strings.Contains(part, w) {
					weak = append(weak, part)
					break
				}
			}
		}
		if len(weak) > 0 {
			return fmt.Sprintf("%s allows %s, breakable or unauthenticated suites; use Mozilla's intermediate list", d.Name, engine.Clip(strings.Join(weak, ", ")))
		}
	}
	return ""
}
