package rules

// Host rules about limits: open files per worker and on the system, the
// listen backlog, ephemeral ports.

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
)

var hostFDLimit = &Rule{
	Doc: Doc{
		ID:    "host-fd-limit",
		Title: "The workers' open-file limit on this host is below what worker_connections needs",
		Why: `A worker can hold worker_connections connections, each a file descriptor (the backend
side of a proxied request takes a slot of its own, so sockets never exceed worker_connections),
plus the files open_file_cache keeps open and at most one file per slot being sent or buffered. Without worker_rlimit_nofile the workers keep
the limit the master was started with (systemd gives services 1024 unless LimitNOFILE says
otherwise); past it, accept() and connect() fail with "Too many open files". With
worker_rlimit_nofile, nginx raises the workers' limit itself, but only up to fs.nr_open, and
above the hard limit only with CAP_SYS_RESOURCE: in a container without it nginx logs an alert
and carries on at the old limit.`,
		Fix: `Set worker_rlimit_nofile to the descriptors a worker needs and raise the service's
LimitNOFILE to match (a systemd drop-in; nginxtune gen writes one).`,
		Bad: `# nginxtune-facts: nofile=1024:524288
worker_processes auto;
events { worker_connections 4096; }
`,
		Good: `# nginxtune-facts: nofile=1024:524288
worker_processes auto;
worker_rlimit_nofile 4160;
events { worker_connections 4096; }
`,
		Severity: finding.Warning,
		Category: CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources: []string{
			"nginx docs: ngx_core_module worker_rlimit_nofile, worker_connections",
			"Linux Documentation/admin-guide/sysctl/fs.rst (nr_open)",
			"systemd: default LimitNOFILE 1024:524288 since v240",
		},
	},
	Check: checkHostFDLimit,
}

func checkHostFDLimit(p *Pass) {
	if p.Host == nil {
		return
	}
	for _, r := range mainRoots(p.Tree) {
		m := p.mainSettings(r)
		at := m.anchor() // the findings' place (the rlimit directive when there is one)
		if at == nil || !p.wanted(at) {
			continue
		}
		if !p.Host.NoFile().Known() {
			return
		}
		need, floor := m.need(), m.floor()
		nf := p.Host.NoFile()
		raise := fmt.Sprintf("set LimitNOFILE=%d for nginx.service", need)
		if p.Host.Systemd().Known() && !p.Host.Systemd().Value {
			raise = "raise the hard limit of what starts nginx (ulimit -Hn, or the container's nofile ulimit)"
		}
		if m.rlimitDir == nil {
			if nf.Value.Soft != 0 && uint64(floor) > nf.Value.Soft {
				diag := p.Diag(at, "worker_connections %d%s needs %d descriptors per worker when every slot is open, but the workers keep the master's soft limit of %d (%s); accept() fails with \"Too many open files\" first; add \"worker_rlimit_nofile %d;\"%s",
					m.wc, cacheNote(m.cacheMax), floor, nf.Value.Soft, nf.Source, need, m.proxyNote())
				diag.Fix = p.rlimitFix(r, need)
				p.Report(diag)
			}
			continue
		}
		switch {
		case p.Host.NrOpen().Known() && uint64(m.rlimit) > p.Host.NrOpen().Value:
			p.Reportf(m.rlimitDir, "worker_rlimit_nofile %d is above fs.nr_open %d (%s): setrlimit fails and the workers keep the master's limit",
				m.rlimit, p.Host.NrOpen().Value, p.Host.NrOpen().Source)
		case nf.Value.Hard != 0 && uint64(m.rlimit) > nf.Value.Hard:
			p.Reportf(m.rlimitDir, "worker_rlimit_nofile %d is above the hard limit %d (%s): raising it needs CAP_SYS_RESOURCE, which a container often lacks; %s",
				m.rlimit, nf.Value.Hard, nf.Source, raise)
		case m.rlimit < floor:
			p.Reportf(m.rlimitDir, "worker_rlimit_nofile %d is below the %d descriptors worker_connections %d%s takes when every slot is open; %d also covers a file per slot%s",
				m.rlimit, floor, m.wc, cacheNote(m.cacheMax), need, m.proxyNote())
		}
	}
}

func cacheNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" with %d open_file_cache entries", n)
}

var hostFileMax = &Rule{
	Doc: Doc{
		ID:    "host-file-max",
		Title: "All workers together may open more files than fs.file-max allows",
		Why: `fs.file-max caps the open files of the whole system. When workers times the per-worker
limit exceeds it, nginx (and everything else on the host) gets ENFILE under load before any
per-process limit is reached.`,
		Fix:      `Raise fs.file-max in /etc/sysctl.d (nginxtune gen writes the file), or lower worker_rlimit_nofile or the worker count.`,
		Bad:      "# nginxtune-facts: cpus=4 file-max=100000\nworker_processes auto;\nworker_rlimit_nofile 65536;\nevents { worker_connections 16384; }\n",
		Good:     "# nginxtune-facts: cpus=4 file-max=9223372036854775807\nworker_processes auto;\nworker_rlimit_nofile 65536;\nevents { worker_connections 16384; }\n",
		Severity: finding.Warning,
		Category: CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"Linux Documentation/admin-guide/sysctl/fs.rst (file-max)"},
	},
	Check: checkHostFileMax,
}

