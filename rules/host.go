package rules

import (
	"fmt"
	"github.com/nginxtune/nginxtune/knowledge"
	"math"
	"net"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/parser"
)

// Rules that compare the configuration with the host it runs on. They run
// only when host facts are given (lint --host or --facts FILE).

// mainSettings are the main-context numbers host rules need.
type mainSettings struct {
	root       *parser.File
	workers    int // workers nginx starts on this host
	workersDir *parser.Directive
	auto       bool
	wc         int
	wcDir      *parser.Directive
	wcSet      bool // worker_connections holds a number
	rlimit     int
	rlimitDir  *parser.Directive
	rlimitSet  bool // worker_rlimit_nofile holds a number
	proxying   bool
	cacheMax   int
}

func (p *Pass) mainSettings(r *parser.File) mainSettings {
	m := mainSettings{root: r, workers: 1, wc: 512}
	if ds := p.index.find(r.Directives, "worker_processes"); len(ds) > 0 {
		m.workersDir = ds[len(ds)-1]
		if m.workersDir.Arg(0) == "auto" {
			m.auto = true
			if p.Host != nil && p.Host.CPUOnline.Known() {
				m.workers = p.Host.CPUOnline.Value
			}
		} else if n, err := strconv.Atoi(m.workersDir.Arg(0)); err == nil {
			m.workers = n
		}
	}
	for _, ev := range p.index.find(r.Directives, "events") {
		if ds := p.index.find(ev.Block, "worker_connections"); len(ds) > 0 {
			m.wcDir = ds[len(ds)-1]
			if n, err := strconv.Atoi(m.wcDir.Arg(0)); err == nil {
				m.wc, m.wcSet = n, true
			}
		}
	}
	if ds := p.index.find(r.Directives, "worker_rlimit_nofile"); len(ds) > 0 {
		m.rlimitDir = ds[len(ds)-1]
		if n, err := strconv.Atoi(m.rlimitDir.Arg(0)); err == nil {
			m.rlimit, m.rlimitSet = n, true
		}
	}
	m.proxying = p.proxies()
	m.cacheMax = p.openFileCacheMax()
	return m
}

// floor is the descriptors the sockets and cached files take when every
// slot is open; need is a limit that covers a file per slot too.
func (m mainSettings) floor() int { return knowledge.SocketsFloor(m.wc, m.cacheMax) }
func (m mainSettings) need() int  { return knowledge.FDsNeeded(m.wc, m.cacheMax) }

// proxyNote says what worker_connections means for a proxy.
func (m mainSettings) proxyNote() string {
	if !m.proxying {
		return ""
	}
	return fmt.Sprintf("; proxied requests take a second slot for the backend, so a worker proxies at most %d clients at once", knowledge.ProxyClients(m.wc))
}

