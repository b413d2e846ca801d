package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var ssrf = &engine.Rule{
	Doc: engine.Doc{
		ID:    "ssrf",
		Title: "The request chooses the backend (server-side request forgery)",
		Why: `When the host of proxy_pass (or fastcgi_pass, grpc_pass, ...) is built from something the
client sends — a header, an argument, the path, a capture of it, or a "set" or "map" fed from
them — the client decides where nginx connects: internal services, the cloud metadata address
169.254.169.254, the admin port on localhost. nginx then answers with what it fetched.`,
		Fix: `Choose among fixed backends with a map whose values are fixed strings ("map $http_x_app
$backend { app1 10.0.0.1:8080; default 10.0.0.2:8080; }"), or constrain the capture with an
anchored regex of the allowed names; keep request data in the path, after a fixed host.`,
		Bad:      "events {}\nhttp {\n    server {\n        location ~ ^/fetch/([^/]+)/(.*)$ {\n            proxy_pass http://$1/$2;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location ~ ^/fetch/(app1|app2)/(.*)$ {\n            proxy_pass http://$1.internal:8080/$2;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_proxy_module proxy_pass (variables)", "docs/security.md (what the request controls)", "gixy: ssrf (the check's idea; written anew here)"},
	},
	Check: check(checkSsrf),
}

// pathCapture cuts part at the first capture whose group must start with
// "/": such a capture begins the path, it cannot name the host.
func pathCapture(part string, d *parser.Directive, c *parser.Context) string {
	for _, r := range knowledge.VarRefs(part) {
		var src regexSource
		n, ok := 0, false
		if r.Kind == knowledge.Capture {
			src, ok = captureSource(d, c)
			n = int(r.Name[0] - '0')
		} else {
			src, n, ok = namedCapture(r.Name, d, c)
		}
		if !ok {
			continue
		}
		if frag, found := groupPattern(src.re, n); found && (strings.HasPrefix(frag, "/") || strings.HasPrefix(frag, `\/`)) {
			return part[:r.Start]
		}
	}
	return part
}

func checkSsrf(p *Pass) {
	p.Each(func(d *parser.Directive, c *parser.Context) {
		// the backend part is the start of the argument: without a "$" in
		// it, it takes nothing from the request (most *_pass)
		if engine.InStream(c) || len(d.Args) == 0 || strings.IndexByte(d.Arg(0), '$') < 0 {
			return
		}
		part := pathCapture(backendPart(d), d, c)
		if !strings.Contains(part, "$") {
			return
		}
		t := p.taintOf(part, d, c)
		// "proxy_pass $u" with "set $u http://127.0.0.1:9000$request_uri":
		// the host is the one of the values set
		if name, whole := soleVar(part); whole && t.picks {
			if u, ok := p.setBackends(name, d.Name); ok {
				t = u
			}
		}
		if !t.picks {
			return
		}
		internal := false
		if loc := c.Enclosing(parser.CtxLocation); loc != nil && len(p.Find(loc.Block, "internal")) > 0 {
			internal = true
		}
		// the host fixed, only the port chosen: any service of that host
		hostPart, hasScheme := part, false
		if _, after, ok := strings.Cut(part, "://"); ok {
			hostPart, hasScheme = after, true
		}
		if i := strings.LastIndex(hostPart, ":"); hasScheme && i > 0 && !strings.Contains(hostPart[i:], "]") {
			if host := hostPart[:i]; !p.taintOf(host, d, c).picks {
				diag := p.DiagArg(d, 0, "%s takes the port of %s from %s, which the client sends: it can reach any service listening on that host; map the allowed values to fixed ports",
					d.Name, engine.Clip(host), t.via)
				diag.Severity = finding.Warning
				p.Report(diag)
				return
			}
		}
		if internal {
			// reached only through a redirect of nginx's own, or a
			// backend's X-Accel-Redirect, which the tree does not show
			diag := p.DiagArg(d, 0, "%s takes its backend from %s in an internal location: clients reach it only through an internal redirect (X-Accel-Redirect, error_page, try_files); if that route carries what they send, it can make nginx connect anywhere", d.Name, t.via)
			diag.Severity = finding.Info
			p.Report(diag)
			return
		}
		p.ReportArgf(d, 0, "%s takes its backend from %s, which the client sends: it can make nginx connect anywhere (internal services, 169.254.169.254); map the allowed values to fixed backends",
			d.Name, t.via)
	}, passNames...)
}

// setBackends is the taint of the backend part of every value "set" gives
// name, when only set gives it (no map, no capture): each value is read
// as the URL it becomes.
func (p *Pass) setBackends(name, directive string) (taint, bool) {
	ts := p.taintScope()
	sets := ts.sets[name]
	if len(sets) == 0 || len(ts.maps[name]) > 0 {
		return taint{}, false
	}
	var t taint
	for _, s := range sets {
		part := pathCapture(backendOf(directive, s.d.Arg(1)), s.d, s.c)
		u := p.taintOf(part, s.d, s.c)
		if u.picks && !strings.Contains(u.via, "set $") {
			u.via = "$" + name + " (set from " + u.via + ")"
		}
		t = t.or(u)
	}
	return t, true
}
