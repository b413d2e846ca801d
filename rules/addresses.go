package rules

import (
	"net"
	"strings"

	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Helpers of several rules about addresses: how nginx compares listen
// addresses, which servers share one, whether a server terminates TLS,
// and which addresses reach this host.

// listenKey writes a listen address the way nginx compares them: a port
// alone, "*:port" and "0.0.0.0:port" are one IPv4 wildcard; "" for an
// address nginx would resolve (a host name), which is not judged.
func listenKey(a string) string {
	if a == "" || strings.Contains(a, "$") {
		return ""
	}
	if strings.HasPrefix(a, "unix:") {
		return a
	}
	if !strings.Contains(a, ":") {
		if strings.Trim(a, "0123456789") != "" {
			return "" // a host name alone (port 80), resolved by nginx
		}
		return "0.0.0.0:" + a
	}
	if strings.HasPrefix(a, "[") {
		return strings.ToLower(a)
	}
	host, port, _ := strings.Cut(a, ":")
	switch {
	case host == "*" || host == "0.0.0.0":
		return "0.0.0.0:" + port
	case strings.Trim(host, "0123456789.") == "":
		return host + ":" + port
	}
	return ""
}

// socketKey is listenKey for a listen directive: a quic listen is a UDP
// socket, which nginx keeps apart from the TCP one of the same address
// ("listen 443 ssl; listen 443 quic;" is one server's HTTP/3 setup).
func socketKey(l *parser.Directive) string {
	k := listenKey(l.Arg(0))
	if k != "" && hasArg(l, "quic") > 0 {
		return "quic " + k
	}
	return k
}

func hasArg(d *parser.Directive, v string) int {
	for i, a := range d.Args {
		if a.Value == v {
			return i
		}
	}
	return -1
}

// httpServer is a server block of the http context with what the rules
// that go through every server ask of it, worked out once per run.
type httpServer struct {
	s     *parser.Directive
	c     *parser.Context
	files bool // engine.ServesFiles
	tls   bool // isTLSServer
	// tlsListens: the server has listens, and each terminates TLS or is
	// QUIC
	tlsListens bool
}

// httpServersKey keys the run's httpServers (Pass.Shared).
type httpServersKey struct{}

// httpServers are the http server blocks in walk order (Pass.HTTPServers),
// each with its facts: the rules about static files and TLS each asked them
// of every server.
func (p *Pass) httpServers() []httpServer {
	return p.Shared(httpServersKey{}, func() any {
		var out []httpServer
		p.HTTPServers(func(s *parser.Directive, c *parser.Context) {
			hs := httpServer{s: s, c: c, files: engine.ServesFiles(s)}
			listens := 0
			hs.tlsListens = true
			for _, d := range parser.Level(s.Block) {
				switch {
				case d.Name == "listen":
					listens++
					tls := hasArg(d, "ssl") >= 0 || hasArg(d, "quic") >= 0
					hs.tls = hs.tls || tls
					hs.tlsListens = hs.tlsListens && tls
				case d.Name == "ssl" && d.Arg(0) == "on":
					hs.tls = true
				}
			}
			hs.tlsListens = hs.tlsListens && listens > 0
			out = append(out, hs)
		})
		return out
	}).([]httpServer)
}

// isTLSServer reports whether a server block terminates TLS.
func isTLSServer(s *parser.Directive) bool {
	for _, d := range parser.Level(s.Block) {
		switch {
		case d.Name == "listen" && (hasArg(d, "ssl") >= 0 || hasArg(d, "quic") >= 0):
			return true
		case d.Name == "ssl" && d.Arg(0) == "on":
			return true
		}
	}
	return false
}

// listenGroup is the http servers that listen on one address, in file
// order, and the one marked default_server there (nil when none is).
type listenGroup struct {
	addr    string // "80" is written "*:80", as nginx reads it
	servers []*parser.Directive
	marked  *parser.Directive
}

// defaultServer is the server that answers names no server_name matches.
func (g *listenGroup) defaultServer() *parser.Directive {
	if g.marked != nil {
		return g.marked
	}
	return g.servers[0]
}

// listenGroups groups the http servers by the addresses they listen on, in
// the order the addresses first appear, and lists apart the servers with
// no listen directive (nginx puts them on *:80, or *:8000 without root).
// The groups are the run's, made once for every rule that asks: read
// them, do not modify them.
func (p *Pass) listenGroups() (groups []*listenGroup, noListen []*parser.Directive) {
	lg := p.Shared(listenGroupsKey{}, func() any {
		var v listenGroupsOf
		v.groups, v.noListen = p.groupListens()
		return &v
	}).(*listenGroupsOf)
	return lg.groups, lg.noListen
}

// listenGroupsKey is the key of listenGroups' value in Pass.Shared.
type listenGroupsKey struct{}

type listenGroupsOf struct {
	groups   []*listenGroup
	noListen []*parser.Directive
}

// groupListens is listenGroups, made anew.
func (p *Pass) groupListens() (groups []*listenGroup, noListen []*parser.Directive) {
	byAddr := map[string]*listenGroup{}
	p.HTTPServers(func(s *parser.Directive, c *parser.Context) {
		listens := p.Find(s.Block, "listen")
		if len(listens) == 0 {
			noListen = append(noListen, s)
		}
		for _, l := range listens {
			a := l.Arg(0)
			if !strings.Contains(a, ":") && !strings.HasPrefix(a, "unix:") {
				a = "*:" + a
			}
			if hasArg(l, "quic") > 0 {
				a += " quic"
			}
			// one address as nginx compares them (listenKey: "80", "*:80"
			// and "0.0.0.0:80" are one), shown as first written
			key := socketKey(l)
			if key == "" {
				key = a
			}
			g := byAddr[key]
			if g == nil {
				g = &listenGroup{addr: a}
				byAddr[key] = g
				groups = append(groups, g)
			}
			if g.marked == nil && (hasArg(l, "default_server") >= 0 || hasArg(l, "default") >= 0) {
				g.marked = s
			}
			if n := len(g.servers); n == 0 || g.servers[n-1] != s {
				g.servers = append(g.servers, s)
			}
		}
	})
	return groups, noListen
}

func isLoopback(hostPort string) bool {
	return loopbackAddr(hostPort) || unspecifiedAddr(hostPort)
}

// hostOf returns the host of host:port (or the whole text without a port).
func hostOf(hostPort string) string {
	if h, _, err := net.SplitHostPort(hostPort); err == nil {
		return h
	}
	return hostPort
}

// loopbackAddr reports whether an address names this host's loopback.
func loopbackAddr(hostPort string) bool {
	h := hostOf(hostPort)
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// unspecifiedAddr reports 0.0.0.0 or ::, which a connection reaches this
// host by (and which a listen binds on every interface).
func unspecifiedAddr(hostPort string) bool {
	ip := net.ParseIP(strings.Trim(hostOf(hostPort), "[]"))
	return ip != nil && ip.IsUnspecified()
}