// anchor is where a main-context finding about connections is reported.
func (m mainSettings) anchor() *parser.Directive {
	switch {
	case m.rlimitDir != nil:
		return m.rlimitDir
	case m.wcDir != nil:
		return m.wcDir
	case m.workersDir != nil:
		return m.workersDir
	case len(m.root.Directives) > 0:
		return m.root.Directives[0]
	}
	return nil
}

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
		Severity: Warning,
		Since:    "0.1.0",
		Versions: "all",
		Sources: []string{
			"nginx docs: ngx_core_module worker_rlimit_nofile, worker_connections",
			"Linux Documentation/admin-guide/sysctl/fs.rst (nr_open)",
			"systemd: default LimitNOFILE 1024:524288 since v240",
		},
	},
	Check: func(p *Pass) {
		if p.Host == nil || !p.Host.NoFile.Known() {
			return
		}
		for _, r := range mainRoots(p.Tree) {
			m := p.mainSettings(r)
			at := m.anchor()
			if at == nil {
				continue
			}
			need, floor := m.need(), m.floor()
			nf := p.Host.NoFile
			raise := fmt.Sprintf("set LimitNOFILE=%d for nginx.service", need)
			if p.Host.Systemd.Known() && !p.Host.Systemd.Value {
				raise = "raise the hard limit of what starts nginx (ulimit -Hn, or the container's nofile ulimit)"
			}
			if m.rlimitDir == nil {
				if nf.Value.Soft != 0 && uint64(floor) > nf.Value.Soft {
					diag := p.Diag(at, "worker_connections %d%s needs %d descriptors per worker when every slot is open, but the workers keep the master's soft limit of %d (%s): accept() fails with \"Too many open files\" first; add \"worker_rlimit_nofile %d;\"%s",
						m.wc, cacheNote(m.cacheMax), floor, nf.Value.Soft, nf.Source, need, m.proxyNote())
					diag.Fix = p.rlimitFix(r, need)
					p.Report(diag)
				}
				continue
			}
			switch {
			case p.Host.NrOpen.Known() && uint64(m.rlimit) > p.Host.NrOpen.Value:
				p.Reportf(m.rlimitDir, "worker_rlimit_nofile %d is above fs.nr_open %d (%s): setrlimit fails and the workers keep the master's limit",
					m.rlimit, p.Host.NrOpen.Value, p.Host.NrOpen.Source)
			case nf.Value.Hard != 0 && uint64(m.rlimit) > nf.Value.Hard:
				p.Reportf(m.rlimitDir, "worker_rlimit_nofile %d is above the hard limit %d (%s): raising it needs CAP_SYS_RESOURCE, which a container often lacks; %s",
					m.rlimit, nf.Value.Hard, nf.Source, raise)
			case m.rlimit < floor:
				p.Reportf(m.rlimitDir, "worker_rlimit_nofile %d is below the %d descriptors worker_connections %d%s takes when every slot is open; %d also covers a file per slot%s",
					m.rlimit, floor, m.wc, cacheNote(m.cacheMax), need, m.proxyNote())
			}
		}
	},
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
		Severity: Warning,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"Linux Documentation/admin-guide/sysctl/fs.rst (file-max)"},
	},
	Check: func(p *Pass) {
		if p.Host == nil || !p.Host.FileMax.Known() {
			return
		}
		for _, r := range mainRoots(p.Tree) {
			m := p.mainSettings(r)
			per := uint64(m.rlimit)
			if m.rlimitDir == nil {
				if !p.Host.NoFile.Known() || p.Host.NoFile.Value.Soft == 0 {
					continue
				}
				per = p.Host.NoFile.Value.Soft
			}
			total := uint64(m.workers) * per
			if total > p.Host.FileMax.Value && m.anchor() != nil {
				p.Reportf(m.anchor(), "%d workers x %d open files = %d, above fs.file-max %d (%s): the system runs out of file handles first; raise fs.file-max",
					m.workers, per, total, p.Host.FileMax.Value, p.Host.FileMax.Source)
			}
		}
	},
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
		Severity: Warning,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module listen backlog", "Linux Documentation/networking/ip-sysctl.rst (somaxconn)"},
	},
	Check: func(p *Pass) {
		if p.Host == nil || !p.Host.Somaxconn.Known() {
			return
		}
		limit := p.Host.Somaxconn.Value
		seen := map[string]bool{}
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
			if backlog <= limit {
				return
			}
			if explicit >= 0 {
				p.ReportArgf(d, explicit, "backlog=%d is above net.core.somaxconn %d (%s): the kernel silently cuts the queue to %d; raise net.core.somaxconn",
					backlog, limit, p.Host.Somaxconn.Source, limit)
				return
			}
			if !seen[d.Arg(0)] {
				seen[d.Arg(0)] = true
				p.Reportf(d, "nginx's default listen backlog of %d is above net.core.somaxconn %d (%s): the kernel cuts the queue to %d; raise net.core.somaxconn",
					defaultBacklog, limit, p.Host.Somaxconn.Source, limit)
			}
		}, "listen")
	},
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
		Severity: Warning,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"Linux Documentation/networking/ip-sysctl.rst (ip_local_port_range, tcp_tw_reuse)", "docs/measurements.md: TIME-WAIT measurements"},
	},
	Check: func(p *Pass) {
		if p.Host == nil || !p.Host.PortRange.Known() {
			return
		}
		ups := p.httpUpstreams()
		rng := p.Host.PortRange.Value
		p.each(func(d *parser.Directive, c *parser.Context) {
			if d.Name != "proxy_pass" || inStream(c) {
				return
			}
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
				if isLoopback(a) && p.Host.TCPTwReuse.Known() && p.Host.TCPTwReuse.Value >= 1 {
					continue // tcp_tw_reuse lets loopback connections reuse TIME-WAIT ports
				}
				if p.Host.TCPTwReuse.Known() && p.Host.TCPTwReuse.Value == 1 {
					continue
				}
				p.Reportf(d, "without backend keepalive nginx opens and closes a connection to %s per request, each holding a local port for %ds after it closes; with ports %d-%d (%s) that caps new connections at about %d per second, after which connect() fails (measured: 627 rps and 44,005 errors); use an upstream with keepalive",
					a, timeWait, rng.Low, rng.High, p.Host.PortRange.Source, rng.Size()/timeWait)
			}
		}, "proxy_pass")
	},
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

