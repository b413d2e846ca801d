package rules

import (
	"fmt"
	"strconv"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var workerProcesses = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all (auto since 1.3.8 / 1.2.5)",
		Sources:  []string{"nginx docs: ngx_core_module worker_processes", "docs/measurements.md: worker_processes 1 against auto"},
	},
	Check: check(checkWorkerProcesses),
}

func checkWorkerProcesses(p *Pass) {
	for _, r := range mainRoots(p.Tree) {
		// a whole nginx.conf without worker_processes runs one worker
		if len(engine.FindIn(r.Directives, "worker_processes")) == 0 && len(engine.FindIn(r.Directives, "events")) > 0 && !p.Tree.HasUnread() && !mainIncludes(r) && deployed(r) {
			ev := engine.FindIn(r.Directives, "events")[0]
			value := "auto"
			if n := p.quotaWorkers(ev); n > 0 {
				value = strconv.Itoa(n) // what host-workers asks for where auto counts too many
			}
			diag := p.Diag(ev, "no worker_processes: nginx starts one worker, which uses one core whatever the host has (measured: 0.73-0.92x of auto on 1 KB files); add \"worker_processes %s;\"", value)
			diag.Fix = &finding.Fix{Description: "add worker_processes " + value, Edits: []finding.Edit{engine.InsertBefore(ev, "worker_processes "+value+";")}}
			p.Report(diag)
		}
		for _, d := range engine.FindIn(r.Directives, "worker_processes") {
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
			diag.Fix = &finding.Fix{Description: "use worker_processes auto", Edits: []finding.Edit{engine.ReplaceArg(d, 0, "auto")}}
			p.Report(diag)
		}
	}
}

// quotaWorkers is the CPUs nginx may use on a host whose quota or
// affinity leaves fewer than the online CPUs "auto" counts (host facts
// given), else 0: there host-workers asks for that number, and auto is no
// fix (the two rules would undo each other's fix).
func (p *Pass) quotaWorkers(at *parser.Directive) int {
	if p.Host == nil || !p.Wanted(at) || !p.Host.CPUOnline().Known() {
		return 0
	}
	if usable := p.Host.UsableCPUs(); usable > 0 && usable < p.Host.CPUOnline().Value {
		return usable
	}
	return 0
}

// mainIncludes reports whether a main file includes files at its top
// level, which may set what it does not.
func mainIncludes(r *parser.File) bool { return len(engine.FindIn(r.Directives, "include")) > 0 }

// deployed reports whether a main file reads as one a server runs (it names
// the workers' user, the pid file or the error log), not a test's or an
// example's bare skeleton.
func deployed(r *parser.File) bool {
	return len(engine.FindIn(r.Directives, "user")) > 0 || len(engine.FindIn(r.Directives, "pid")) > 0 || len(engine.FindIn(r.Directives, "error_log")) > 0
}
