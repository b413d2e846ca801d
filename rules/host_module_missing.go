package rules

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var hostModuleMissing = &engine.Rule{
	Doc: engine.Doc{
		ID:    "host-module-missing",
		Title: "A directive whose module the installed nginx was not built with",
		Why: `nginx -t fails with "unknown directive" (or "invalid parameter" for listen) when the
binary lacks the module: a configuration written for another build breaks the reload.`,
		Fix:      `Install a build with the module (Debian: nginx-full or nginx-extras, or the libnginx-mod-* package), load the dynamic module with load_module, or remove the directive.`,
		Bad:      "# nginxtune-facts: configure=--with-http_ssl_module\nevents {}\nhttp { server { listen 443 ssl http2; } }\n",
		Good:     "# nginxtune-facts: configure=--with-http_ssl_module,--with-http_v2_module\nevents {}\nhttp { server { listen 443 ssl http2; } }\n",
		Severity: finding.Error,
		Category: engine.CategoryHost,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: Building nginx from Sources (configure options)"},
	},
	Check: check(checkHostModuleMissing),
	Slow:  1,
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
	p.EachDirective(func(d *parser.Directive, c *parser.Context) {
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
	said := map[string]bool{}
	// knowledge.NeedOf per name and family (stream, mail), kept by the
	// name's number (Pass.VisitNames): asked for every directive of the
	// tree, and knowledge.Lookup takes a lock each time
	type answer struct {
		n        knowledge.Need
		ok, done bool
	}
	ids, names := p.VisitNames()
	memo := make([]answer, 4*len(names))
	var lastC *parser.Context
	family := 0
	for i, v := range p.Visits() {
		d, c := v.D, v.C
		if c != lastC {
			lastC, family = c, 0
			if c.Has("stream") {
				family |= 1
			}
			if c.Has("mail") {
				family |= 2
			}
		}
		a := &memo[4*int(ids[i])+family]
		if !a.done {
			a.n, a.ok = knowledge.NeedOf(names[ids[i]], family&1 != 0, family&2 != 0)
			a.done = true
		}
		n, ok := a.n, a.ok
		if !ok || n.SO == "" && n.Source == "" || said[n.SO] {
			continue
		}
		// the dynamic modules of nginx's own source, and third-party ones;
		// --with-X modules that cannot be dynamic are the build's business
		if n.Source == "" && !dynamicModule[n.SO] {
			continue
		}
		if loads(loaded, n) {
			continue
		}
		said[n.SO] = true
		what := n.Module
		if n.Source != "" {
			what = "the third-party " + n.Source + " module (" + n.Module + ")"
		}
		p.ReportSeverityf(finding.Warning, d, "%s comes from %s, which no load_module here loads. Unless this build has it (OpenResty, a custom build), nginx -t fails with \"unknown directive\"; load %s.so (Debian: its libnginx-mod-* package)", d.Name, what, n.SO)
	}
}

// dynamicModule are the modules of nginx's own source that both nginx.org's
// and Debian's packages build as dynamic modules, loaded with load_module
// (stream and mail are built in by nginx.org's packages, dynamic only in
// Debian's: without facts, not judged).
var dynamicModule = map[string]bool{
	"ngx_http_perl_module": true, "ngx_http_image_filter_module": true, "ngx_http_xslt_filter_module": true,
	"ngx_http_geoip_module": true, "ngx_stream_geoip_module": true,
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