var hostWorkers = &Rule{
	Doc: Doc{
		ID:    "host-workers",
		Title: "More workers than the CPUs this host lets nginx use",
		Why: `Workers beyond the usable CPUs only add context switches and memory. "auto" counts the
online CPUs and ignores a cgroup CPU quota and the CPU affinity mask: in a container limited
to 2 CPUs on a 64-CPU host, auto starts 64 workers (one report had a 2-CPU pod start 128 and
get OOM-killed together with a large worker_connections).`,
		Fix:      `Set worker_processes to the usable CPU count (the quota rounded up) where auto overshoots it.`,
		Bad:      "# nginxtune-facts: cpus=64 quota=2\nworker_processes auto;\nevents {}\n",
		Good:     "# nginxtune-facts: cpus=64 quota=2\nworker_processes 2;\nevents {}\n",
		Severity: Warning,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx src/os/unix/ngx_posix_init.c (auto = _SC_NPROCESSORS_ONLN)", "nginx-gateway-fabric#5374"},
	},
	Check: func(p *Pass) {
		if p.Host == nil {
			return
		}
		usable := p.Host.UsableCPUs()
		if usable == 0 {
			return
		}
		for _, r := range mainRoots(p.Tree) {
			m := p.mainSettings(r)
			if m.workersDir == nil {
				continue
			}
			why := cpuWhy(p.Host)
			switch {
			case m.auto && m.workers > usable:
				diag := p.DiagArg(m.workersDir, 0, "worker_processes auto starts %d workers (the online CPUs), but only %d CPU(s) are usable here (%s); write worker_processes %d",
					m.workers, usable, why, usable)
				diag.Fix = &Fix{Description: fmt.Sprintf("set worker_processes %d", usable), Edits: []Edit{replaceArg(m.workersDir, 0, strconv.Itoa(usable))}}
				p.Report(diag)
			case !m.auto && m.workers > usable:
				diag := p.DiagArg(m.workersDir, 0, "worker_processes %d is more than the %d CPU(s) usable here (%s)", m.workers, usable, why)
				diag.Fix = &Fix{Description: fmt.Sprintf("set worker_processes %d", usable), Edits: []Edit{replaceArg(m.workersDir, 0, strconv.Itoa(usable))}}
				p.Report(diag)
			}
		}
	},
}

func cpuWhy(f *host.Facts) string {
	var parts []string
	if f.CPUOnline.Known() {
		parts = append(parts, fmt.Sprintf("%d online", f.CPUOnline.Value))
	}
	if f.CPUAffinity.Known() {
		parts = append(parts, fmt.Sprintf("affinity %d", f.CPUAffinity.Value))
	}
	if f.CPUQuota.Known() && f.CPUQuota.Value > 0 {
		parts = append(parts, fmt.Sprintf("cgroup quota %.2g CPUs from %s", f.CPUQuota.Value, f.CPUQuota.Source))
	}
	return strings.Join(parts, ", ")
}

