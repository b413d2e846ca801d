package route

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// addrConf is the servers that share one listening address, as nginx
// groups them (ngx_http_add_addresses): the servers of a specific address
// are not those of the wildcard on the same port.
type addrConf struct {
	key     string // "*:80", "127.0.0.1:8080", "[::]:443"
	servers []*Server
	listens []Listen // the listen of each server there
	def     *Server
	defAt   Listen
	ssl     bool
	names   *serverNames // built at the first search
}

// serverNames is an address's server names in nginx's search order, with
// the exact ones by value: a search does not walk every name of a large
// tree.
type serverNames struct {
	all   []nameAt
	exact map[string]int // value ("." dropped) -> first position in all
	// hostname holds the positions of "$hostname" (after the "." is
	// dropped), said lists those written "$hostname", regex those with a
	// regular expression
	hostname, said, regex []int
}

type nameAt struct {
	server *Server
	name   *Name
}

func (ac *addrConf) index() *serverNames {
	if ac.names != nil {
		return ac.names
	}
	ix := &serverNames{exact: map[string]int{}}
	for _, s := range ac.servers {
		for i := range s.Names {
			n := &s.Names[i]
			at := len(ix.all)
			ix.all = append(ix.all, nameAt{s, n})
			if n.Value == "$hostname" {
				ix.said = append(ix.said, at)
			}
			if n.re != nil {
				ix.regex = append(ix.regex, at)
				continue
			}
			v := strings.TrimPrefix(n.Value, ".")
			switch {
			case v == "$hostname":
				ix.hostname = append(ix.hostname, at)
			case !strings.Contains(v, "*"):
				if _, dup := ix.exact[v]; !dup {
					ix.exact[v] = at
				}
			}
		}
	}
	ac.names = ix
	return ix
}

// addrPick is pickAddress's answer for one address and port.
type addrPick struct {
	ac      *addrConf
	marked  bool
	unknown string
}

// pickAddress finds the address configuration a connection to addr:port
// lands on. why explains the choice; unknown is set when the address the
// client connects to was not given and the choice depends on it. The
// answer is kept for the next request to the same address: finding it
// walks every listen of the tree.
func (c *Config) pickAddress(r *Request, names namer) (ac *addrConf, why, unknown string) {
	k := r.Addr + " " + strconv.Itoa(r.Port)
	p, ok := c.picks[k]
	if !ok {
		p.ac, p.marked, p.unknown = c.findAddress(r)
		if c.picks == nil {
			c.picks = map[string]addrPick{}
		}
		c.picks[k] = p
	}
	if p.ac == nil {
		return nil, "", p.unknown
	}
	if p.marked {
		why = fmt.Sprintf("the default server there (for names no server_name matches) is %s at %s, marked default_server", p.ac.def.Label(), names.at(p.ac.def.Dir))
	} else {
		why = fmt.Sprintf("the default server there (for names no server_name matches) is the first, %s at %s, as none is marked default_server", p.ac.def.Label(), names.at(p.ac.def.Dir))
	}
	return p.ac, why, p.unknown
}

// findAddress is pickAddress's search, and whether the default server
// there is marked default_server (else it is the first).
func (c *Config) findAddress(r *Request) (ac *addrConf, marked bool, unknown string) {
	v6 := strings.Contains(r.Addr, ":")
	var specific []string
	seen := map[string]bool{}
	hasWild := false
	for _, s := range c.Servers {
		for _, l := range s.Listens {
			if l.Unix != "" || l.Port != r.Port || l.V6 != v6 {
				continue
			}
			if l.IP == "" {
				hasWild = true
			} else if !seen[l.IP] {
				seen[l.IP] = true
				specific = append(specific, l.IP)
			}
		}
	}
	ip := ""
	switch {
	case r.Addr != "":
		if ip = normIP(r.Addr); !seen[ip] {
			ip = ""
			if !hasWild {
				return nil, false, ""
			}
		}
	case len(specific) > 0:
		if hasWild {
			unknown = fmt.Sprintf("servers listen on port %d both on specific addresses (%s) and on the wildcard; which answers depends on the address the client connects to (give --addr); the wildcard is assumed", r.Port, strings.Join(specific, ", "))
		} else {
			ip = specific[0]
			if len(specific) > 1 {
				unknown = fmt.Sprintf("servers listen on port %d on several addresses (%s); which answers depends on the address the client connects to (give --addr); %s is assumed", r.Port, strings.Join(specific, ", "), ip)
			}
		}
	}
	ac = &addrConf{}
	for _, s := range c.Servers {
		for _, l := range s.Listens {
			if l.Unix != "" || l.Port != r.Port || l.V6 != v6 || l.IP != ip {
				continue
			}
			ac.servers = append(ac.servers, s)
			ac.listens = append(ac.listens, l)
			if l.Default && ac.def == nil {
				ac.def, ac.defAt = s, l
			}
			if l.SSL {
				ac.ssl = true
			}
			break
		}
	}
	if len(ac.servers) == 0 {
		return nil, false, unknown
	}
	host := ip
	if host == "" {
		host = "*"
	}
	if v6 {
		host = "[" + strings.Trim(host, "[]") + "]"
		if ip == "" {
			host = "[::]"
		}
	}
	ac.key = fmt.Sprintf("%s:%d", host, r.Port)
	marked = ac.def != nil
	if !marked {
		ac.def, ac.defAt = ac.servers[0], ac.listens[0]
	}
	return ac, marked, unknown
}

