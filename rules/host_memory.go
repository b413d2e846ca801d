package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var hostMemory = &engine.Rule{
	Doc: engine.Doc{
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
		Severity: finding.Warning,
		Category: engine.CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"docs/cost-model.md (slot size measured against nginx source; module buffer defaults; gzip state from ngx_http_gzip_filter_module.c)"},
	},
	Check: check(checkHostMemory),
}

func checkHostMemory(p *Pass) {
	if p.Host == nil {
		return
	}
	for _, r := range mainRoots(p.Tree) {
		m := p.mainSettings(r)
		if m.wcDir == nil || !p.Wanted(m.wcDir) {
			continue
		}
		if p.Host.Memory() == 0 {
			return
		}
		p.countWorkers(&m)
		tls, gzip := false, false
		p.Each(func(d *parser.Directive, c *parser.Context) {
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
			memSource(p.Host.MemoryFacts()), strings.Join(parts, ", "), int(math.Floor(mem*knowledge.MemoryShare/float64(m.workers)/float64(per))))
	}
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
