package templates

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nginxtune/nginxtune/knowledge"

	"github.com/nginxtune/nginxtune/host"
)

// The sizing formulas, each in one place. They use the same cost model as
// the lint rules (knowledge.FDsNeeded, knowledge.MemoryPerConnection), so that what
// gen writes passes lint on the same host. Sources: docs/cost-model.md.

// Sysctl is a kernel setting the configuration relies on.
type Sysctl struct {
	Key, Value, Why string
}

// Plan is every sized number with the reason for it.
type Plan struct {
	Workers           string // "auto" or a number
	WorkerCount       int
	WorkersWhy        string
	WorkerConnections int
	ConnectionsWhy    string
	RlimitNofile      int
	RlimitWhy         string
	OpenFileCache     int
	OpenFileCacheWhy  string
	SessionCacheMB    int
	SessionCacheWhy   string
	UpstreamKeepalive int // idle connections per worker; 0: no pool
	KeepaliveWhy      string
	Backlog           int // 0: nginx's default
	BacklogWhy        string
	Sysctls           []Sysctl
	SysctlNotes       []string

	// LimitNOFILE is false when no systemd runs on the host, so the
	// drop-in would reach nothing, or when the limit nginx gets already
	// covers worker_rlimit_nofile (a drop-in could only lower it).
	LimitNOFILE bool
	// LimitSoft and LimitHard are the drop-in's LimitNOFILE=SOFT:HARD:
	// never below the limits given or found.
	LimitSoft, LimitHard uint64
	// FastCGIPool is the php-fpm pool's share per worker; 0: no pool.
	FastCGIPool    int
	FastCGIPoolWhy string

	HTTP2Directive    bool // "http2 on;" (1.25.1) rather than "listen ... http2"
	KeepaliveHeaders  bool // proxy_http_version 1.1 and Connection "" (before 1.29.7)
	SessionTicketsOff bool // before 1.23.2 tickets keys never rotate

	// PCREJIT writes "pcre_jit on": regular expressions (locations, maps,
	// rewrites) compiled to machine code once at start instead of
	// interpreted per request. PCREJITWhy says how nginx's support is known.
	PCREJIT    bool
	PCREJITWhy string
}

// Defaults used when a fact is unknown, said in the comments.
const (
	defaultCPUs   = 1
	defaultMemory = 1 << 30
	minConns      = 256
	// nginxDefaultConns is nginx's default worker_connections.
	nginxDefaultConns = 512
	maxConns          = 16384
	connStep          = 256
	// memoryBudget is the share of memory gen lets connections take when
	// every slot is busy (lint's host-memory warns past 50 %).
	memoryBudget = 0.25
)

// Size computes the plan for a profile on a host.
func Size(p *Profile, f *host.Facts, v knowledge.Version, in Input) Plan {
	var pl Plan
	tls := in.TLS != nil || in.ACME
	proxy := p.Kind != Static
	usable := pl.sizeWorkers(f)
	mem := pl.sizeConnections(f, tls, proxy)
	if servesFiles(p) {
		pl.sizeOpenFileCache(mem)
	}
	pl.sizeDescriptors(f, proxy)
	if tls {
		pl.sizeSessionCache()
	}
	pl.sizePools(p, in)
	pl.sizeBacklog(p, f, usable)
	if e := in.Existing; e != nil && !e.TuneMain && pl.OpenFileCache > 0 {
		pl.fitExisting(e, f)
	}
	pl.HTTP2Directive = !v.Less(knowledge.HTTP2Directive)
	pl.KeepaliveHeaders = v.Less(knowledge.UpstreamKeepaliveDefault)
	pl.SessionTicketsOff = v.Less(knowledge.SessionTicketKeyRotation)
	pl.sizePCREJIT(f, v)
	return pl
}

