package knowledge

import "strings"

// Which build of nginx has what: host-module-missing compares a
// configuration with the configure arguments of the installed nginx.

// optionalModules are the modules of nginx's own source that a build has
// only when configure is told so: the option, and the dynamic module's
// file name when the option may be "=dynamic". The directive table
// (directives.tsv) says which module has which directive; this says what
// a build needs for the module. From nginx's auto/options and auto/modules.
var optionalModules = map[string][2]string{
	"ngx_http_addition_filter_module": {"--with-http_addition_module", ""},
	"ngx_http_auth_request_module":    {"--with-http_auth_request_module", ""},
	"ngx_http_dav_module":             {"--with-http_dav_module", ""},
	"ngx_http_degradation_module":     {"--with-http_degradation_module", ""},
	"ngx_http_flv_module":             {"--with-http_flv_module", ""},
	"ngx_http_geoip_module":           {"--with-http_geoip_module", "ngx_http_geoip_module"},
	"ngx_http_gunzip_filter_module":   {"--with-http_gunzip_module", ""},
	"ngx_http_gzip_static_module":     {"--with-http_gzip_static_module", ""},
	"ngx_http_image_filter_module":    {"--with-http_image_filter_module", "ngx_http_image_filter_module"},
	"ngx_http_mp4_module":             {"--with-http_mp4_module", ""},
	"ngx_http_perl_module":            {"--with-http_perl_module", "ngx_http_perl_module"},
	"ngx_http_random_index_module":    {"--with-http_random_index_module", ""},
	"ngx_http_realip_module":          {"--with-http_realip_module", ""},
	"ngx_http_secure_link_module":     {"--with-http_secure_link_module", ""},
	"ngx_http_slice_filter_module":    {"--with-http_slice_module", ""},
	"ngx_http_ssl_module":             {"--with-http_ssl_module", ""},
	"ngx_http_stub_status_module":     {"--with-http_stub_status_module", ""},
	"ngx_http_sub_filter_module":      {"--with-http_sub_module", ""},
	"ngx_http_v2_module":              {"--with-http_v2_module", ""},
	"ngx_http_v3_module":              {"--with-http_v3_module", ""},
	"ngx_http_xslt_filter_module":     {"--with-http_xslt_module", "ngx_http_xslt_filter_module"},
	"ngx_google_perftools_module":     {"--with-google_perftools_module", ""},
	"ngx_thread_pool":                 {"--with-threads", ""},
	"ngx_mail_ssl_module":             {"--with-mail_ssl_module", ""},
	"ngx_stream_ssl_module":           {"--with-stream_ssl_module", ""},
	"ngx_stream_realip_module":        {"--with-stream_realip_module", ""},
	"ngx_stream_geoip_module":         {"--with-stream_geoip_module", "ngx_stream_geoip_module"},
	"ngx_stream_ssl_preread_module":   {"--with-stream_ssl_preread_module", ""},
}

// listenNeeds are the listen parameters a build may lack.
var listenNeeds = map[string][2]string{
	"ssl":   {"--with-http_ssl_module", ""},
	"http2": {"--with-http_v2_module", ""},
	"quic":  {"--with-http_v3_module", ""},
}

// Need is what a build must have for a directive: a configure option
// (with the dynamic module's file name when it may be built as one), or a
// third-party module, named by a fragment of its source directory or file.
type Need struct {
	Option string // "--with-http_perl_module"; "" for a third-party module
	SO     string // "ngx_http_perl_module": the file a load_module names
	Source string // a third-party source's name fragment ("headers-more", "lua")
	Module string // the module, as its source names it
}

// NeedOf says what a build needs for a directive in a context ("stream"
// and "mail" pick those modules' variant of a name that several have), or
// for a listen parameter as "listen:ssl". ok is false for what every build
// has.
func NeedOf(key string, inStream, inMail bool) (Need, bool) {
	if p, ok := strings.CutPrefix(key, "listen:"); ok {
		n, ok := listenNeeds[p]
		return Need{Option: n[0], Module: "ngx_http_" + p + "_module"}, ok
	}
	ds := Lookup(key)
	// the row of the context's family (http, stream, mail), nginx's own
	// before a third-party module's of the same name (rtmp's listen)
	var pick *Directive
	rank := -1
	for i := range ds {
		d := &ds[i]
		family := strings.HasPrefix(d.Module, "ngx_stream") && inStream || strings.HasPrefix(d.Module, "ngx_mail") && inMail ||
			!strings.HasPrefix(d.Module, "ngx_stream") && !strings.HasPrefix(d.Module, "ngx_mail") && !inStream && !inMail
		r := 0
		if family {
			r = 1
			if d.Extra == "" {
				r = 2
			}
		}
		if r > rank {
			pick, rank = d, r
		}
	}
	if pick == nil {
		return Need{}, false
	}
	m := pick.Module
	switch {
	case pick.Extra != "":
		src := pick.Extra
		if i := strings.LastIndex(src, "-"); i > 0 {
			src = src[:i]
		}
		src = strings.TrimSuffix(strings.TrimPrefix(src, "http-"), "-filter")
		return Need{SO: m, Source: src, Module: m}, true
	case m == "ngx_stream" || strings.HasPrefix(m, "ngx_stream_"):
		if n, ok := optionalModules[m]; ok {
			return Need{Option: n[0], SO: "ngx_stream_module", Module: m}, true
		}
		return Need{Option: "--with-stream", SO: "ngx_stream_module", Module: m}, true
	case m == "ngx_mail" || strings.HasPrefix(m, "ngx_mail_"):
		if n, ok := optionalModules[m]; ok {
			return Need{Option: n[0], SO: "ngx_mail_module", Module: m}, true
		}
		return Need{Option: "--with-mail", SO: "ngx_mail_module", Module: m}, true
	}
	if n, ok := optionalModules[m]; ok {
		return Need{Option: n[0], SO: n[1], Module: m}, true
	}
	return Need{}, false
}
