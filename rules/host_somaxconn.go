package rules

import (
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var hostSomaxconn = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module listen backlog", "Linux Documentation/networking/ip-sysctl.rst (somaxconn)"},
	},
	Check: check(checkHostSomaxconn),
}

func checkHostSomaxconn(p *Pass) {
	if p.Host == nil {
		return
	}
	seen := map[string]bool{} // addresses whose default backlog was reported
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "listen" || len(d.Args) == 0 || c.Has(parser.CtxMail) {
			return
		}
		backlog, explicit := knowledge.ListenBacklog, -1
		for i, a := range d.Args {
			if v, ok := strings.CutPrefix(a.Value, "backlog="); ok {
				if n, err := strconv.Atoi(v); err == nil {
					backlog, explicit = n, i
				}
			}
		}
		if !p.Wanted(d) {
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
				knowledge.ListenBacklog, limit, p.Host.Somaxconn().Source, limit)
		}
	}, "listen")
}
