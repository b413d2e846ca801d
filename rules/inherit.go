package rules

import (
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
)

// Rules about what a block inherits, and about the order of nginx's
// request phases.

// arrayFamilies are the directives an inner block replaces as a whole, and
// the handler that makes them matter ("" when they always do).
var arrayFamilies = []struct{ name, handler string }{
	{"add_header", ""},
	{"add_trailer", ""},
	{"proxy_set_header", protoHTTP},
	{"proxy_hide_header", protoHTTP},
	{"grpc_set_header", protoGRPC},
	{"fastcgi_param", protoFastCGI},
	{"uwsgi_param", protoUWSGI},
	{"scgi_param", protoSCGI},
}

// securityHeaders are named first when dropped.
var securityHeaders = map[string]bool{
	"strict-transport-security": true, "content-security-policy": true, "x-frame-options": true,
	"x-content-type-options": true, "referrer-policy": true, "permissions-policy": true,
	"cross-origin-opener-policy": true, "cross-origin-embedder-policy": true, "cross-origin-resource-policy": true,
}

// usesHandler reports whether a block or a block below it passes requests
// with the named directive.
func usesHandler(b *parser.Directive, name string) bool {
	found := false
	walkDirs(b.Block, func(x *parser.Directive) { found = found || x.Name == name })
	return found
}

var headerInheritance = &Rule{
	Doc: Doc{
		ID:    "header-inheritance",
		Title: "add_header (or proxy_set_header, fastcgi_param, ...) in a block drops every inherited one",
		Why: `add_header, proxy_set_header, fastcgi_param and their kin are inherited from the outer block
only when a block has none of its own. One "add_header Cache-Control ..." in a location
silently removes the Strict-Transport-Security, Content-Security-Policy and X-Frame-Options
the server sets; one proxy_set_header in a location drops the server's Host and
X-Forwarded-For; one fastcgi_param drops everything "include fastcgi_params" set outside.
nginx reports nothing. From nginx 1.29.3 "add_header_inherit merge;" makes add_header
(add_trailer_inherit for trailers) add to the inherited set instead.`,
		Fix: `Repeat the inherited ones in the block (put them in a snippet and include it at both levels),
or, with nginx 1.29.3 or later, "add_header_inherit merge;".`,
		Bad:      "events {}\nhttp {\n    server {\n        add_header X-Frame-Options DENY;\n        location /static/ {\n            add_header Cache-Control \"max-age=3600\";\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        add_header X-Frame-Options DENY;\n        location /static/ {\n            add_header X-Frame-Options DENY;\n            add_header Cache-Control \"max-age=3600\";\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all (add_header_inherit from 1.29.3)",
		Sources:  []string{"nginx docs: ngx_http_headers_module add_header, add_header_inherit (1.29.3)", "nginx docs: ngx_http_proxy_module proxy_set_header", "gixy: add_header_redefinition (the check's idea; written anew here)"},
	},
	Check: checkHeaderInheritance,
}

