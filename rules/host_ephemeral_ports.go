package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var hostEphemeralPorts = &engine.Rule{
	Doc: engine.Doc{
		ID:    "host-ephemeral-ports",
		Title: "Proxying without backend keepalive caps new connections per backend at this host's port range",
		Why: `Without keepalive every proxied request opens a connection to the backend from a local
ephemeral port. When nginx closes it first (proxy_http_version 1.1 without an upstream
keepalive pool; the default from nginx 1.29.7 for a literal proxy_pass address) the port stays
in TIME-WAIT for 60 seconds, so one backend address can take at most (port range)/60 new
connections per second: about 470 with the default range 32768-60999. The published failure
was 627 requests/s with 44,005 errors. The kernel's default tcp_tw_reuse=2 reuses TIME-WAIT
ports for loopback backends only, so a backend on another host is exposed.`,
		Fix:      `Use an upstream block with keepalive (see upstream-keepalive). Only if that is impossible, widen net.ipv4.ip_local_port_range.`,
		Bad:      "# nginxtune-facts: port-range=32768-60999 tw-reuse=2\nevents {}\nhttp { server { listen 80; location / { proxy_pass http://10.0.0.5:8080; proxy_http_version 1.1; } } }\n",
		Good:     "# nginxtune-facts: port-range=32768-60999 tw-reuse=2\nevents {}\nhttp {\n  upstream app { server 10.0.0.5:8080; keepalive 32; }\n  server { listen 80; location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection \"\"; } }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"Linux Documentation/networking/ip-sysctl.rst (ip_local_port_range, tcp_tw_reuse)", "docs/measurements.md: TIME-WAIT measurements"},
	},
	Check: check(checkHostEphemeralPorts),
}

// timeWait is how long Linux keeps a closed connection in TIME-WAIT.
const timeWait = 60

func checkHostEphemeralPorts(p *Pass) {
	if p.Host == nil {
		return
	}
	ups := p.httpUpstreams()
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "proxy_pass" || engine.InStream(c) || !p.Wanted(d) {
			return
		}
		if !p.Host.PortRange().Known() {
			return
		}
		rng := p.Host.PortRange().Value
		_, hostPort, _, ok := proxyTarget(d.Arg(0))
		if !ok || strings.HasPrefix(hostPort, "unix:") {
			return
		}
		addrs := []string{hostPort}
		if up, isUp := ups[hostPort]; isUp {
			if len(engine.FindIn(up.Block, "keepalive")) > 0 || !p.Before(vUpstreamKeepalive) {
				return
			}
			addrs = nil
			for _, s := range engine.FindIn(up.Block, "server") {
				addrs = append(addrs, s.Arg(0))
			}
		}
		// Who closes first? With HTTP/1.0 the backend does and keeps the
		// TIME-WAIT; with HTTP/1.1 and no pool, nginx does.
		version := "1.0"
		if !p.Before(vUpstreamKeepalive) {
			version = "1.1"
		}
		if pv := p.Effective(c.Blocks, c.Root, "proxy_http_version"); pv.Found() {
			version = pv.Last().Arg(0)
		} else if !p.Version.Known() {
			return // the default depends on the version
		}
		if version == "1.0" {
			return
		}
		for _, a := range addrs {
			if isLoopback(a) && p.Host.TCPTwReuse().Known() && p.Host.TCPTwReuse().Value >= 1 {
				continue // tcp_tw_reuse lets loopback connections reuse TIME-WAIT ports
			}
			if p.Host.TCPTwReuse().Known() && p.Host.TCPTwReuse().Value == 1 {
				continue
			}
			p.Reportf(d, "without backend keepalive nginx opens and closes a connection to %s per request, each holding a local port for %ds after it closes; with ports %d-%d (%s) that caps new connections at about %d per second, after which connect() fails (measured: 627 rps and 44,005 errors); use an upstream with keepalive",
				a, timeWait, rng.Low, rng.High, p.Host.PortRange().Source, rng.Size()/timeWait)
		}
	}, "proxy_pass")
}
