package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var hostFileMax = &engine.Rule{
	Doc: engine.Doc{
		ID:    "host-file-max",
		Title: "All workers together may open more files than fs.file-max allows",
		Why: `fs.file-max caps the open files of the whole system. When workers times the per-worker
limit exceeds it, nginx (and everything else on the host) gets ENFILE under load before any
per-process limit is reached.`,
		Fix:      `Raise fs.file-max in /etc/sysctl.d (nginxtune gen writes the file), or lower worker_rlimit_nofile or the worker count.`,
		Bad:      "# nginxtune-facts: cpus=4 file-max=100000\nworker_processes auto;\nworker_rlimit_nofile 65536;\nevents { worker_connections 16384; }\n",
		Good:     "# nginxtune-facts: cpus=4 file-max=9223372036854775807\nworker_processes auto;\nworker_rlimit_nofile 65536;\nevents { worker_connections 16384; }\n",
		Severity: finding.Warning,
		Category: engine.CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"Linux Documentation/admin-guide/sysctl/fs.rst (file-max)"},
	},
	Check: check(checkHostFileMax),
}

func checkHostFileMax(p *Pass) {
	if p.Host == nil {
		return
	}
	for _, r := range mainRoots(p.Tree) {
		m := p.mainSettings(r)
		if m.anchor() == nil || !p.Wanted(m.anchor()) {
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