// checkHeaderInheritance visits the directives of the families, not every
// block: each block that sets one is judged once per family.
func checkHeaderInheritance(p *Pass) {
	// the directives of one block share their context: a block is judged
	// when the walk first meets one of its directives of a family (a block
	// met again after a nested one reports the same finding, which Run
	// drops as a duplicate)
	last := map[string]*parser.Context{}
	names := make([]string, len(arrayFamilies))
	handler := map[string]string{}
	// the names a block sets and the inherited ones already listed, kept
	// between blocks (cleared) instead of made for each
	have, seen := map[string]bool{}, map[string]bool{}
	for i, f := range arrayFamilies {
		names[i] = f.name
		handler[f.name] = f.handler
	}
	p.each(func(d *parser.Directive, c *parser.Context) {
		n := len(c.Blocks)
		if n == 0 || inStream(c) {
			return
		}
		b := c.Blocks[n-1]
		if last[d.Name] == c {
			return
		}
		last[d.Name] = c
		switch b.Name {
		case "server", "location", "limit_except":
		case "if":
			if len(c.Names) < 2 || c.Names[len(c.Names)-2] != parser.CtxLocation {
				return
			}
		default:
			return
		}
		fam := d.Name
		outer := p.Effective(c.Blocks[:n-1], c.Root, fam)
		if !outer.Found() {
			return
		}
		if h := handler[fam]; h != "" && !usesHandler(b, h) {
			return
		}
		if fam == "add_header" || fam == "add_trailer" {
			if s := p.Effective(c.Blocks, c.Root, fam+"_inherit"); s.Found() && s.Last().Arg(0) != "on" {
				return // merge adds to the inherited set; off drops it on purpose
			}
		}
		inner := p.index.find(b.Block, fam)
		clear(have)
		for _, x := range inner {
			have[strings.ToLower(x.Arg(0))] = true
		}
		var first, rest []string
		clear(seen)
		for _, x := range outer.Dirs {
			name := strings.ToLower(x.Arg(0))
			if have[name] || seen[name] || x.Arg(1) == "" && fam != "proxy_hide_header" {
				continue // an empty value sets nothing to lose
			}
			seen[name] = true
			if securityHeaders[name] {
				first = append(first, x.Arg(0))
			} else {
				rest = append(rest, x.Arg(0))
			}
		}
		dropped := append(first, rest...)
		if len(dropped) == 0 || len(inner) == 0 {
			return
		}
		list := strings.Join(dropped, ", ")
		if len(dropped) > 6 {
			list = strings.Join(dropped[:6], ", ") + fmt.Sprintf(" and %d more", len(dropped)-6)
		}
		from := "the enclosing block"
		if outer.Level != nil {
			from = outer.Level.Name + " at " + where(outer.Level)
		} else if len(outer.Dirs) > 0 {
			from = where(outer.Dirs[0])
		}
		verb := "no longer apply"
		if len(dropped) == 1 {
			verb = "no longer applies"
		}
		diag := p.Diag(inner[0], "this %s replaces the ones inherited from %s: %s %s in this %s; repeat them here or include a shared snippet at both levels",
			fam, clip(from), clip(list), verb, b.Name)
		// first the block that loses them (an editor's jump goes where the
		// header is missing), then where each lost one is set
		// (messages joined, not formatted: a tree of thousands of such
		// blocks makes this rule the longest of a lint)
		diag.Related = append(diag.Related, relatedTo(b, "the "+b.Name+" that loses "+clip(list)))
		lost := ", and not inherited by the " + b.Name + " at " + where(b)
		for _, x := range outer.Dirs {
			if n := strings.ToLower(x.Arg(0)); !have[n] && len(diag.Related) < 11 {
				diag.Related = append(diag.Related, relatedTo(x, x.Name+" "+clip(x.Arg(0))+" is set here"+lost))
			}
		}
		p.Report(diag)
	}, names...)
}

var proxyPassNormalized = &Rule{
	Doc: Doc{
		ID:    "proxy-pass-normalized",
		Title: "proxy_pass with a URI part passes the decoded, normalized path",
		Why: `Without a URI part, proxy_pass sends the path as the client wrote it. With one
("proxy_pass http://app/;", "http://app/v1/"), nginx replaces the location's prefix in its own
decoded and normalized copy of the path: "%2F" arrives as "/", "/a/../b" as "/b", "//" as "/".
A backend that routes or checks permissions on encoded paths then sees something other than
what the client sent, and a path that looked harmless to nginx can address something else on
the backend. A variable such as a capture of the path passes decoded text too: "%3F" becomes
a "?" that starts a query string of the client's choosing. The other way round, a "rewrite ...
break" to a URI that keeps the client's escapes ($request_uri, or a capture of a URI an earlier
rewrite set from it) is escaped again: /1/a%2Fb reaches the backend as /a%252Fb (measured with
nginx 1.22.1), unless proxy_pass's URI part has variables, which are sent as written.`,
		Fix: `Drop the URI part when the backend can take the original path ("proxy_pass http://app;"), or
pass $request_uri (rewriting the prefix with a map or rewrite) when the backend must see the
client's encoding.`,
		Bad:      "events {}\nhttp {\n    server {\n        location ~ ^/api/(.*)$ {\n            proxy_pass http://127.0.0.1:8080/$1;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /api/ {\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_proxy_module proxy_pass (a URI part, variables)", "docs/security.md", "gixy-next: proxy_pass_normalized (the check's idea; written anew here)"},
	},
	Check: checkProxyPassNormalized,
}

