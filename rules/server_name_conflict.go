package rules

import (
	"slices"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var serverNameConflict = &engine.Rule{
	Doc: engine.Doc{
		ID:    "server-name-conflict",
		Title: "Two servers on one address answer the same server_name: nginx ignores the second",
		Why: `nginx keeps one server per name and address: a second server that lists the same name
(names compare without case; ".example.com" is both "example.com" and "*.example.com") on an
address the first listens on too is passed over for it, and nginx -t and every reload warn
"conflicting server name "example.com" on 0.0.0.0:80, ignored". Requests for the name go to
the first server, whatever the second configures: a new site that copied the stock one
answers with the old site's files. A server without server_name has the empty name "", so two
such servers on one address conflict too (the second answers only as a default server).
Names that are regular expressions are not compared (nginx does not either). Measured with
nginx 1.22.1 -t.`,
		Fix:      `Remove the name from one of the servers (Debian: disable the stock default site, whose server_name is "_"), or give each server its own names.`,
		Bad:      "events {}\nhttp {\n    server { listen 80; server_name shop.example; root /srv/old; }\n    server { listen 80; server_name shop.example; root /srv/shop; }\n}\n",
		Good:     "events {}\nhttp {\n    server { listen 80; server_name old.example; root /srv/old; }\n    server { listen 80; server_name shop.example; root /srv/shop; }\n}\n",
		Severity: finding.Warning,
		Category: engine.CategoryCorrectness,
		Since:    "0.6.0",
		Versions: "all",
		Sources:  []string{"nginx sources 1.22.1: src/http/ngx_http.c ngx_http_server_names (conflicting server name ... ignored); each case measured with nginx -t (rules/nginx_test.go TestServerNameConflictAgainstNginx)"},
	},
	Check: check(checkServerNameConflict),
}

// serverNameKeys are the names nginx files a server_name argument under:
// lower case, ".example.com" as both "example.com" and "*.example.com"; none
// for a regular expression or a name nginxtune cannot settle.
func serverNameKeys(name string) []string {
	if strings.HasPrefix(name, "~") || templated(name) || strings.Contains(name, "$") && name != "$hostname" {
		return nil
	}
	name = strings.ToLower(name)
	if rest, ok := strings.CutPrefix(name, "."); ok && rest != "" {
		return []string{rest, "*." + rest}
	}
	return []string{name}
}

func checkServerNameConflict(p *Pass) {
	shared, noListen := p.listenGroups()
	// a server without listen is on *:80 (nginx runs as root where it
	// serves; without root *:8000), with the servers that say 80, after
	// them: nginx adds it to the address once the http block is read (to
	// a copy of the run's groups: other rules read them as they are)
	groups := slices.Clip(shared)
	implicit, at := (*listenGroup)(nil), -1
	for i, g := range groups {
		if nginxAddr(g.addr) == "0.0.0.0:80" {
			implicit, at = g, i
		}
	}
	copied := false
	for _, s := range noListen {
		if p.UnreadInclude(s.Block) {
			continue // its listen may be in what was not read
		}
		if implicit == nil {
			implicit, copied = &listenGroup{addr: "*:80"}, true
			groups = append(groups, implicit)
		}
		if !copied {
			g := *implicit
			g.servers = slices.Clip(g.servers)
			groups = slices.Clone(groups)
			implicit, groups[at], copied = &g, &g, true
		}
		implicit.servers = append(implicit.servers, s)
	}
	reported := map[*parser.Directive]bool{}
	for _, g := range groups {
		if len(g.servers) < 2 || strings.Contains(g.addr, "$") {
			continue
		}
		first := map[string]*parser.Directive{} // name -> the server that has it
		for _, s := range g.servers {
			mine := map[string]bool{}
			names := p.Find(s.Block, "server_name")
			if len(names) == 0 {
				if p.UnreadInclude(s.Block) {
					continue // its server_name may be in what was not read
				}
				if f, ok := first[""]; ok && !reported[s] {
					reported[s] = true
					diag := p.Diag(s, "this server and the one at %s have no server_name (the name \"\") on %s: nginx warns \"conflicting server name \"\" on %s, ignored\"; give each a server_name",
						where(f), engine.Clip(g.addr), engine.Clip(nginxAddr(g.addr)))
					diag.Related = []finding.Related{engine.RelatedTo(f, "the first server without server_name")}
					p.Report(diag)
				} else if !ok {
					first[""] = s
				}
				continue
			}
			for _, sn := range names {
				for i := range sn.Args {
					for _, k := range serverNameKeys(sn.Arg(i)) {
						if mine[k] {
							continue
						}
						mine[k] = true
						f, ok := first[k]
						if !ok {
							first[k] = s
							continue
						}
						if reported[sn] {
							continue
						}
						reported[sn] = true
						diag := p.DiagArg(sn, i, "server name %q on %s is taken by the server at %s: nginx warns \"conflicting server name %q on %s, ignored\"; requests for it go there: remove it from one of them",
							engine.Clip(k), engine.Clip(g.addr), where(f), engine.Clip(k), engine.Clip(nginxAddr(g.addr)))
						diag.Related = []finding.Related{engine.RelatedTo(f, "the first server named "+engine.Clip(k))}
						p.Report(diag)
					}
				}
			}
		}
	}
}

// nginxAddr writes an address as nginx's messages do: a port alone or
// "*:port" is 0.0.0.0:port.
func nginxAddr(a string) string {
	a = strings.TrimSuffix(a, " quic")
	if k := listenKey(a); k != "" {
		return k
	}
	if port, ok := strings.CutPrefix(a, "*:"); ok {
		return "0.0.0.0:" + port
	}
	return a
}
