package rules

import (
	"fmt"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var hostFDLimit = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources: []string{
			"nginx docs: ngx_core_module worker_rlimit_nofile, worker_connections",
			"Linux Documentation/admin-guide/sysctl/fs.rst (nr_open)",
			"systemd: default LimitNOFILE 1024:524288 since v240",
		},
	},
	Check: check(checkHostFDLimit),
}

func checkHostFDLimit(p *Pass) {
	if p.Host == nil {
		return
	}
	for _, r := range mainRoots(p.Tree) {
		m := p.mainSettings(r)
		at := m.anchor() // the findings' place (the rlimit directive when there is one)
		if at == nil || !p.Wanted(at) {
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