var hostMemory = &Rule{
	Doc: Doc{
		ID:    "host-memory",
		Title: "Connection slots and buffers can outgrow the host's memory",
		Why: `Each worker preallocates worker_connections slots (416 bytes each on x86-64) at start,
and every busy connection adds pools, header buffers, a 16 KiB TLS buffer, proxy buffers and,
while gzip compresses a response, about 392 KiB of zlib state and buffers (counted for one
busy connection in four: only text is compressed, and only while it is produced). Workers times
connections times that must fit in memory with room to spare, or the host swaps or the
OOM killer ends nginx under exactly the load it was tuned for.`,
		Fix:      `Lower worker_connections (or the worker count) until workers x connections x per-connection memory fits in half the memory, or give the host more.`,
		Bad:      "# nginxtune-facts: cpus=4 mem=1GiB\nworker_processes auto;\nevents { worker_connections 65535; }\nhttp { gzip on; server { listen 443 ssl; } }\n",
		Good:     "# nginxtune-facts: cpus=4 mem=1GiB\nworker_processes auto;\nevents { worker_connections 256; }\nhttp { gzip on; server { listen 443 ssl; } }\n",
		Severity: Warning,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"docs/cost-model.md (slot size measured against nginx source; module buffer defaults; gzip state from ngx_http_gzip_filter_module.c)"},
	},
	Check: func(p *Pass) {
		if p.Host == nil || p.Host.Memory() == 0 {
			return
		}
		for _, r := range mainRoots(p.Tree) {
			m := p.mainSettings(r)
			if m.wcDir == nil {
				continue
			}
			tls, gzip := false, false
			p.each(func(d *parser.Directive, c *parser.Context) {
				switch {
				case d.Name == "listen" && (hasArg(d, "ssl") >= 0 || hasArg(d, "quic") >= 0):
					tls = true
				case d.Name == "gzip" && d.Arg(0) == "on":
					gzip = true
				}
			}, "listen", "gzip")
			per, parts := knowledge.MemoryPerConnection(tls, gzip, m.proxying)
			total := float64(m.workers) * float64(m.wc) * float64(per)
			mem := float64(p.Host.Memory())
			if total <= mem*knowledge.MemoryShare {
				continue
			}
			p.Reportf(m.wcDir, "%d workers x %d connections x %s = %s when every slot is busy, more than half of the %s this host has (%s); per slot: %s; lower worker_connections to about %d",
				m.workers, m.wc, human(float64(per)), human(total), human(mem),
				memSource(p.Host), strings.Join(parts, ", "), int(math.Floor(mem*knowledge.MemoryShare/float64(m.workers)/float64(per))))
		}
	},
}

func memSource(f *host.Facts) string {
	if f.MemLimit.Known() && f.MemLimit.Value > 0 && f.MemLimit.Value == f.Memory() {
		return f.MemLimit.Source
	}
	return f.MemTotal.Source
}

func human(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", b/1024)
}

// moduleOf maps directives (and listen parameters, as "listen:http2") to
// the build option that provides them and a name fragment of the dynamic
// module or third-party source that provides them instead.
var moduleOf = map[string][2]string{
	"listen:ssl":           {"--with-http_ssl_module", ""},
	"ssl_certificate":      {"--with-http_ssl_module", ""},
	"listen:http2":         {"--with-http_v2_module", ""},
	"http2":                {"--with-http_v2_module", ""},
	"listen:quic":          {"--with-http_v3_module", ""},
	"http3":                {"--with-http_v3_module", ""},
	"gzip_static":          {"--with-http_gzip_static_module", ""},
	"gunzip":               {"--with-http_gunzip_module", ""},
	"stub_status":          {"--with-http_stub_status_module", ""},
	"sub_filter":           {"--with-http_sub_module", ""},
	"set_real_ip_from":     {"--with-http_realip_module", ""},
	"real_ip_header":       {"--with-http_realip_module", ""},
	"auth_request":         {"--with-http_auth_request_module", ""},
	"secure_link":          {"--with-http_secure_link_module", ""},
	"slice":                {"--with-http_slice_module", ""},
	"dav_methods":          {"--with-http_dav_module", ""},
	"mp4":                  {"--with-http_mp4_module", ""},
	"flv":                  {"--with-http_flv_module", ""},
	"add_before_body":      {"--with-http_addition_module", ""},
	"add_after_body":       {"--with-http_addition_module", ""},
	"random_index":         {"--with-http_random_index_module", ""},
	"thread_pool":          {"--with-threads", ""},
	"geoip_country":        {"--with-http_geoip_module", "geoip_module"},
	"image_filter":         {"--with-http_image_filter_module", "image_filter"},
	"xslt_stylesheet":      {"--with-http_xslt_module", "xslt"},
	"perl":                 {"--with-http_perl_module", "perl"},
	"stream":               {"--with-stream", "ngx_stream_module"},
	"mail":                 {"--with-mail", "ngx_mail_module"},
	"more_set_headers":     {"", "headers-more"},
	"more_clear_headers":   {"", "headers-more"},
	"brotli":               {"", "brotli"},
	"brotli_static":        {"", "brotli"},
	"content_by_lua_block": {"", "lua"},
	"access_by_lua_block":  {"", "lua"},
	"js_import":            {"", "js"},
	"js_content":           {"", "js"},
}