// sizePCREJIT decides pcre_jit. nginx configured --with-pcre-jit has it;
// from 1.21.5 nginx uses PCRE2, whose JIT it turns on without that option
// (a PCRE2 built without JIT gets a warning at start and no JIT). Older
// nginx without the option would only warn, so nothing is written.
func (pl *Plan) sizePCREJIT(f *host.Facts, v knowledge.Version) {
	if f.NginxConfigure.Known() && slices.Contains(f.NginxConfigure.Value, "--with-pcre-jit") {
		pl.PCREJIT = true
		pl.PCREJITWhy = "built --with-pcre-jit (" + f.NginxConfigure.Source + ")"
		return
	}
	if !v.Less(knowledge.PCRE2) {
		pl.PCREJIT = true
		pl.PCREJITWhy = "nginx " + v.String() + " uses PCRE2's JIT (1.21.5 and later; a PCRE2 without JIT gets a warning)"
	}
}

// sizeWorkers sets worker_processes; it returns the CPUs nginx can use.
func (pl *Plan) sizeWorkers(f *host.Facts) int {
	// Workers: the CPUs nginx can use. "auto" counts online CPUs and
	// ignores quotas and affinity, so a number is written when they differ.
	online := 0
	if f.CPUOnline.Known() {
		online = f.CPUOnline.Value
	}
	usable := f.UsableCPUs()
	switch {
	case usable == 0:
		pl.Workers, pl.WorkerCount = "auto", defaultCPUs
		pl.WorkersWhy = "CPU count unknown: auto starts one worker per online CPU on the host"
	case online > 0 && usable < online:
		pl.Workers, pl.WorkerCount = fmt.Sprint(usable), usable
		pl.WorkersWhy = fmt.Sprintf("%d of %d CPUs usable (%s); auto would start %d", usable, online, limitWhy(f), online)
	case f.CPUOnline.Source == "--cpus" || f.CPUOnline.Source == "given":
		// a count given, not read from a host: auto would count the online
		// CPUs of whatever machine runs it (16 in a container allowed 2)
		pl.Workers, pl.WorkerCount = fmt.Sprint(usable), usable
		with := ""
		if f.CPUOnline.Source != "given" {
			with = " with " + f.CPUOnline.Source
		}
		pl.WorkersWhy = fmt.Sprintf("%d CPU(s) given%s: written as a number, since auto counts the online CPUs of the machine it runs on, whatever nginx may use", usable, with)
	default:
		pl.Workers, pl.WorkerCount = "auto", usable
		pl.WorkersWhy = fmt.Sprintf("%d CPU(s), no quota or affinity limit: auto starts one worker per CPU", usable)
	}

	return usable
}

// sizeConnections sets worker_connections; it returns the memory sized
// for.
func (pl *Plan) sizeConnections(f *host.Facts, tls, proxy bool) uint64 {
	// Connections per worker: as many as a quarter of the memory carries
	// when every slot is busy, in steps of 256, between 256 and 16384.
	mem := f.Memory()
	memWhy := humanBytes(mem) + " memory"
	if mem == 0 {
		mem, memWhy = defaultMemory, "memory unknown, 1 GiB assumed"
	}
	per, parts := knowledge.MemoryPerConnection(tls, true, proxy)
	wc := int(float64(mem) * memoryBudget / float64(pl.WorkerCount) / float64(per))
	wc = max(minConns, min(maxConns, wc/connStep*connStep))
	// nginx's own default, 512, unless even that would take more than the
	// share of memory lint's host-memory allows
	if wc < nginxDefaultConns && float64(nginxDefaultConns)*float64(pl.WorkerCount)*float64(per) <= float64(mem)*knowledge.MemoryShare {
		wc = nginxDefaultConns
	}
	pl.WorkerConnections = wc
	pl.ConnectionsWhy = fmt.Sprintf("%s x %.0f%% / %d worker(s) / %s per busy slot (%s)",
		memWhy, memoryBudget*100, pl.WorkerCount, humanBytes(uint64(per)), strings.Join(parts, ", "))
	switch wc {
	case minConns, maxConns:
		pl.ConnectionsWhy += fmt.Sprintf(", kept within %d-%d", minConns, maxConns)
	case nginxDefaultConns:
		pl.ConnectionsWhy += fmt.Sprintf(", raised to nginx's default %d (within %.0f%% of memory)", nginxDefaultConns, knowledge.MemoryShare*100)
	}

	return mem
}