func checkHostFileMax(p *Pass) {
	if p.Host == nil {
		return
	}
	for _, r := range mainRoots(p.Tree) {
		m := p.mainSettings(r)
		if m.anchor() == nil || !p.wanted(m.anchor()) {
			continue
		}
		if !p.Host.FileMax().Known() {
			return
		}
		p.countWorkers(&m)
		per := uint64(m.rlimit)
		if m.rlimitDir == nil {
			if !p.Host.NoFile().Known() || p.Host.NoFile().Value.Soft == 0 {
				continue
			}
			per = p.Host.NoFile().Value.Soft
		}
		total := uint64(m.workers) * per
		if total > p.Host.FileMax().Value {
			p.Reportf(m.anchor(), "%d workers x %d open files = %d, above fs.file-max %d (%s): the system runs out of file handles first; raise fs.file-max",
				m.workers, per, total, p.Host.FileMax().Value, p.Host.FileMax().Source)
		}
	}
}

// defaultBacklog is nginx's listen backlog on Linux.
const defaultBacklog = 511

var hostSomaxconn = &Rule{
	Doc: Doc{
		ID:    "host-somaxconn",
		Title: "A listen backlog above net.core.somaxconn, which the kernel silently truncates",
		Why: `The queue of connections waiting for accept() is the smaller of the listen backlog
(nginx's default is 511 on Linux) and net.core.somaxconn (4096 since Linux 5.4, 128 before).
A larger backlog= does nothing unless somaxconn is raised too, and on old kernels even the
default is cut to 128: bursts beyond it are dropped or reset.`,
		Fix:      `Raise net.core.somaxconn in /etc/sysctl.d to at least the backlog, or lower backlog=.`,
		Bad:      "# nginxtune-facts: somaxconn=128\nevents {}\nhttp { server { listen 80 backlog=4096; } }\n",
		Good:     "# nginxtune-facts: somaxconn=4096\nevents {}\nhttp { server { listen 80 backlog=4096; } }\n",
		Severity: finding.Warning,
		Category: CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module listen backlog", "Linux Documentation/networking/ip-sysctl.rst (somaxconn)"},
	},
	Check: checkHostSomaxconn,
}

func checkHostSomaxconn(p *Pass) {
	if p.Host == nil {
		return
	}
	seen := map[string]bool{} // addresses whose default backlog was reported
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "listen" || len(d.Args) == 0 || c.Has(parser.CtxMail) {
			return
		}
		backlog, explicit := defaultBacklog, -1
		for i, a := range d.Args {
			if v, ok := strings.CutPrefix(a.Value, "backlog="); ok {
				if n, err := strconv.Atoi(v); err == nil {
					backlog, explicit = n, i
				}
			}
		}
		if !p.wanted(d) {
			// a finding here would be dropped; but the default backlog is
			// reported once per address, at its first listen, so one
			// reported here (whenever the limit is below the default)
			// leaves the address's later listens alone
			if explicit < 0 {
				seen[d.Arg(0)] = true
			}
			return
		}
		if !p.Host.Somaxconn().Known() {
			return
		}
		limit := p.Host.Somaxconn().Value
		if backlog <= limit {
			return
		}
		if explicit >= 0 {
			p.ReportArgf(d, explicit, "backlog=%d is above net.core.somaxconn %d (%s): the kernel silently cuts the queue to %d; raise net.core.somaxconn",
				backlog, limit, p.Host.Somaxconn().Source, limit)
			return
		}
		if !seen[d.Arg(0)] {
			seen[d.Arg(0)] = true
			p.Reportf(d, "nginx's default listen backlog of %d is above net.core.somaxconn %d (%s): the kernel cuts the queue to %d; raise net.core.somaxconn",
				defaultBacklog, limit, p.Host.Somaxconn().Source, limit)
		}
	}, "listen")
}

// timeWait is how long Linux keeps a closed connection in TIME-WAIT.
const timeWait = 60

var hostEphemeralPorts = &Rule{
	Doc: Doc{
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
		Category: CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"Linux Documentation/networking/ip-sysctl.rst (ip_local_port_range, tcp_tw_reuse)", "docs/measurements.md: TIME-WAIT measurements"},
	},
	Check: checkHostEphemeralPorts,
}

func checkHostEphemeralPorts(p *Pass) {
	if p.Host == nil {
		return
	}
	ups := p.httpUpstreams()
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "proxy_pass" || inStream(c) || !p.wanted(d) {
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
			if len(findIn(up.Block, "keepalive")) > 0 || !p.Before(vUpstreamKeepalive) {
				return
			}
			addrs = nil
			for _, s := range findIn(up.Block, "server") {
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

func isLoopback(hostPort string) bool {
	return loopbackAddr(hostPort) || unspecifiedAddr(hostPort)
}

// hostOf returns the host of host:port (or the whole text without a port).
func hostOf(hostPort string) string {
	if h, _, err := net.SplitHostPort(hostPort); err == nil {
		return h
	}
	return hostPort
}

// loopbackAddr reports whether an address names this host's loopback.
func loopbackAddr(hostPort string) bool {
	h := hostOf(hostPort)
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// unspecifiedAddr reports 0.0.0.0 or ::, which a connection reaches this
// host by (and which a listen binds on every interface).
func unspecifiedAddr(hostPort string) bool {
	ip := net.ParseIP(strings.Trim(hostOf(hostPort), "[]"))
	return ip != nil && ip.IsUnspecified()
}
