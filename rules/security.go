package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/parser"
)

// Security and exposure rules (the first of the gixy family; see
// docs/rules.md). Each says what an attacker or a visitor gains.

// locationIsPrefix reports whether a location matches by prefix (no
// modifier, or ^~), and returns its path.
func locationIsPrefix(loc *parser.Directive) (string, bool) {
	switch len(loc.Args) {
	case 1:
		if strings.HasPrefix(loc.Arg(0), "@") {
			return "", false
		}
		return loc.Arg(0), true
	case 2:
		if loc.Arg(0) == "^~" {
			return loc.Arg(1), true
		}
	}
	return "", false
}

var aliasTraversal = &Rule{
	Doc: Doc{
		ID:    "alias-traversal",
		Title: "alias under a prefix location without a trailing slash (path traversal)",
		Why: `With "location /static { alias /srv/static/; }" a request for /static../secret.txt
matches the location (its prefix is /static), and nginx replaces the prefix with the alias:
/srv/static/../secret.txt, one directory above what was meant to be served. Any file beside
the aliased directory can be read.`,
		Fix:      `End the location with a slash when the alias does ("location /static/ { alias /srv/static/; }"), or use root where the path maps one to one.`,
		Bad:      "events {}\nhttp {\n    server {\n        location /static {\n            alias /srv/static/;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /static/ {\n            alias /srv/static/;\n        }\n    }\n}\n",
		Severity: Error,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module alias", "gixy: alias_traversal (the check's idea; written anew here)"},
	},
	Check: func(p *Pass) {
		p.each(func(d *parser.Directive, c *parser.Context) {
			if inStream(c) || c.In() != parser.CtxLocation || !strings.HasSuffix(d.Arg(0), "/") {
				return
			}
			loc := c.Enclosing(parser.CtxLocation)
			path, ok := locationIsPrefix(loc)
			if !ok || strings.HasSuffix(path, "/") || templated(path) || len(findIn(loc.Block, "return")) > 0 {
				return // a return answers before any file is read
			}
			diag := p.ReportArg(d, 0, "alias %s under \"location %s\" lets %s../ reach the directory above %s; write \"location %s/\"",
				clip(d.Arg(0)), clip(path), clip(path), clip(d.Arg(0)), clip(path))
			if i := len(loc.Args) - 1; i >= 0 {
				diag.Fix = &Fix{Description: "end the location with a slash", Edits: []Edit{replaceArg(loc, i, loc.Args[i].Raw+"/")}}
			}
		}, "alias")
	},
}

var errorLogOff = &Rule{
	Doc: Doc{
		ID:    "error-log-off",
		Title: `"error_log off" writes to a file named "off"`,
		Why: `error_log takes a file (or stderr, syslog:, memory:), not a switch: "error_log off;"
makes nginx write its errors to a file called "off" in its prefix directory, where nobody
looks, and the errors that explain an outage are lost to the people who need them.`,
		Fix:      `To keep the log small, raise the level ("error_log /var/log/nginx/error.log crit;"); to discard it, "error_log /dev/null crit;".`,
		Bad:      "error_log off;\nevents {}\n",
		Good:     "error_log /var/log/nginx/error.log crit;\nevents {}\n",
		Severity: Warning,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_core_module error_log"},
	},
	Check: func(p *Pass) {
		p.each(func(d *parser.Directive, c *parser.Context) {
			if d.Arg(0) == "off" {
				p.ReportArg(d, 0, "error_log off writes errors to a file named \"off\" in nginx's prefix; write \"error_log /var/log/nginx/error.log crit;\" (or /dev/null) instead")
			}
		}, "error_log")
	},
}

var validReferersNone = &Rule{
	Doc: Doc{
		ID:    "valid-referers-none",
		Title: `"valid_referers none" lets requests without a Referer through`,
		Why: `A referer check that accepts "none" accepts every request whose Referer header is
missing, and leaving it out is up to the client: hotlinking protection or a CSRF-style check
built on $invalid_referer is bypassed by any client that sends no Referer (a privacy extension,
a script, curl).`,
		Fix:      `Remove "none" where the check protects something; keep it only where it guards nothing but bandwidth.`,
		Bad:      "events {}\nhttp {\n    server {\n        valid_referers none server_names;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        valid_referers server_names;\n    }\n}\n",
		Severity: Warning,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_referer_module valid_referers"},
	},
	Check: func(p *Pass) {
		p.each(func(d *parser.Directive, c *parser.Context) {
			if i := hasArg(d, "none"); i >= 0 {
				p.ReportArg(d, i, "valid_referers none accepts every request that sends no Referer header, which any client can omit; remove \"none\" where $invalid_referer protects something")
			}
		}, "valid_referers")
	},
}

var headerMultiline = &Rule{
	Doc: Doc{
		ID:    "header-multiline",
		Title: "A header value that spans lines",
		Why: `A quoted value with a line break puts a raw newline into a response or request header:
clients and proxies split it into a second header or reject the response, and a value built
from parts of the request becomes header injection.`,
		Fix:      `Write the value on one line.`,
		Bad:      "events {}\nhttp {\n    add_header Content-Security-Policy \"default-src 'self';\n        img-src *\";\n}\n",
		Good:     "events {}\nhttp {\n    add_header Content-Security-Policy \"default-src 'self'; img-src *\";\n}\n",
		Severity: Warning,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"RFC 9110 5.5 (field values do not contain CR or LF)", "nginx docs: add_header, proxy_set_header"},
	},
	Check: func(p *Pass) {
		p.each(func(d *parser.Directive, c *parser.Context) {
			for i, a := range d.Args {
				if i > 0 && strings.ContainsAny(a.Value, "\r\n") || d.Name == "more_set_headers" && strings.ContainsAny(a.Value, "\r\n") {
					p.ReportArg(d, i, "the value of %s holds a line break, which splits the header in two or breaks the message; write it on one line", d.Name)
					return
				}
			}
		}, "add_header", "add_trailer", "proxy_set_header", "grpc_set_header", "more_set_headers", "more_set_input_headers")
	},
}