func (pl *Plan) sizeOpenFileCache(mem uint64) {
	// open_file_cache: 1,000 entries on small hosts, 10,000 otherwise;
	// more buys nothing measurable.
	pl.OpenFileCache = 10000
	pl.OpenFileCacheWhy = "10,000 entries cover most sites; each is an open descriptor"
	if mem < 1<<30 {
		pl.OpenFileCache = 1000
		pl.OpenFileCacheWhy = "under 1 GiB memory: 1,000 entries; each is an open descriptor"
	}

}

// sizeDescriptors sets worker_rlimit_nofile, the LimitNOFILE drop-in and
// the file sysctls, lowering the connections where no systemd can raise
// the limit.
func (pl *Plan) sizeDescriptors(f *host.Facts, proxy bool) {
	wc := pl.WorkerConnections
	// Descriptors per worker: the same formula lint checks, a socket and a
	// file per slot. Where no systemd runs, the LimitNOFILE drop-in reaches
	// nothing, so the limit stays within the hard limit nginx is started
	// with, and the connections within what that limit carries.
	pl.RlimitNofile = knowledge.FDsNeeded(wc, pl.OpenFileCache)
	pl.RlimitWhy = fmt.Sprintf("2 x %d connections (a socket and a file per slot) + 64 spare", wc)
	if pl.OpenFileCache > 0 {
		pl.RlimitWhy = fmt.Sprintf("2 x %d connections (a socket and a file per slot) + %d open_file_cache entries + 64 spare", wc, pl.OpenFileCache)
	}
	pl.LimitNOFILE = true
	pl.LimitSoft, pl.LimitHard = uint64(pl.RlimitNofile), uint64(pl.RlimitNofile)
	if f.NoFile.Known() {
		pl.LimitSoft = max(pl.LimitSoft, f.NoFile.Value.Soft)
		pl.LimitHard = max(pl.LimitSoft, f.NoFile.Value.Hard)
		if f.NoFile.Value.Soft >= uint64(pl.RlimitNofile) {
			// nginx starts with enough already; a drop-in could only lower it
			pl.LimitNOFILE = false
			pl.RlimitWhy += fmt.Sprintf("; the open-file limit nginx gets (%d, %s) covers it, so no systemd drop-in is written", f.NoFile.Value.Soft, f.NoFile.Source)
		}
	}
	if f.Systemd.Known() && !f.Systemd.Value {
		pl.LimitNOFILE = false
		if hard := f.NoFile.Value.Hard; f.NoFile.Known() && hard > 0 && uint64(pl.RlimitNofile) > hard {
			pl.RlimitNofile = int(hard)
			pl.RlimitWhy = fmt.Sprintf("the hard limit %d (%s): no systemd runs here to raise it, and nginx cannot go past it without CAP_SYS_RESOURCE", hard, f.NoFile.Source)
			// the same model as lint's worker-fd-limit: 2 x connections +
			// cache + 64 within the limit (docs/cost-model.md)
			if room := knowledge.ConnectionsWithin(int(hard), pl.OpenFileCache); room < wc {
				wc = max(1, room/connStep*connStep)
				if wc < connStep {
					wc = max(1, room)
				}
				pl.WorkerConnections = wc
				pl.ConnectionsWhy += fmt.Sprintf("; lowered to %d so the sockets fit the hard open-file limit %d", wc, hard)
			}
		}
	}
	if proxy {
		pl.ConnectionsWhy += fmt.Sprintf("; a proxied request takes two slots (client and backend): %d clients per worker at once", knowledge.ProxyClients(wc))
	}
	if f.NrOpen.Known() && uint64(pl.RlimitNofile) > f.NrOpen.Value {
		pl.Sysctls = append(pl.Sysctls, Sysctl{"fs.nr_open", fmt.Sprint(pl.RlimitNofile),
			fmt.Sprintf("worker_rlimit_nofile %d is above fs.nr_open %d", pl.RlimitNofile, f.NrOpen.Value)})
	}
	if f.FileMax.Known() {
		total := uint64(pl.WorkerCount) * uint64(pl.RlimitNofile)
		if total > f.FileMax.Value {
			pl.Sysctls = append(pl.Sysctls, Sysctl{"fs.file-max", fmt.Sprint(total * 2),
				fmt.Sprintf("%d workers x %d descriptors = %d is above fs.file-max %d; doubled for the rest of the system", pl.WorkerCount, pl.RlimitNofile, total, f.FileMax.Value)})
		} else {
			pl.SysctlNotes = append(pl.SysctlNotes, fmt.Sprintf("fs.file-max %d covers %d workers x %d descriptors", f.FileMax.Value, pl.WorkerCount, pl.RlimitNofile))
		}
	}

}