func normIP(s string) string {
	s = strings.Trim(s, "[]")
	if ip := net.ParseIP(s); ip != nil {
		return ip.String()
	}
	return strings.ToLower(s)
}

// nameMatch is how a server name matched.
type nameMatch struct {
	server *Server
	name   *Name
	how    string // "exact name", "leading wildcard", ...
	caps   map[string]string
}

// findServer picks the server for host among the address's servers, in
// nginx's order: exact names, the longest leading wildcard, the longest
// trailing wildcard, regular expressions in the order they appear, and
// else the default server. unknown lists regexes route could not run.
func (c *Config) findServer(ac *addrConf, host, hostname string, names namer) (m nameMatch, unknown []string) {
	ix := ac.index()
	if hostname == "" {
		for _, i := range ix.said {
			n := ix.all[i].name
			unknown = append(unknown, fmt.Sprintf("server_name $hostname at %s is the host name of the machine nginx runs on; route went on as if it were not %q", names.at(n.Dir), host))
		}
	}
	// exact (".example.com" counts as the exact "example.com" as well):
	// the first in order
	best := -1
	if i, ok := ix.exact[host]; ok {
		best = i
	}
	if hostname != "" && strings.ToLower(hostname) == host && len(ix.hostname) > 0 {
		if i := ix.hostname[0]; best < 0 || i < best {
			best = i
		}
	}
	if best >= 0 {
		return nameMatch{server: ix.all[best].server, name: ix.all[best].name, how: "exact name"}, unknown
	}
	if host != "" {
		// "*.example.com" and ".example.com", then "www.example.*": the
		// longest that matches, the first of equal ones
		if m, ok := longestWildcard(ac, host, "leading wildcard", func(v string) (string, bool) {
			switch {
			case strings.HasPrefix(v, "*."):
				return v[1:], strings.HasSuffix(host, v[1:])
			case strings.HasPrefix(v, "."):
				return v, strings.HasSuffix(host, v)
			}
			return "", false
		}); ok {
			return m, unknown
		}
		if m, ok := longestWildcard(ac, host, "trailing wildcard", func(v string) (string, bool) {
			if !strings.HasSuffix(v, ".*") || strings.HasPrefix(v, "~") {
				return "", false
			}
			return v[:len(v)-1], strings.HasPrefix(host, v[:len(v)-1])
		}); ok {
			return m, unknown
		}
	}
	for _, i := range ix.regex {
		s, n := ix.all[i].server, ix.all[i].name
		caps, ok, why := matchCaps(n.re, host)
		if why != "" {
			unknown = append(unknown, fmt.Sprintf("server_name %s at %s: %s; route cannot tell whether it matches, and went on as if it did not", n.Value, names.at(n.Dir), why))
			continue
		}
		if ok {
			return nameMatch{server: s, name: n, how: "regular expression (the first that matches, in order of appearance)", caps: caps}, unknown
		}
	}
	return nameMatch{server: ac.def, how: DefaultServer}, unknown
}

// longestWildcard finds the server name whose fixed part (as part
// returns it, with whether host matches) is longest.
func longestWildcard(ac *addrConf, host, how string, part func(v string) (string, bool)) (nameMatch, bool) {
	best, bestLen := nameMatch{}, -1
	for _, s := range ac.servers {
		for i := range s.Names {
			n := &s.Names[i]
			fixed, ok := part(n.Value)
			if ok && n.re == nil && len(host) > len(fixed) && len(fixed) > bestLen {
				best, bestLen = nameMatch{server: s, name: n, how: how}, len(fixed)
			}
		}
	}
	return best, bestLen >= 0
}

