package knowledge

// Content handlers: the directives that set a location's handler
// (clcf->handler in their module's source, nginx 1.22.1), which answers the
// request in place of the static module.

// passHandlers pass the request to a backend. Their modules' merge carries
// them into a limit_except block (ngx_http_proxy_module.c 3860-3864), and
// a prefix location ending in "/" that has one gets the automatic redirect
// of its name without the slash (clcf->auto_redirect, 4120-4124).
var passHandlers = []string{"proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "memcached_pass"}

// fileHandlers are content handlers that serve the location's files
// themselves, under its root or alias: flv (ngx_http_flv_module.c 257), mp4
// (ngx_http_mp4_module.c 3911) and nginx Plus's hls.
var fileHandlers = []string{"flv", "mp4", "hls"}

// otherHandlers make the response without files: stub_status
// (ngx_http_stub_status_module.c 223), empty_gif (ngx_http_empty_gif_module.c
// 137), perl, njs's js_content, Lua's content_by_lua*, the echo module's
// echo (echo-nginx-module's ngx_http_echo_helper registers
// ngx_http_echo_handler as clcf->handler), nginx Plus's api.
var otherHandlers = []string{"stub_status", "empty_gif", "perl", "js_content",
	"content_by_lua", "content_by_lua_block", "content_by_lua_file", "echo", "api"}

var (
	isPass    = setOf(passHandlers)
	isContent = setOf(passHandlers, fileHandlers, otherHandlers)
)

func setOf(lists ...[]string) map[string]bool {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	m := make(map[string]bool, n+1) // sized: no growing while it is filled (every start fills three)
	for _, l := range lists {
		for _, n := range l {
			m[n] = true
		}
	}
	return m
}

// PassHandlers lists the directives that pass a request to a backend
// (proxy_pass, fastcgi_pass, ...).
func PassHandlers() []string { return append([]string(nil), passHandlers...) }

// IsPassHandler reports whether a directive passes the request to a backend.
func IsPassHandler(name string) bool { return isPass[name] }

// IsContentHandler reports whether a directive sets its location's content
// handler: a pass to a backend or another module's handler.
func IsContentHandler(name string) bool { return isContent[name] }

// Responds reports whether a directive makes its location's response
// itself, so that the location does not serve files from disk: the content
// handlers but flv, mp4 and hls, and return.
func Responds(name string) bool { return responds[name] }

var responds = func() map[string]bool {
	m := setOf(passHandlers, otherHandlers)
	m["return"] = true
	return m
}()