var hostModuleMissing = &Rule{
	Doc: Doc{
		ID:    "host-module-missing",
		Title: "A directive whose module the installed nginx was not built with",
		Why: `nginx -t fails with "unknown directive" (or "invalid parameter" for listen) when the
binary lacks the module: a configuration written for another build breaks the reload.`,
		Fix:      `Install a build with the module (Debian: nginx-full or nginx-extras, or the libnginx-mod-* package), load the dynamic module with load_module, or remove the directive.`,
		Bad:      "# nginxtune-facts: configure=--with-http_ssl_module\nevents {}\nhttp { server { listen 443 ssl http2; } }\n",
		Good:     "# nginxtune-facts: configure=--with-http_ssl_module,--with-http_v2_module\nevents {}\nhttp { server { listen 443 ssl http2; } }\n",
		Severity: Error,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: Building nginx from Sources (configure options)"},
	},
	Check: func(p *Pass) {
		if p.Host == nil || !p.Host.NginxConfigure.Known() {
			return
		}
		args := p.Host.NginxConfigure.Value
		var loaded []string
		p.each(func(d *parser.Directive, c *parser.Context) {
			if d.Name == "load_module" {
				loaded = append(loaded, d.Arg(0))
			}
		}, "load_module")
		has := func(key string) bool {
			opt, frag := moduleOf[key][0], moduleOf[key][1]
			for _, a := range args {
				if opt != "" && (a == opt || a == opt+"=dynamic") {
					return true
				}
				if frag != "" && (strings.HasPrefix(a, "--add-module=") || strings.HasPrefix(a, "--add-dynamic-module=")) && strings.Contains(a, frag) {
					return true
				}
			}
			for _, l := range loaded {
				if frag != "" && strings.Contains(l, frag) {
					return true
				}
				if opt != "" && strings.Contains(l, strings.TrimPrefix(strings.TrimPrefix(opt, "--with-"), "http_")) {
					return true
				}
			}
			return false
		}
		report := func(d *parser.Directive, key, what string) {
			opt, frag := moduleOf[key][0], moduleOf[key][1]
			need := opt
			if need == "" {
				need = "the third-party " + frag + " module"
			}
			p.Reportf(d, "%s needs %s, which this nginx (%s) was not built or loaded with: nginx -t fails", what, need, p.Host.NginxConfigure.Source)
		}
		p.eachDirective(func(d *parser.Directive, c *parser.Context) {
			if d.Name == "listen" {
				for _, param := range []string{"ssl", "http2", "quic"} {
					if hasArg(d, param) >= 0 && !has("listen:"+param) {
						report(d, "listen:"+param, "listen ... "+param)
					}
				}
				return
			}
			key := d.Name
			if d.Name == "aio" && d.Arg(0) == "threads" {
				key = "thread_pool"
			}
			if _, ok := moduleOf[key]; ok && !has(key) {
				report(d, key, d.Name)
			}
		})
	},
}
