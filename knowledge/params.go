package knowledge

import "strings"

// The parameters of directives whose handlers read words of their own
// rather than a standard slot: nginx -t fails with "invalid parameter" for
// any other. Read from each version's handler (ngx_http_core_listen,
// ngx_stream_core_listen, ngx_http_upstream_server in nginx 1.22.1,
// 1.26.3, 1.28.3, 1.30.4); Since is the first release whose source has
// the word (from nginx's git history). A word ending in "=" takes a value.
type param struct {
	word  string
	since string
}

var listenParams = []param{
	{"default_server", ""}, {"default", ""}, {"bind", ""}, {"setfib=", ""}, {"fastopen=", ""}, {"backlog=", ""},
	{"rcvbuf=", ""}, {"sndbuf=", ""}, {"accept_filter=", ""}, {"deferred", ""}, {"reuseport", ""}, {"ipv6only=", ""},
	{"ssl", ""}, {"http2", ""}, {"so_keepalive=", ""}, {"proxy_protocol", ""}, {"quic", "1.25.0"}, {"multipath", "1.29.7"},
}

var streamListenParams = []param{
	{"udp", ""}, {"bind", ""}, {"fastopen=", ""}, {"backlog=", ""}, {"rcvbuf=", ""}, {"sndbuf=", ""}, {"reuseport", ""},
	{"ipv6only=", ""}, {"ssl", ""}, {"so_keepalive=", ""}, {"proxy_protocol", ""},
	{"default_server", "1.25.5"}, {"setfib=", "1.25.5"}, {"accept_filter=", "1.25.5"}, {"deferred", "1.25.5"},
}

// proxy_cache_path and its kin (ngx_http_file_cache_set_slot), after
// the path
var cachePathParams = []param{
	{"levels=", ""}, {"use_temp_path=", ""}, {"keys_zone=", ""}, {"inactive=", ""}, {"max_size=", ""}, {"min_free=", ""},
	{"manager_files=", ""}, {"manager_sleep=", ""}, {"manager_threshold=", ""},
	{"loader_files=", ""}, {"loader_sleep=", ""}, {"loader_threshold=", ""},
}

var upstreamServerParams = []param{
	{"weight=", ""}, {"max_conns=", ""}, {"max_fails=", ""}, {"fail_timeout=", ""}, {"backup", ""}, {"down", ""},
	{"resolve", "1.27.3"}, {"service=", "1.27.3"}, {"drain", "1.29.6"}, {"route=", "1.29.6"},
}

// ngx_stream_upstream_server: nginx 1.22.1 refuses "resolve" there
// with "invalid parameter" (measured); the words of newer releases are
// taken as the http table has them, so a newer stream is not refused
// what it may take
var streamUpstreamServerParams = []param{
	{"weight=", ""}, {"max_conns=", ""}, {"max_fails=", ""}, {"fail_timeout=", ""}, {"backup", ""}, {"down", ""},
	{"resolve", "1.27.3"}, {"service=", "1.27.3"}, {"drain", "1.29.6"}, {"route=", "1.29.6"},
}

// paramTable returns a table of ParamKnown, nil for a name it does not
// have. The tables are static data and a switch, not a map of slices: a map
// literal is built when the program starts, its slices each allocated
// (every command paid for them, a pre-commit hook seven page faults).
func paramTable(table string) []param {
	switch table {
	case "listen":
		return listenParams
	case "stream listen":
		return streamListenParams
	case "cache path":
		return cachePathParams
	case "upstream server":
		return upstreamServerParams
	case "stream upstream server":
		return streamUpstreamServerParams
	}
	return nil
}

// ParamKnown reports whether word is a parameter of the directive (table
// "listen", "stream listen", "upstream server" or "stream upstream
// server") in nginx v; since names the release that added it when v is
// older. ok is false for a table nginxtune does not have.
func ParamKnown(table, word string, v Version) (known bool, since string, ok bool) {
	ps := paramTable(table)
	if ps == nil {
		return false, "", false
	}
	key := word
	if i := strings.IndexByte(word, '='); i >= 0 {
		key = word[:i+1]
	}
	for _, p := range ps {
		if p.word != key {
			continue
		}
		if p.since != "" && v.Known() && v.Less(MustVersion(p.since)) {
			return false, p.since, true
		}
		return true, "", true
	}
	return false, "", true
}
