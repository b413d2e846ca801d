package rules

import (
	"fmt"
	"strconv"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var workerFDLimit = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources: []string{
			"nginx docs: ngx_core_module worker_connections, worker_rlimit_nofile",
			"nginx blog: Avoiding the Top 10 NGINX Configuration Mistakes (file descriptors, 2x rule)",
		},
	},
	Check: check(checkWorkerFDLimit),
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
		if !p.Wanted(at) {
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
			Edits: []finding.Edit{engine.ReplaceArg(m.rlimitDir, 0, strconv.Itoa(need))}}
		p.Report(diag)
	}
}