func checkProxyPassNormalized(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) || len(d.Args) == 0 || !strings.Contains(d.Arg(0), "://") {
			return
		}
		uri := strings.TrimPrefix(d.Arg(0), backendPart(d))
		// a rewrite ... break to a URI that holds the client's escapes
		// ($request_uri, or a capture of a URI an earlier rewrite set from
		// it): nginx escapes the rewritten URI again for the backend, so
		// %2F arrives as %252F (measured with nginx 1.22.1). A URI part with
		// variables is sent as written instead (measured: //a%2Fb%0d).
		if loc := c.Enclosing(parser.CtxLocation); loc != nil && c.In() == parser.CtxLocation && !strings.Contains(uri, "$") {
			for _, x := range level(loc.Block) {
				if x.Name != "rewrite" || x.Arg(2) != "break" {
					continue
				}
				if t := p.rewriteTaint(x, c, 0); t.encoded {
					diag := p.DiagArg(x, 1, "rewrite to %s, which holds the client's percent-escapes as written: nginx encodes the rewritten URI again for %s, so %%2F reaches the backend as %%252F (measured); pass it as \"proxy_pass %s%s;\" instead", t.via, d.Name, clip(backendPart(d)), clip(x.Arg(1)))
					diag.Severity = finding.Warning
					p.Report(diag)
					return
				}
			}
		}
		if uri == "" {
			return
		}
		if strings.Contains(uri, "$") {
			t := p.taintOf(uri, d, c)
			if t.decoded && !t.newline && t.reserved { // with a line break, header-injection reports it
				p.ReportSeverityf(finding.Warning, d, "proxy_pass passes %s, the decoded path: %%3F becomes a \"?\" that starts a query string and %%2F a \"/\" the backend routes on; pass $request_uri, or no URI part", t.via)
			}
			return
		}
		if strings.Contains(d.Arg(0), "$") {
			return // with variables the URI part replaces the whole path: nothing of the client's is passed
		}
		loc := c.Enclosing(parser.CtxLocation)
		if loc == nil || c.In() != parser.CtxLocation {
			return
		}
		// an exact location's URI is replaced whole: nothing of the
		// client's path is passed
		prefix, ok := locationIsPrefix(loc)
		if !ok {
			return
		}
		// a rewrite ... break in the location (the raw-path idiom): nginx
		// ignores the URI part and passes the rewritten URI
		for _, x := range level(loc.Block) {
			if x.Name == "rewrite" && x.Arg(2) == "break" {
				return
			}
		}
		p.ReportArgf(d, 0, "with the URI part %s nginx replaces the prefix %s in its own decoded, normalized copy of the path, not the client's: %%2F arrives as \"/\", /a/../b as /b; write the address without a URI part if the backend can take the original path",
			clip(uri), clip(prefix))
	}, protoHTTP)
}

// accessDirectives are checked in nginx's access phase, after rewrite.
var accessDirectives = []string{"deny", "auth_basic", "auth_request", "auth_pam", "auth_jwt", "satisfy"}

var returnBypassesAccess = &Rule{
	Doc: Doc{
		ID:    "return-bypasses-access",
		Title: "return answers before allow/deny and auth are checked",
		Why: `nginx handles a request in phases: rewrite (return, rewrite, set, if) runs before access
(allow/deny, auth_basic, auth_request). A "return 200 ..." in a location guarded by "deny
all;" or auth_basic — its own or inherited — answers everyone, and the guard never runs.
Redirects and error codes are usually harmless; a 2xx with content is the guarded content.`,
		Fix:      `Move the answer into a handler that runs after access (a file, or proxy_pass), or check the client in the rewrite phase too ("if ($remote_addr != ...) { return 403; }", or a geo/map).`,
		Bad:      "events {}\nhttp {\n    server {\n        location /health {\n            allow 10.0.0.0/8;\n            deny all;\n            return 200 \"db=ok queue=12\";\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    geo $internal { default 0; 10.0.0.0/8 1; }\n    server {\n        location /health {\n            if ($internal = 0) { return 403; }\n            return 200 \"db=ok queue=12\";\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: Development guide, HTTP phases (rewrite before access)", "nginx docs: ngx_http_rewrite_module return"},
	},
	Check: checkReturnBypassesAccess,
}

func checkReturnBypassesAccess(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) || len(d.Args) == 0 || c.In() == parser.CtxMain || c.In() == parser.CtxHTTP {
			return
		}
		code := d.Arg(0)
		if !strings.HasPrefix(code, "2") || code == "204" || len(code) != 3 {
			return // redirects, errors and empty answers give nothing away
		}
		for _, name := range accessDirectives {
			s := p.Effective(c.Blocks, c.Root, name)
			if !s.Found() || s.Last().Arg(0) == "off" || name == "satisfy" {
				continue
			}
			diag := p.Diag(d, "return %s answers in the rewrite phase, before the %s at %s is checked: everyone gets this answer; check the client in the rewrite phase (geo/map + if) or serve it from a handler",
				code, name, where(s.Last()))
			diag.Related = []finding.Related{relatedTo(s.Last(), "the "+name+" this return bypasses")}
			p.Report(diag)
			return
		}
	}, "return")
}
