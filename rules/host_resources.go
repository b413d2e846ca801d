package rules

// Host rules about what the machine offers: CPUs, memory, the modules the
// installed nginx was built with.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

var hostWorkers = &Rule{
	Doc: Doc{
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
		Category: CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx src/os/unix/ngx_posix_init.c (auto = _SC_NPROCESSORS_ONLN)", "nginx-gateway-fabric#5374"},
	},
	Check: checkHostWorkers,
}

func checkHostWorkers(p *Pass) {
	if p.Host == nil {
		return
	}
	for _, r := range mainRoots(p.Tree) {
		m := p.mainSettings(r)
		if m.workersDir == nil || !p.wanted(m.workersDir) {
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
			diag.Fix = &finding.Fix{Description: fmt.Sprintf("set worker_processes %d", usable), Edits: []finding.Edit{replaceArg(m.workersDir, 0, strconv.Itoa(usable))}}
			p.Report(diag)
		case !m.auto && m.workers > usable:
			diag := p.DiagArg(m.workersDir, 0, "worker_processes %d is more than the %d CPU(s) usable here (%s)", m.workers, usable, why)
			diag.Fix = &finding.Fix{Description: fmt.Sprintf("set worker_processes %d", usable), Edits: []finding.Edit{replaceArg(m.workersDir, 0, strconv.Itoa(usable))}}
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

var hostMemory = &Rule{
	Doc: Doc{
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
		Category: CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"docs/cost-model.md (slot size measured against nginx source; module buffer defaults; gzip state from ngx_http_gzip_filter_module.c)"},
	},
	Check: checkHostMemory,
}

func checkHostMemory(p *Pass) {
	if p.Host == nil {
		return
	}
	for _, r := range mainRoots(p.Tree) {
		m := p.mainSettings(r)
		if m.wcDir == nil || !p.wanted(m.wcDir) {
			continue
		}
		if p.Host.Memory() == 0 {
			return
		}
		p.countWorkers(&m)
		tls, gzip := false, false
		p.each(func(d *parser.Directive, c *parser.Context) {
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

var hostModuleMissing = &Rule{
	Doc: Doc{
		ID:    "host-module-missing",
		Title: "A directive whose module the installed nginx was not built with",
		Why: `nginx -t fails with "unknown directive" (or "invalid parameter" for listen) when the
binary lacks the module: a configuration written for another build breaks the reload.`,
		Fix:      `Install a build with the module (Debian: nginx-full or nginx-extras, or the libnginx-mod-* package), load the dynamic module with load_module, or remove the directive.`,
		Bad:      "# nginxtune-facts: configure=--with-http_ssl_module\nevents {}\nhttp { server { listen 443 ssl http2; } }\n",
		Good:     "# nginxtune-facts: configure=--with-http_ssl_module,--with-http_v2_module\nevents {}\nhttp { server { listen 443 ssl http2; } }\n",
		Severity: finding.Error,
		Category: CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: Building nginx from Sources (configure options)"},
	},
	Check: checkHostModuleMissing,
}

func checkHostModuleMissing(p *Pass) {
	if p.Host == nil || !p.Host.NginxConfigure().Known() {
		moduleNotLoaded(p)
		return
	}
	args := p.Host.NginxConfigure().Value
	loaded := p.loadedModules()
	need := needOf()
	// has answers whether the module is there: built in, or built as a
	// dynamic module (--with-X=dynamic, --add-dynamic-module) and loaded
	// by the tree. dynamic says it was built as one and the tree does not
	// load it: nginx -t fails with "unknown directive" unless an include
	// the tree left unread (Debian's modules-enabled, read from a copy)
	// loads it.
	has := func(n knowledge.Need) (present, dynamic bool) {
		if loads(loaded, n) {
			return true, false
		}
		for _, a := range args {
			switch {
			case n.Option != "" && a == n.Option:
				return true, false
			case n.Option != "" && a == n.Option+"=dynamic":
				dynamic = true
			case n.Source != "" && strings.HasPrefix(a, "--add-module=") && strings.Contains(normal(a), normal(n.Source)):
				return true, false
			case n.Source != "" && strings.HasPrefix(a, "--add-dynamic-module=") && strings.Contains(normal(a), normal(n.Source)):
				dynamic = true
			}
		}
		return false, dynamic
	}
	report := func(d *parser.Directive, n knowledge.Need, what string) {
		present, dynamic := has(n)
		if present {
			return
		}
		need := n.Option
		if need == "" {
			need = "the third-party " + n.Source + " module (" + n.Module + ")"
		}
		if dynamic {
			msg := fmt.Sprintf("%s needs %s.so, a dynamic module of this nginx (%s) that no load_module in the tree loads: nginx -t fails with \"unknown directive\". Debian: install its libnginx-mod-* package, which enables it in modules-enabled", what, n.SO, p.Host.NginxConfigure().Source)
			if p.Tree.HasUnread() {
				p.ReportSeverityf(finding.Warning, d, "%s, unless an include nginxtune did not read loads it", msg)
				return
			}
			p.Reportf(d, "%s", msg)
			return
		}
		p.Reportf(d, "%s needs %s, which this nginx (%s) was not built or loaded with: nginx -t fails", what, need, p.Host.NginxConfigure().Source)
	}
	p.eachDirective(func(d *parser.Directive, c *parser.Context) {
		if d.Name == "listen" {
			for _, param := range []string{"ssl", "http2", "quic"} {
				if n, ok := knowledge.NeedOf("listen:"+param, false, false); ok && hasArg(d, param) >= 0 && !c.Has("stream") && !c.Has("mail") {
					report(d, n, "listen ... "+param)
				}
			}
			return
		}
		key := d.Name
		if d.Name == "aio" && d.Arg(0) == "threads" {
			key = "thread_pool"
		}
		if n, ok := need(key, c); ok {
			report(d, n, d.Name)
		}
	})
}

// normal folds a module name or path for comparison: headers-more and
// headers_more are one.
func normal(s string) string { return strings.ToLower(strings.ReplaceAll(s, "-", "_")) }

// moduleNotLoaded warns, without facts about the nginx that runs a whole
// tree, of directives whose module nginx does not build in (perl, njs,
// image_filter, xslt, geoip, third-party modules) when no load_module of
// the tree loads it: a stock build (nginx.org's packages, Debian's
// without the libnginx-mod-* package) fails with "unknown directive".
// Trees that left something unread (Debian's modules-enabled read from a
// copy) may load it there and are left alone.
func moduleNotLoaded(p *Pass) {
	if len(mainRoots(p.Tree)) == 0 || p.Tree.HasUnread() {
		return
	}
	loaded := p.loadedModules()
	need := needOf()
	said := map[string]bool{}
	p.eachDirective(func(d *parser.Directive, c *parser.Context) {
		n, ok := need(d.Name, c)
		if !ok || n.SO == "" && n.Source == "" || said[n.SO] {
			return
		}
		// the dynamic modules of nginx's own source, and third-party ones;
		// --with-X modules that cannot be dynamic are the build's business
		if n.Source == "" && !dynamicModule[n.SO] {
			return
		}
		if loads(loaded, n) {
			return
		}
		said[n.SO] = true
		what := n.Module
		if n.Source != "" {
			what = "the third-party " + n.Source + " module (" + n.Module + ")"
		}
		p.ReportSeverityf(finding.Warning, d, "%s comes from %s, which no load_module here loads. Unless this build has it (OpenResty, a custom build), nginx -t fails with \"unknown directive\"; load %s.so (Debian: its libnginx-mod-* package)", d.Name, what, n.SO)
	})
}

// dynamicModule are the modules of nginx's own source that both nginx.org's
// and Debian's packages build as dynamic modules, loaded with load_module
// (stream and mail are built in by nginx.org's packages, dynamic only in
// Debian's: without facts, not judged).
var dynamicModule = map[string]bool{
	"ngx_http_perl_module": true, "ngx_http_image_filter_module": true, "ngx_http_xslt_filter_module": true,
	"ngx_http_geoip_module": true, "ngx_stream_geoip_module": true,
}

// loadedModules lists the modules the tree's load_module lines load, by
// file name without ".so" (ngx_http_js_module).
func (p *Pass) loadedModules() []string {
	var out []string
	p.each(func(d *parser.Directive, c *parser.Context) {
		base := d.Arg(0)
		if i := strings.LastIndex(base, "/"); i >= 0 {
			base = base[i+1:]
		}
		out = append(out, strings.TrimSuffix(base, ".so"))
	}, "load_module")
	return out
}

// loads reports whether one of the loaded modules is the one n needs: its
// .so by name, or a third-party source's by a fragment of the name.
func loads(loaded []string, n knowledge.Need) bool {
	for _, l := range loaded {
		if n.SO != "" && l == n.SO || n.Source != "" && strings.Contains(normal(l), normal(n.Source)) {
			return true
		}
	}
	return false
}

// needOf returns knowledge.NeedOf remembered per name and family for one
// walk: the walks ask it for every directive of the tree, and
// knowledge.Lookup takes a lock each time.
func needOf() func(name string, c *parser.Context) (knowledge.Need, bool) {
	type answer struct {
		n  knowledge.Need
		ok bool
	}
	type key struct {
		name         string
		stream, mail bool
	}
	memo := map[key]answer{}
	return func(name string, c *parser.Context) (knowledge.Need, bool) {
		stream, mail := c.Has("stream"), c.Has("mail")
		k := key{name, stream, mail}
		if a, ok := memo[k]; ok {
			return a.n, a.ok
		}
		n, ok := knowledge.NeedOf(name, stream, mail)
		memo[k] = answer{n, ok}
		return n, ok
	}
}