var autoindexOn = &Rule{
	Doc: Doc{
		ID:    "autoindex-on",
		Title: "Directory listings for anyone",
		Why: `"autoindex on" answers a request for a directory with the list of its files: backups,
editor swap files and anything copied there by mistake become discoverable. Where a listing is
meant, it is usually meant for some people only.`,
		Fix:      `Turn it off, or limit the location with allow/deny or auth_basic.`,
		Bad:      "events {}\nhttp {\n    server {\n        location /files/ {\n            autoindex on;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /files/ {\n            autoindex on;\n            auth_basic \"files\";\n            auth_basic_user_file /etc/nginx/htpasswd;\n        }\n    }\n}\n",
		Severity: Info,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_autoindex_module"},
	},
	Check: func(p *Pass) {
		p.each(func(d *parser.Directive, c *parser.Context) {
			if d.Arg(0) != "on" || p.restricted(c) {
				return
			}
			p.Report(d, "autoindex on lists the files of every directory here to anyone; limit it with allow/deny or auth_basic, or turn it off")
		}, "autoindex", "fancyindex")
	},
}

// restricted reports whether access to a place is limited: deny, auth or
// auth_request in effect.
func (p *Pass) restricted(c *parser.Context) bool {
	for _, name := range []string{"deny", "auth_basic", "auth_request", "auth_pam", "satisfy", "auth_jwt"} {
		if s := p.Effective(c.Blocks, c.Root, name); s.Found() && s.Last().Arg(0) != "off" || !s.Complete {
			return true
		}
	}
	return false
}

var statusPageExposed = &Rule{
	Doc: Doc{
		ID:    "status-page-exposed",
		Title: "A status page open to everyone",
		Why: `stub_status (and nginx Plus's api and status) tell anyone who asks how many connections
and requests the server handles: a load figure an attacker uses to time and measure an attack,
and, for api, an interface that can change the configuration.`,
		Fix:      `Allow the monitoring hosts and deny the rest ("allow 127.0.0.1; deny all;"), or require auth.`,
		Bad:      "events {}\nhttp {\n    server {\n        location = /nginx_status {\n            stub_status;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location = /nginx_status {\n            stub_status;\n            allow 127.0.0.1;\n            deny all;\n        }\n    }\n}\n",
		Severity: Warning,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_stub_status_module", "nginx docs: ngx_http_api_module"},
	},
	Check: func(p *Pass) {
		p.each(func(d *parser.Directive, c *parser.Context) {
			if inStream(c) || p.restricted(c) || listensOnLoopbackOnly(c) {
				return
			}
			p.Report(d, "%s answers anyone who asks; add \"allow <monitoring host>; deny all;\" or auth", d.Name)
		}, "stub_status", "api", "status")
	},
}

