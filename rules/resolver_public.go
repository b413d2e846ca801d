package rules

import (
	"net"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var resolverPublic = &engine.Rule{
	Doc: engine.Doc{
		ID:    "resolver-public",
		Title: "nginx resolves names through a public DNS server",
		Why: `nginx's resolver asks over plain UDP and does not validate DNSSEC: answers from a DNS server
across the internet (8.8.8.8, 1.1.1.1) can be forged by anyone on the path or by off-path
spoofing, and a forged answer sends proxied requests — with their cookies and credentials —
to the attacker, or an OCSP check to a fake responder. nginx before 1.20.1 also had a memory
corruption in the resolver reachable through forged answers (CVE-2021-23017).`,
		Fix:      `Point resolver at a caching resolver on the host or the local network (systemd-resolved: "resolver 127.0.0.53 valid=300s;", or unbound/dnsmasq), which validates and is not reachable for spoofing.`,
		Bad:      "events {}\nhttp {\n    resolver 8.8.8.8;\n}\n",
		Good:     "events {}\nhttp {\n    resolver 127.0.0.53 valid=300s;\n}\n",
		Severity: finding.Warning,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all (CVE-2021-23017 before 1.20.1)",
		Sources:  []string{"nginx docs: ngx_http_core_module resolver", "nginx security advisories: CVE-2021-23017 (1-byte memory overwrite in resolver, fixed in 1.20.1 and 1.21.0)"},
	},
	Check: check(checkResolverPublic),
	Scope: engine.ScopeServer,
}

// publicIP reports whether an address (host or host:port) is a literal IP
// on the public internet.
func publicIP(addr string) (net.IP, bool) {
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(hostOf(addr), "["), "]"))
	if ip == nil {
		return nil, false
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || carrierNAT.Contains(ip) {
		return ip, false
	}
	return ip, true
}

// carrierNAT is the shared address space of RFC 6598 (not the internet).
var carrierNAT = func() *net.IPNet { _, n, _ := net.ParseCIDR("100.64.0.0/10"); return n }()

func checkResolverPublic(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		for i, a := range d.Args {
			if strings.Contains(a.Value, "=") {
				continue
			}
			if ip, pub := publicIP(a.Value); pub {
				extra := ""
				if p.Version.Known() && p.Version.Less(knowledge.ResolverFix) {
					extra = "; this nginx version also has the resolver memory bug CVE-2021-23017 (fixed in 1.20.1)"
				}
				p.ReportArgf(d, i, "resolver %s is a public DNS server reached over plain UDP: a forged answer sends proxied requests to an attacker%s; use a local caching resolver (127.0.0.53)", ip, extra)
				return
			}
		}
	}, "resolver")
}
