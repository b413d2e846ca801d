package knowledge

// What a block takes from the blocks around it. A directive set in http or
// server reaches every block below that does not set it again: each
// module's merge function takes the outer value only when the inner one is
// unset. So the occurrences in effect are those of the innermost level that
// has any, all of them for a directive a level may repeat into one list.

// notInherited are directives whose occurrences count only at their own
// level (nginx 1.22.1): the rewrite module's statements, compiled into the
// codes of the level that holds them (rewrite, return, set, break, if);
// try_files and internal, which ngx_http_core_merge_loc_conf
// (ngx_http_core_module.c 3579) does not merge; a server's listen and
// server_name; the blocks and include; and the content handlers (their
// modules set clcf->handler of their own location, which no merge copies:
// IsContentHandler).
var notInherited = map[string]bool{
	"rewrite": true, "return": true, "set": true, "break": true, "if": true,
	"try_files": true, "internal": true, "listen": true, "server_name": true,
	"include": true, "location": true, "limit_except": true,
}

// Inherited reports whether an inner level takes the directive from an
// outer one that sets it.
func Inherited(name string) bool { return !notInherited[name] && !IsContentHandler(name) }

// Array is a directive a level may repeat, its occurrences making one list
// that an inner level with any of its own replaces as a whole: the merge
// takes the outer list only when the inner has none (add_header and
// add_trailer: ngx_http_headers_filter_module.c 697-701; proxy_set_header:
// ngx_http_proxy_module.c 3890; fastcgi_param: ngx_http_fastcgi_module.c
// 3220).
type Array struct {
	Name string
	// Handler is the pass directive that sends the list, "" when the list
	// applies to every response.
	Handler string
}

var arrays = []Array{
	{"add_header", ""},
	{"add_trailer", ""},
	{"proxy_set_header", "proxy_pass"},
	{"proxy_hide_header", "proxy_pass"},
	{"grpc_set_header", "grpc_pass"},
	{"fastcgi_param", "fastcgi_pass"},
	{"uwsgi_param", "uwsgi_pass"},
	{"scgi_param", "scgi_pass"},
}

// Arrays lists the directives whose occurrences at a level make one list
// an inner level replaces as a whole (add_header, proxy_set_header,
// fastcgi_param, ...).
func Arrays() []Array { return append([]Array(nil), arrays...) }