// listensOnLoopbackOnly reports whether the server around a place listens
// only on loopback addresses or unix sockets.
func listensOnLoopbackOnly(c *parser.Context) bool {
	srv := c.Enclosing(parser.CtxServer)
	if srv == nil {
		return false
	}
	listens := findIn(srv.Block, "listen")
	if len(listens) == 0 {
		return false
	}
	for _, l := range listens {
		a := l.Arg(0)
		if !strings.HasPrefix(a, "unix:") && !strings.HasPrefix(a, "127.") && !strings.HasPrefix(a, "[::1]") && !strings.HasPrefix(a, "localhost") {
			return false
		}
	}
	return true
}

var defaultServerMissing = &Rule{
	Doc: Doc{
		ID:    "default-server-missing",
		Title: "Several servers on one address, none marked default_server",
		Why: `A request whose Host matches no server_name goes to the default server of its address and
port: the one marked default_server, or else the first in file order, which moves whenever
files are renamed or included in another order. Scanners and mistyped names then get whatever
site happens to be first, with its certificate.`,
		Fix:      `Mark one server of the address "default_server" — often a catch-all that answers 444 or rejects the TLS handshake.`,
		Bad:      "events {}\nhttp {\n    server { listen 80; server_name a.example; }\n    server { listen 80; server_name b.example; }\n}\n",
		Good:     "events {}\nhttp {\n    server { listen 80 default_server; server_name _; return 444; }\n    server { listen 80; server_name a.example; }\n    server { listen 80; server_name b.example; }\n}\n",
		Severity: Info,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: How nginx processes a request (default server)", "nginx docs: ngx_http_core_module listen default_server"},
	},
	Check: func(p *Pass) {
		if len(mainRoots(p.Tree)) == 0 {
			return // a fragment: other servers on the address may be elsewhere
		}
		type addr struct{ servers []*parser.Directive }
		byAddr := map[string]*addr{}
		var order []string
		marked := map[string]bool{}
		p.httpServers(func(s *parser.Directive, c *parser.Context) {
			for _, l := range findIn(s.Block, "listen") {
				a := l.Arg(0)
				if !strings.Contains(a, ":") && !strings.HasPrefix(a, "unix:") {
					a = "*:" + a
				}
				if hasArg(l, "default_server") >= 0 || hasArg(l, "default") >= 0 {
					marked[a] = true
				}
				if byAddr[a] == nil {
					byAddr[a] = &addr{}
					order = append(order, a)
				}
				if n := len(byAddr[a].servers); n == 0 || byAddr[a].servers[n-1] != s {
					byAddr[a].servers = append(byAddr[a].servers, s)
				}
			}
		})
		for _, a := range order {
			if marked[a] || len(byAddr[a].servers) < 2 {
				continue
			}
			first := byAddr[a].servers[0]
			p.Report(first, "%d servers listen on %s and none is default_server: requests for unknown names go to the first in file order, %s; mark the one you mean",
				len(byAddr[a].servers), a, serverName(first))
		}
	},
}

var tryFilesProxy = &Rule{
	Doc: Doc{
		ID:    "try-files-proxy",
		Title: "try_files and proxy_pass in one location",
		Why: `try_files checks the disk for every request before the location's handler runs; with
proxy_pass beside it, the proxy handles only what try_files lets through, and a file that
happens to exist under the root is served from disk instead of the backend: stale copies,
or files that were never meant to be public.`,
		Fix:      `Send the fallback of try_files to a named location that proxies ("try_files $uri @app; location @app { proxy_pass ...; }").`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            try_files $uri $uri/ =404;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location / {\n            try_files $uri @app;\n        }\n        location @app {\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: Info,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module try_files"},
	},
	Check: func(p *Pass) {
		p.each(func(d *parser.Directive, c *parser.Context) {
			if c.In() != parser.CtxLocation || inStream(c) {
				return
			}
			loc := c.Blocks[len(c.Blocks)-1]
			if pp := findIn(loc.Block, "proxy_pass"); len(pp) > 0 {
				p.Report(d, "try_files serves any matching file from disk before proxy_pass at %s sees the request; send the fallback to a named location that proxies", where(pp[0]))
			}
		}, "try_files")
	},
}
