package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// Rules that compare the configuration with the host it runs on. They run
// only when host facts are given (lint --host or --facts FILE).

// mainSettings are the main-context numbers host rules need.
type mainSettings struct {
	root       *parser.File
	workers    int // workers nginx starts on this host (see countWorkers)
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
	if ds := p.Find(r.Directives, "worker_processes"); len(ds) > 0 {
		m.workersDir = ds[len(ds)-1]
		if m.workersDir.Arg(0) == "auto" {
			m.auto = true
		} else if n, err := strconv.Atoi(m.workersDir.Arg(0)); err == nil {
			m.workers = n
		}
	}
	for _, ev := range p.Find(r.Directives, "events") {
		if ds := p.Find(ev.Block, "worker_connections"); len(ds) > 0 {
			m.wcDir = ds[len(ds)-1]
			if n, err := strconv.Atoi(m.wcDir.Arg(0)); err == nil {
				m.wc, m.wcSet = n, true
			}
		}
	}
	if ds := p.Find(r.Directives, "worker_rlimit_nofile"); len(ds) > 0 {
		m.rlimitDir = ds[len(ds)-1]
		if n, err := strconv.Atoi(m.rlimitDir.Arg(0)); err == nil {
			m.rlimit, m.rlimitSet = n, true
		}
	}
	m.proxying = p.proxies()
	m.cacheMax = p.openFileCacheMax()
	return m
}

// countWorkers fills in the workers "worker_processes auto" starts: one per
// online CPU of the host (which reads the host's CPU facts, so rules call
// it once they know they will report).
func (p *Pass) countWorkers(m *mainSettings) {
	if m.auto && p.Host != nil && p.Host.CPUOnline().Known() {
		m.workers = p.Host.CPUOnline().Value
	}
}

// floor is the descriptors the sockets and cached files take when every
// slot is open; need is a limit that covers a file per slot too.
func (m mainSettings) floor() int { return knowledge.SocketsFloor(m.wc, m.cacheMax) }

func (m mainSettings) need() int { return knowledge.FDsNeeded(m.wc, m.cacheMax) }

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

// nginxDefaultConnections is nginx's worker_connections when none is set.
const nginxDefaultConnections = 512

// workersLimit is the open-file limit the workers run with, and where it
// comes from: worker_rlimit_nofile when the host can grant it, else the
// limit nginx is started with (the host's soft limit when facts are known,
// else systemd's default 1024). m is nil when no main file was read.
func (p *Pass) workersLimit(m *mainSettings) (int, string) {
	var nf host.Limit
	known := p.Host != nil && p.Host.NoFile().Known()
	if known {
		nf = p.Host.NoFile().Value
	}
	if m != nil && m.rlimitSet && m.rlimit > 0 {
		// setrlimit fails past fs.nr_open, and past the hard limit
		// without CAP_SYS_RESOURCE: the workers keep the master's limit
		above := known && nf.Hard != 0 && uint64(m.rlimit) > nf.Hard ||
			p.Host != nil && p.Host.NrOpen().Known() && uint64(m.rlimit) > p.Host.NrOpen().Value
		if !above {
			return m.rlimit, "worker_rlimit_nofile"
		}
	}
	if known && nf.Soft != 0 && nf.Soft < 1<<31 {
		return int(nf.Soft), "the soft limit nginx gets, " + p.Host.NoFile().Source
	}
	return softLimit, "without worker_rlimit_nofile, the limit nginx commonly starts with"
}

// loadedModules lists the modules the tree's load_module lines load, by
// file name without ".so" (ngx_http_js_module).
func (p *Pass) loadedModules() []string {
	var out []string
	p.Each(func(d *parser.Directive, c *parser.Context) {
		base := d.Arg(0)
		if i := strings.LastIndex(base, "/"); i >= 0 {
			base = base[i+1:]
		}
		out = append(out, strings.TrimSuffix(base, ".so"))
	}, "load_module")
	return out
}

func cacheNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" with %d open_file_cache entries", n)
}
