package diff

import (
	"sort"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/route"
)

// normalisation are targets that test how nginx normalises a URI before it
// matches locations: dot segments, escapes, merged slashes, a newline
// before "$" in PCRE, a query.
var normalisation = []string{
	"/a/../b/", "//x//y", "/%2e%2e/", "/x/%2Fy", "/a%20b", "/index.php", "/index.php?q=1",
	"/x.php%0a", "/.git/config", "/.env", "/robots.txt", "/static/app.js", "/api/x.php",
}

// port is one address a server listens on, as a request reaches it.
type port struct {
	addr string // a specific address, "" for the wildcard
	port int
	ssl  bool
}

// requestSet builds the requests both trees are asked: every server name
// (wildcards and regexes sampled from their syntax, upper case, a trailing
// dot, a port), every location's pattern with the variants on its edges,
// normalisation cases, GET, HEAD and POST, http and https, no Host header
// and an unknown name.
func requestSet(skip map[*route.Server]bool, cfgs ...*route.Config) []route.Request {
	var out []route.Request
	seen := map[string]bool{}
	add := func(r route.Request) {
		k := key(r)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	ports := map[port]bool{}
	for _, c := range cfgs {
		for _, s := range c.Servers {
			var sp []port
			for _, l := range s.Listens {
				if l.Unix != "" || l.V6 {
					continue
				}
				p := port{l.IP, l.Port, l.SSL}
				sp = append(sp, p)
				ports[p] = true
			}
			if skip[s] {
				continue
			}
			hosts, variants := names(s)
			uris := locationURIs(s.Locs)
			for _, p := range sp {
				for i, h := range hosts {
					targets := uris
					if i > 0 {
						targets = []string{"/"}
					}
					for _, u := range append([]string{"/"}, targets...) {
						add(request(p, h, u, "GET"))
					}
					if i == 0 {
						for _, u := range uris {
							add(request(p, h, u, "POST"))
							add(request(p, h, u, "HEAD"))
						}
						for _, u := range normalisation {
							add(request(p, h, u, "GET"))
						}
						// the other scheme on this port
						q := p
						q.ssl = !q.ssl
						add(request(q, h, "/", "GET"))
					}
				}
				for _, h := range variants {
					add(request(p, h, "/", "GET"))
				}
			}
		}
	}
	var ps []port
	for p := range ports {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.port != b.port {
			return a.port < b.port
		}
		if a.addr != b.addr {
			return a.addr < b.addr
		}
		return !a.ssl && b.ssl
	})
	for _, p := range ps {
		for _, u := range append([]string{"/"}, normalisation...) {
			add(request(p, "unknown.invalid", u, "GET"))
		}
		r := request(p, "", "/", "GET")
		r.Proto = "HTTP/1.0"
		add(r)
		add(request(p, "", "/", "GET"))
	}
	return out
}

func request(p port, host, target, method string) route.Request {
	r := route.Request{Scheme: "http", Method: method, Addr: p.addr, Port: p.port, Target: target,
		Host: host, HasHost: host != "", Headers: map[string]string{}}
	if p.ssl {
		r.Scheme = "https"
	}
	return r
}

// key identifies a request: what it sends and where.
func key(r route.Request) string {
	return r.Method + " " + r.Scheme + "://" + r.Host + "@" + r.Addr + ":" + strconv.Itoa(r.Port) + r.Target + " " + r.Proto + strconv.FormatBool(r.HasHost)
}

// names returns a server's names as requests send them (wildcards and
// regexes instantiated), and variants of the first: upper case, a trailing
// dot, a port. The names nginx takes as a Host come first: the first is
// the one the server's locations are asked with, and a name nginx answers
// 400 for (a regex sampled to "::x") would ask them of nothing.
func names(s *route.Server) (hosts, variants []string) {
	var refused []string
	for _, nm := range s.Names {
		for _, x := range route.NameSamples(nm) {
			if x == "" || strings.ContainsAny(x, " /\\\t\r\n?#%$") {
				continue
			}
			if route.HostAccepted(x) {
				hosts = append(hosts, x)
			} else {
				refused = append(refused, x)
			}
		}
	}
	if len(hosts) == 0 {
		return append([]string{"unnamed.invalid"}, refused...), nil
	}
	h := hosts[0]
	hosts = append(hosts, refused...)
	return hosts, []string{strings.ToUpper(h), h + ".", h + ":8080"}
}

// locationURIs are, for every location, its pattern and the URIs on its
// edges: one character short, one longer, without and with a trailing
// slash, upper case, below it; samples of a regex with and without what
// surrounds them.
func locationURIs(locs []*route.Loc) []string {
	var out []string
	var walk func([]*route.Loc)
	walk = func(locs []*route.Loc) {
		for _, l := range locs {
			p := l.Pattern
			switch l.Mod {
			case "", "^~":
				out = append(out, p, p+"x", strings.TrimSuffix(p, "/"), p+"/", p+"a/b.php", p+"index.html", strings.ToUpper(p))
				if len(p) > 1 {
					out = append(out, p[:len(p)-1])
				}
			case "=":
				out = append(out, p, p+"/", p+"x", strings.TrimSuffix(p, "/"))
			case "~", "~*":
				for _, s := range route.Sample(p, l.Mod == "~*", 3) {
					s = strings.TrimPrefix(strings.TrimSuffix(s, "$"), "^")
					if !strings.HasPrefix(s, "/") {
						s = "/x/" + s
					}
					out = append(out, s, s+"x", "/p"+s, strings.ToUpper(s), s+"%0a")
				}
			}
			walk(l.Locs)
		}
	}
	walk(locs)
	var keep []string
	seen := map[string]bool{}
	for _, u := range out {
		if u == "" || !strings.HasPrefix(u, "/") || strings.ContainsAny(u, " \t\r\n#") || seen[u] {
			continue
		}
		seen[u] = true
		keep = append(keep, escapeTarget(u))
	}
	return keep
}

// escapeTarget writes a sampled URI as a request target: bytes a request
// line cannot carry as they are become %XX.
func escapeTarget(u string) string {
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}' {
			b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)|0x100, 16)[1:]))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