func (pl *Plan) sizeSessionCache() {
	wc := pl.WorkerConnections
	// TLS session cache: about 4,000 sessions per megabyte; room for four
	// sessions per connection slot, between 1 and 64 MB.
	sessions := pl.WorkerCount * wc * 4
	pl.SessionCacheMB = max(1, min(64, int(math.Ceil(float64(sessions)/4000))))
	pl.SessionCacheWhy = fmt.Sprintf("%d workers x %d connections x 4 sessions / ~4,000 per MB", pl.WorkerCount, wc)

}

// sizePools sets the kept upstream and FastCGI connections.
func (pl *Plan) sizePools(p *Profile, in Input) {
	wc := pl.WorkerConnections
	// Upstream pool per worker: as many idle connections as requests a
	// worker expects in flight to the backends, so that a burst finds them
	// open; beyond the pool, each request opens a connection and closes it
	// after (TIME-WAIT on the proxy's ports). Without a figure, nginx's own
	// default of 32 (Caddy keeps 32 per backend as well; 128 gave 18,048
	// rps in the published reference, docs/measurements.md), at least two
	// per backend server, and never more than half a worker's slots.
	if p.Kind == Proxy || p.Kind == GRPC {
		servers := max(1, len(in.Upstreams))
		if in.Concurrency > 0 {
			per := (in.Concurrency + pl.WorkerCount - 1) / pl.WorkerCount
			pl.UpstreamKeepalive = min(max(per, 2*servers), max(2*servers, wc/2))
			pl.KeepaliveWhy = fmt.Sprintf("--concurrency %d requests in flight / %d workers: %d per worker kept open, so a burst of that size reuses connections instead of opening and closing them", in.Concurrency, pl.WorkerCount, pl.UpstreamKeepalive)
		} else {
			pl.UpstreamKeepalive = max(32, 2*servers)
			pl.KeepaliveWhy = fmt.Sprintf("idle connections kept per worker for %d server(s): nginx's default since 1.29.7 is 32; requests beyond it open and close connections, so give gen --concurrency N (the requests in flight at peak) to size it", servers)
		}
	}
	// FastCGI pool: php-fpm serves one connection per child, and a kept
	// connection holds its child even while idle. Every worker keeps its
	// own pool, so workers x pool children can sit idle, held by workers
	// that do not need them, while requests in other workers wait for a
	// child: the pool stays at half the children, and without knowing them,
	// there is none.
	if p.Kind == PHP {
		switch n := in.FPMMaxChildren; {
		case n <= 0:
			pl.FastCGIPoolWhy = "no kept php-fpm connections: each would hold a php-fpm child while idle, and pm.max_children is unknown (Debian's default is 5); give --fpm-max-children or --fpm-pool to size a pool"
		case n/(2*pl.WorkerCount) < 1:
			pl.FastCGIPoolWhy = fmt.Sprintf("no kept php-fpm connections: pm.max_children %d (%s) is too few to keep one per worker (%d) and leave half free", n, in.FPMWhy, pl.WorkerCount)
		default:
			pl.FastCGIPool = n / (2 * pl.WorkerCount)
			pl.FastCGIPoolWhy = fmt.Sprintf("pm.max_children %d (%s) / (2 x %d workers): kept connections hold a child each, so at most half the children sit idle in pools", n, in.FPMWhy, pl.WorkerCount)
		}
	}

}

