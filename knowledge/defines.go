package knowledge

import (
	"regexp"
	"strings"
	"sync"
)

// Where a configuration defines variables of its own: the directives that
// add one (ngx_http_add_variable in their handler), and the named groups of
// its regular expressions.

// definers are the directives that define a variable, with the argument
// that names it: -1 for the last. It is what each module's handler passes
// to ngx_http_add_variable / ngx_stream_add_variable in nginx 1.22.1, where
// value[0] is the directive's name and value[1] its first argument: set
// value[1] (ngx_http_rewrite_module.c 908, ngx_stream_set_module.c 182),
// map value[2] (ngx_http_map_module.c 219-230), split_clients value[2]
// (ngx_http_split_clients_module.c 140-151), geo value[1], or value[2]
// when it has two arguments (ngx_http_geo_module.c 408-441), perl_set
// value[1] (ngx_http_perl_module.c 1028-1037), auth_request_set value[1]
// (ngx_http_auth_request_module.c 394-416); njs's js_set and js_var, Lua's
// set_by_lua*, and set-misc's and ndk's set_* the first argument.
// set_real_ip_from (a trusted address) and set_base32_alphabet/_padding
// (settings) define none.
var definers = map[string]int{
	"set": 0, "map": 1, "split_clients": 1, "geo": -1,
	"perl_set": 0, "auth_request_set": 0, "js_set": 0, "js_var": 0,
	"set_by_lua": 0, "set_by_lua_block": 0, "set_by_lua_file": 0,
	"set_concat2": 0, "set_prepend_hello": 0,
	"set_decode_base32": 0, "set_decode_base64": 0, "set_decode_base64url": 0, "set_decode_hex": 0,
	"set_encode_base32": 0, "set_encode_base64": 0, "set_encode_base64url": 0, "set_encode_hex": 0,
	"set_escape_uri": 0, "set_unescape_uri": 0, "set_formatted_gmt_time": 0, "set_formatted_local_time": 0,
	"set_hashed_upstream": 0, "set_hmac_sha1": 0, "set_hmac_sha256": 0, "set_if_empty": 0,
	"set_local_today": 0, "set_md5": 0, "set_sha1": 0, "set_random": 0, "set_rotate": 0,
	"set_quote_json_str": 0, "set_quote_pgsql_str": 0, "set_quote_sql_str": 0,
	"set_secure_random_alphanum": 0, "set_secure_random_lcalpha": 0,
}

// DefinesVariable returns which of a directive's n arguments names the
// variable it defines ("$name"); ok is false when the directive defines
// none, or has too few arguments to.
func DefinesVariable(directive string, n int) (i int, ok bool) {
	i, ok = definers[directive]
	if i < 0 {
		i = n - 1
	}
	return i, ok && i >= 0 && i < n
}

// namedGroup finds the named groups of a PCRE pattern: (?<name>...),
// (?'name'...) and (?P<name>...); a name starts with a letter or "_"
// (PCRE2 refuses a digit first). nginx adds a variable for each
// (ngx_http_regex_compile, ngx_http_variables.c).
var namedGroup = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\(\?(?:P?<|')([A-Za-z_][A-Za-z0-9_]*)[>']`)
})

// NamedCaptures lists the names of the named groups of a regular
// expression, the variables a match of it sets.
func NamedCaptures(re string) []string {
	if !strings.Contains(re, "(?") {
		return nil
	}
	var out []string
	for _, m := range namedGroup().FindAllStringSubmatch(re, -1) {
		out = append(out, m[1])
	}
	return out
}
