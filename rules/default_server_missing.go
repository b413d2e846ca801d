package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var defaultServerMissing = &engine.Rule{
	Doc: engine.Doc{
		ID:    "default-server-missing",
		Title: "Several servers on one address, none marked default_server",
		Why: `A request whose Host matches no server_name goes to the default server of its address and
port: the one marked default_server, or else the first in file order, which moves whenever
files are renamed or included in another order. Scanners and mistyped names then get whatever
site happens to be first, with its certificate.`,
		Fix:      `Mark one server of the address "default_server" — often a catch-all that answers 444 or rejects the TLS handshake.`,
		Bad:      "events {}\nhttp {\n    server { listen 80; server_name a.example; }\n    server { listen 80; server_name b.example; }\n}\n",
		Good:     "events {}\nhttp {\n    server { listen 80 default_server; server_name _; return 444; }\n    server { listen 80; server_name a.example; }\n    server { listen 80; server_name b.example; }\n}\n",
		Severity: finding.Info,
		Category: engine.CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: How nginx processes a request (default server)", "nginx docs: ngx_http_core_module listen default_server"},
	},
	Check: check(checkDefaultServerMissing),
}

func checkDefaultServerMissing(p *Pass) {
	if len(mainRoots(p.Tree)) == 0 {
		return // a fragment: other servers on the address may be elsewhere
	}
	groups, _ := p.listenGroups()
	for _, g := range groups {
		if g.marked != nil || len(g.servers) < 2 {
			continue
		}
		first := g.servers[0]
		p.Reportf(first, "%d servers listen on %s and none is default_server: requests for unknown names go to the first in file order, %s; mark the one you mean",
			len(g.servers), g.addr, serverName(first))
	}
}