func (pl *Plan) sizeBacklog(p *Profile, f *host.Facts, usable int) {
	// Listen backlog: nginx's 511 unless the kernel allows more and the
	// host is large enough to see bursts that size.
	switch {
	case f.Somaxconn.Known() && f.Somaxconn.Value < 511:
		pl.Sysctls = append(pl.Sysctls, Sysctl{"net.core.somaxconn", "4096",
			fmt.Sprintf("net.core.somaxconn %d truncates nginx's default listen backlog of 511", f.Somaxconn.Value)})
	case usable >= 8 && f.Somaxconn.Known() && f.Somaxconn.Value >= 4096:
		pl.Backlog = 4096
		pl.BacklogWhy = fmt.Sprintf("%d CPUs and net.core.somaxconn %d: room for bursts beyond the default 511", usable, f.Somaxconn.Value)
	case f.Somaxconn.Known():
		pl.SysctlNotes = append(pl.SysctlNotes, fmt.Sprintf("net.core.somaxconn %d covers nginx's default listen backlog of 511", f.Somaxconn.Value))
	}
	switch {
	case p.Kind == Proxy || p.Kind == GRPC || pl.FastCGIPool > 0:
		pl.SysctlNotes = append(pl.SysctlNotes, "net.ipv4.ip_local_port_range: not needed, the upstream keeps its connections alive")
	case p.Kind == UWSGI:
		pl.SysctlNotes = append(pl.SysctlNotes, "net.ipv4.ip_local_port_range: not needed for a unix socket; over TCP each uwsgi request takes a port for 60 s (TIME-WAIT), since the uwsgi protocol carries one request per connection")
	case p.Kind == PHP:
		pl.SysctlNotes = append(pl.SysctlNotes, "net.ipv4.ip_local_port_range: not needed for a unix socket; over TCP each php-fpm request takes a port for 60 s (TIME-WAIT)")
	}

}

// fitExisting sizes open_file_cache within the descriptors an existing
// tree's nginx.conf leaves, when its main numbers stay.
func (pl *Plan) fitExisting(e *Existing, f *host.Facts) {
	// Added to a tree whose main numbers stay as they are, the cached
	// files share the descriptors those numbers leave: worker_rlimit_nofile
	// (else the limit nginx starts with) less a socket and a file per slot.
	limit, limitWhy := e.Rlimit, "worker_rlimit_nofile"
	if limit == 0 {
		limit, limitWhy = 1024, "the open-file limit systemd starts services with"
		if f.NoFile.Known() && f.NoFile.Value.Soft < 1<<31 {
			limit, limitWhy = int(f.NoFile.Value.Soft), "the open-file limit nginx gets ("+f.NoFile.Source+")"
		}
	}
	conns := e.Connections
	if conns == 0 {
		conns = nginxDefaultConns
	}
	room := limit - knowledge.FDsNeeded(conns, 0)
	switch {
	case room >= pl.OpenFileCache:
		pl.OpenFileCacheWhy += fmt.Sprintf("; fits the %d descriptors of %s beside %d connections", limit, limitWhy, conns)
	case room >= 100:
		pl.OpenFileCache = room / 100 * 100
		pl.OpenFileCacheWhy = fmt.Sprintf("%d entries: what %d descriptors (%s) leave beside a socket and a file for each of nginx.conf's %d connections and 64 spare; --tune-main raises the limit", pl.OpenFileCache, limit, limitWhy, conns)
	default:
		pl.OpenFileCache = 0
		pl.OpenFileCacheWhy = fmt.Sprintf("no open_file_cache: %d descriptors (%s) leave no room beside a socket and a file for each of nginx.conf's %d connections; --tune-main raises the limit", limit, limitWhy, conns)
	}

}

func limitWhy(f *host.Facts) string {
	var parts []string
	if f.CPUQuota.Known() && f.CPUQuota.Value > 0 {
		parts = append(parts, fmt.Sprintf("cgroup quota %.3g CPUs", f.CPUQuota.Value))
	}
	if f.CPUAffinity.Known() && f.CPUOnline.Known() && f.CPUAffinity.Value < f.CPUOnline.Value {
		parts = append(parts, fmt.Sprintf("affinity %d CPUs", f.CPUAffinity.Value))
	}
	return strings.Join(parts, ", ")
}

func humanBytes(b uint64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%d MiB", b>>20)
	}
	return fmt.Sprintf("%d KiB", b>>10)
}