// matchCaps runs re on s and returns its numbered ("1", "2", ...) and
// named captures, or why route cannot tell whether it matches.
func matchCaps(re *compiled, s string) (caps map[string]string, ok bool, why string) {
	idx, why := re.find(s)
	if idx == nil {
		return nil, false, why
	}
	caps = map[string]string{}
	names := re.subexpNames()
	for i := 1; 2*i+1 < len(idx); i++ {
		v := ""
		if idx[2*i] >= 0 {
			v = s[idx[2*i]:idx[2*i+1]]
		}
		caps[fmt.Sprint(i)] = v
		if names[i] != "" {
			caps[names[i]] = v
		}
	}
	return caps, true, ""
}

// locResult is the outcome of one location search.
type locResult struct {
	loc      *Loc
	redirect bool // the 301 nginx adds for a prefix ending in "/"
	how      string
	caps     map[string]string
	unknown  []string
	// passed records regexes tested that did not match, for the trace
	passed []*Loc
}

// findLocation searches locs for uri as ngx_http_core_find_location does.
func findLocation(locs []*Loc, uri string, names namer) locResult {
	res, _ := findIn(locs, uri, names)
	return res
}

// findIn returns the result and whether it is final (an exact match, a
// redirect or a regex), so outer levels do not test their regexes.
func findIn(locs []*Loc, uri string, names namer) (locResult, bool) {
	var prefix *Loc
	var res locResult
	for _, l := range locs {
		if l.Mod == "=" && l.Pattern == uri {
			return locResult{loc: l, how: "exact match (=)"}, true
		}
	}
	for _, l := range locs {
		if (l.Mod == "" || l.Mod == "^~") && l.Pattern == uri {
			prefix = l
			break
		}
	}
	if prefix == nil {
		for _, l := range locs {
			if (l.Mod == "" || l.Mod == "^~" || l.Mod == "=") && l.autoRedirect && l.Pattern == uri+"/" {
				return locResult{loc: l, redirect: true, how: "the URI lacks the final slash of a location that proxies: nginx answers 301 to it"}, true
			}
		}
		for _, l := range locs {
			if (l.Mod == "" || l.Mod == "^~") && strings.HasPrefix(uri, l.Pattern) && (prefix == nil || len(l.Pattern) > len(prefix.Pattern)) {
				prefix = l
			}
		}
	}
	noregex := false
	if prefix != nil {
		res = locResult{loc: prefix, how: "longest matching prefix"}
		if prefix.Mod == "^~" {
			res.how = "longest matching prefix, marked ^~ (no regex is tested)"
			noregex = true
		}
		if len(prefix.Locs) > 0 {
			inner, final := findIn(prefix.Locs, uri, names)
			res.unknown = append(res.unknown, inner.unknown...)
			res.passed = append(res.passed, inner.passed...)
			if final {
				inner.how = "nested in " + prefix.Label() + ": " + inner.how
				inner.unknown, inner.passed = res.unknown, res.passed
				return inner, true
			}
			if inner.loc != nil {
				res.loc, res.how = inner.loc, "nested in "+prefix.Label()+": "+inner.how
			}
		}
	}
	if noregex {
		return res, false
	}
	for _, l := range locs {
		if l.Mod != "~" && l.Mod != "~*" {
			continue
		}
		caps, ok, why := matchCaps(l.re, uri)
		if why != "" {
			res.unknown = append(res.unknown, fmt.Sprintf("location %s at %s: %s; route cannot tell whether it matches, and went on as if it did not", l.Label(), names.at(l.Dir), why))
			continue
		}
		if !ok {
			res.passed = append(res.passed, l)
			continue
		}
		out := locResult{loc: l, how: "first matching regular expression", caps: caps, unknown: res.unknown, passed: res.passed}
		if res.loc != nil {
			out.how += fmt.Sprintf("; the prefix %s at %s matched too, but regexes win over prefixes not marked ^~", res.loc.Label(), names.at(res.loc.Dir))
		}
		if len(l.Locs) > 0 {
			inner, _ := findIn(l.Locs, uri, names)
			out.unknown = append(out.unknown, inner.unknown...)
			if inner.loc != nil {
				inner.how = "nested in " + l.Label() + ": " + inner.how
				inner.unknown = out.unknown
				if inner.caps == nil {
					inner.caps = caps
				}
				return inner, true
			}
		}
		return out, true
	}
	return res, false
}
