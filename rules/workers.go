package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// mainLevel returns the directives of the main context of every root that is
// a main file, with the root.
func mainRoots(t *parser.Tree) []*parser.File {
	var out []*parser.File
	for _, r := range t.Roots {
		if len(r.Context) == 1 && r.Context[0] == parser.CtxMain && r.ContextSource == "root" {
			out = append(out, r)
		}
	}
	return out
}

// proxies reports whether the tree passes requests to backends.
func (p *Pass) proxies() bool {
	found := false
	p.each(func(d *parser.Directive, c *parser.Context) { found = true },
		"proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "memcached_pass")
	return found
}

// openFileCacheMax returns the largest open_file_cache max= in the tree.
func (p *Pass) openFileCacheMax() int {
	m := 0
	p.each(func(d *parser.Directive, c *parser.Context) {
		for _, a := range d.Args {
			if v, ok := strings.CutPrefix(a.Value, "max="); ok {
				if n, err := strconv.Atoi(v); err == nil && n > m {
					m = n
				}
			}
		}
	}, "open_file_cache")
	return m
}

// softLimit is the open-file limit services commonly start with: systemd's
// default soft limit since v240, and most shells' ulimit -n.
const softLimit = 1024

// rlimitFix adds worker_rlimit_nofile before the events block of the root,
// or returns nil when the events block is in another file.
func (p *Pass) rlimitFix(r *parser.File, need int) *finding.Fix {
	var fix *finding.Fix
	for _, ev := range p.index.find(r.Directives, "events") {
		if ev.File == r {
			fix = &finding.Fix{Description: fmt.Sprintf("add worker_rlimit_nofile %d;", need),
				Edits: []finding.Edit{insertBefore(ev, fmt.Sprintf("worker_rlimit_nofile %d;", need))}}
		}
	}
	return fix
}

var workerFDLimit = &Rule{
	Doc: Doc{
		ID:    "worker-fd-limit",
		Title: "worker_connections that the open-file limit cannot carry",
		Why: `Every connection is a file descriptor. worker_connections counts all of a worker's
connections, the backend side of proxied requests included (a proxied request takes two
slots, so a worker proxies at most half of worker_connections clients), so sockets never
exceed worker_connections; on top come open_file_cache entries and at most one file per slot
being sent or buffered to disk. Without worker_rlimit_nofile, workers keep the limit nginx was started with, commonly a
soft limit of 1024 (systemd's default for services, and most shells'). Past it, accept()
and connect() fail with "Too many open files" and clients see resets and 500s, whatever
worker_connections says.`,
		Fix: `Set worker_rlimit_nofile in the main context to at least the descriptors a worker needs:
twice worker_connections (a socket and a file per slot), plus open_file_cache entries and 64
for logs and listening sockets. The rule reports when even the sockets alone cannot fit.
Raise the service's LimitNOFILE too when it is lower (see nginxtune gen). With host facts
(lint --host or --facts) host-fd-limit checks against the limit the host really gives instead.`,
		Bad: `worker_processes auto;
events {
    worker_connections 4096;
}
http {
    server { listen 80; location / { proxy_pass http://app; } }
    upstream app { server 127.0.0.1:8080; keepalive 32; }
}
`,
		Good: `worker_processes auto;
worker_rlimit_nofile 8256;
events {
    worker_connections 4096;
}
http {
    server { listen 80; location / { proxy_pass http://app; } }
    upstream app { server 127.0.0.1:8080; keepalive 32; }
}
`,
		Severity: finding.Warning,
		Category: CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources: []string{
			"nginx docs: ngx_core_module worker_connections, worker_rlimit_nofile",
			"nginx blog: Avoiding the Top 10 NGINX Configuration Mistakes (file descriptors, 2x rule)",
		},
	},
	Check: checkWorkerFDLimit,
}

func checkWorkerFDLimit(p *Pass) {
	for _, r := range mainRoots(p.Tree) {
		m := p.mainSettings(r)
		if m.wcDir == nil || !m.wcSet {
			continue
		}
		at := m.wcDir // reported at worker_connections, or at the rlimit directive when there is one
		if m.rlimitDir != nil {
			at = m.rlimitDir
		}
		if !p.wanted(at) {
			continue
		}
		if p.Host != nil && p.Host.NoFile().Known() {
			return // host-fd-limit compares with the limit this host really gives
		}
		need, floor := m.need(), m.floor()
		if m.rlimitDir == nil {
			// the limit is only assumed here: the idle worker's own
			// descriptors are not counted against it, as nginx's own check
			// does not (it warns when connections exceed the limit)
			if floor-knowledge.IdleWorkerFDs <= softLimit {
				continue
			}
			diag := p.Diag(m.wcDir, "worker_connections %d%s takes %d descriptors per worker when every slot is open; without "+
				"worker_rlimit_nofile a worker keeps nginx's start limit, commonly %d; add \"worker_rlimit_nofile %d;\" (a socket and a file per slot)%s",
				m.wc, cacheNote(m.cacheMax), floor, softLimit, need, m.proxyNote())
			diag.Fix = p.rlimitFix(r, need)
			p.Report(diag)
			continue
		}
		if !m.rlimitSet || m.rlimit >= floor {
			continue
		}
		diag := p.Diag(m.rlimitDir, "worker_rlimit_nofile %d is below the %d descriptors worker_connections %d%s takes when every slot is open; write %d (a socket and a file per slot)%s",
			m.rlimit, floor, m.wc, cacheNote(m.cacheMax), need, m.proxyNote())
		diag.Fix = &finding.Fix{Description: fmt.Sprintf("raise worker_rlimit_nofile to %d", need),
			Edits: []finding.Edit{replaceArg(m.rlimitDir, 0, strconv.Itoa(need))}}
		p.Report(diag)
	}
}

var workerProcesses = &Rule{
	Doc: Doc{
		ID:    "worker-processes",
		Title: "A fixed worker count where auto fits",
		Why: `A fixed worker_processes does not follow the host it is deployed to. A single worker uses
one core: on our two-core machine worker_processes 1 served 0.73-0.92 times the requests of
auto for 1 KB files and 0.80-0.87 times for 40 KB over HTTPS. "auto" starts one worker per
online CPU. (In a container with a CPU quota, auto still counts every CPU of the host; there a
number equal to the quota is right: nginxtune lint --host checks that.)`,
		Fix:      `Write "worker_processes auto;" unless the host's CPU quota calls for a smaller number.`,
		Bad:      "worker_processes 1;\nevents {}\n",
		Good:     "worker_processes auto;\nevents {}\n",
		Severity: finding.Info,
		Category: CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all (auto since 1.3.8 / 1.2.5)",
		Sources:  []string{"nginx docs: ngx_core_module worker_processes", "docs/measurements.md: worker_processes 1 against auto"},
	},
	Check: checkWorkerProcesses,
}

func checkWorkerProcesses(p *Pass) {
	for _, r := range mainRoots(p.Tree) {
		// a whole nginx.conf without worker_processes runs one worker
		if len(findIn(r.Directives, "worker_processes")) == 0 && len(findIn(r.Directives, "events")) > 0 && !p.Tree.HasUnread() && !mainIncludes(r) && deployed(r) {
			ev := findIn(r.Directives, "events")[0]
			value := "auto"
			if n := p.quotaWorkers(ev); n > 0 {
				value = strconv.Itoa(n) // what host-workers asks for where auto counts too many
			}
			diag := p.Diag(ev, "no worker_processes: nginx starts one worker, which uses one core whatever the host has (measured: 0.73-0.92x of auto on 1 KB files); add \"worker_processes %s;\"", value)
			diag.Fix = &finding.Fix{Description: "add worker_processes " + value, Edits: []finding.Edit{insertBefore(ev, "worker_processes "+value+";")}}
			p.Report(diag)
		}
		for _, d := range findIn(r.Directives, "worker_processes") {
			n, err := strconv.Atoi(d.Arg(0))
			if err != nil {
				continue
			}
			if p.quotaWorkers(d) > 0 {
				continue // auto would start too many here: host-workers judges the number
			}
			msg := fmt.Sprintf("worker_processes %d is fixed: \"auto\" starts one worker per CPU of the host it runs on", n)
			if n == 1 {
				msg = "worker_processes 1 uses one core whatever the host has (measured: 0.73-0.92x of auto on 1 KB files); write \"auto\""
			}
			diag := p.Diag(d, "%s", msg)
			diag.Fix = &finding.Fix{Description: "use worker_processes auto", Edits: []finding.Edit{replaceArg(d, 0, "auto")}}
			p.Report(diag)
		}
	}
}

// quotaWorkers is the CPUs nginx may use on a host whose quota or
// affinity leaves fewer than the online CPUs "auto" counts (host facts
// given), else 0: there host-workers asks for that number, and auto is no
// fix (the two rules would undo each other's fix).
func (p *Pass) quotaWorkers(at *parser.Directive) int {
	if p.Host == nil || !p.wanted(at) || !p.Host.CPUOnline().Known() {
		return 0
	}
	if usable := p.Host.UsableCPUs(); usable > 0 && usable < p.Host.CPUOnline().Value {
		return usable
	}
	return 0
}

// mainIncludes reports whether a main file includes files at its top
// level, which may set what it does not.
func mainIncludes(r *parser.File) bool { return len(findIn(r.Directives, "include")) > 0 }

// deployed reports whether a main file reads as one a server runs (it names
// the workers' user, the pid file or the error log), not a test's or an
// example's bare skeleton.
func deployed(r *parser.File) bool {
	return len(findIn(r.Directives, "user")) > 0 || len(findIn(r.Directives, "pid")) > 0 || len(findIn(r.Directives, "error_log")) > 0
}
