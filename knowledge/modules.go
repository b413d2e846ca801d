package knowledge

// Which build of nginx has what: host-module-missing compares a
// configuration with the configure arguments of the installed nginx.

// ModuleOf maps directives (and listen parameters, as "listen:http2") to
// the build option that provides them and a name fragment of the dynamic
// module or third-party source that provides them instead.
var ModuleOf = map[string][2]string{
	"listen:ssl":           {"--with-http_ssl_module", ""},
	"ssl_certificate":      {"--with-http_ssl_module", ""},
	"listen:http2":         {"--with-http_v2_module", ""},
	"http2":                {"--with-http_v2_module", ""},
	"listen:quic":          {"--with-http_v3_module", ""},
	"http3":                {"--with-http_v3_module", ""},
	"gzip_static":          {"--with-http_gzip_static_module", ""},
	"gunzip":               {"--with-http_gunzip_module", ""},
	"stub_status":          {"--with-http_stub_status_module", ""},
	"sub_filter":           {"--with-http_sub_module", ""},
	"set_real_ip_from":     {"--with-http_realip_module", ""},
	"real_ip_header":       {"--with-http_realip_module", ""},
	"auth_request":         {"--with-http_auth_request_module", ""},
	"secure_link":          {"--with-http_secure_link_module", ""},
	"slice":                {"--with-http_slice_module", ""},
	"dav_methods":          {"--with-http_dav_module", ""},
	"mp4":                  {"--with-http_mp4_module", ""},
	"flv":                  {"--with-http_flv_module", ""},
	"add_before_body":      {"--with-http_addition_module", ""},
	"add_after_body":       {"--with-http_addition_module", ""},
	"random_index":         {"--with-http_random_index_module", ""},
	"thread_pool":          {"--with-threads", ""},
	"geoip_country":        {"--with-http_geoip_module", "geoip_module"},
	"image_filter":         {"--with-http_image_filter_module", "image_filter"},
	"xslt_stylesheet":      {"--with-http_xslt_module", "xslt"},
	"perl":                 {"--with-http_perl_module", "perl"},
	"stream":               {"--with-stream", "ngx_stream_module"},
	"mail":                 {"--with-mail", "ngx_mail_module"},
	"more_set_headers":     {"", "headers-more"},
	"more_clear_headers":   {"", "headers-more"},
	"brotli":               {"", "brotli"},
	"brotli_static":        {"", "brotli"},
	"content_by_lua_block": {"", "lua"},
	"access_by_lua_block":  {"", "lua"},
	"js_import":            {"", "js"},
	"js_content":           {"", "js"},
}

// Handlers are directives that produce the response of a location, so that
// it does not serve files from disk.
var Handlers = map[string]bool{
	"proxy_pass": true, "fastcgi_pass": true, "uwsgi_pass": true, "scgi_pass": true,
	"grpc_pass": true, "memcached_pass": true, "return": true, "content_by_lua": true,
	"content_by_lua_block": true, "content_by_lua_file": true, "js_content": true,
	"perl": true, "stub_status": true, "echo": true, "empty_gif": true, "api": true,
}
