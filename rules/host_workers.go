package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var hostWorkers = &engine.Rule{
	Doc: engine.Doc{
		ID:    "host-workers",
		Title: "More workers than the CPUs this host lets nginx use",
		Why: `Workers beyond the usable CPUs only add context switches and memory. "auto" counts the
online CPUs and ignores a cgroup CPU quota and the CPU affinity mask: in a container limited
to 2 CPUs on a 64-CPU host, auto starts 64 workers (one report had a 2-CPU pod start 128 and
get OOM-killed together with a large worker_connections).`,
		Fix:      `Set worker_processes to the usable CPU count (the quota rounded up) where auto overshoots it.`,
		Bad:      "# nginxtune-facts: cpus=64 quota=2\nworker_processes auto;\nevents {}\n",
		Good:     "# nginxtune-facts: cpus=64 quota=2\nworker_processes 2;\nevents {}\n",
		Severity: finding.Warning,
		Category: engine.CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx src/os/unix/ngx_posix_init.c (auto = _SC_NPROCESSORS_ONLN)", "nginx-gateway-fabric#5374"},
	},
	Check: check(checkHostWorkers),
}

func checkHostWorkers(p *Pass) {
	if p.Host == nil {
		return
	}
	for _, r := range mainRoots(p.Tree) {
		m := p.mainSettings(r)
		if m.workersDir == nil || !p.Wanted(m.workersDir) {
			continue
		}
		usable := p.Host.UsableCPUs()
		if usable == 0 {
			return
		}
		p.countWorkers(&m)
		why := cpuWhy(p.Host.CPUs())
		switch {
		case m.auto && m.workers > usable:
			diag := p.DiagArg(m.workersDir, 0, "worker_processes auto starts %d workers (the online CPUs), but only %d CPU(s) are usable here (%s); write worker_processes %d",
				m.workers, usable, why, usable)
			diag.Fix = &finding.Fix{Description: fmt.Sprintf("set worker_processes %d", usable), Edits: []finding.Edit{engine.ReplaceArg(m.workersDir, 0, strconv.Itoa(usable))}}
			p.Report(diag)
		case !m.auto && m.workers > usable:
			diag := p.DiagArg(m.workersDir, 0, "worker_processes %d is more than the %d CPU(s) usable here (%s)", m.workers, usable, why)
			diag.Fix = &finding.Fix{Description: fmt.Sprintf("set worker_processes %d", usable), Edits: []finding.Edit{engine.ReplaceArg(m.workersDir, 0, strconv.Itoa(usable))}}
			p.Report(diag)
		}
	}
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
