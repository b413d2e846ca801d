package rules

import (
	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var directiveArgs = &engine.Rule{
	Doc: engine.Doc{
		ID:    "directive-args",
		Title: "A directive with the wrong number of arguments, or an argument value nginx refuses",
		Why: `nginx checks the argument count of every directive and fails with "invalid number of
arguments". The most common cause is a missing ";": nginx reads the next line as more
arguments of the directive before it. A flag directive takes "on" or "off" only, and a block
directive needs its braces. Values are checked as nginx's handlers check them: the words of
enumerations ("gzip_static always", "ssl_protocols TLSv1.3", from nginx's source), the
parameters of listen, an upstream's server, access_log and the *_cache_path directives (a
parameter a newer nginx added is named with that version), the flag of a rewrite, the third
argument of add_header ("always") and of *_param ("if_not_empty"), error_page's codes
(300-599), expires, ssl_session_cache and error_log's level, sizes, times and numbers of the
standard slots (client_max_body_size 10X), location modifiers, if conditions and operators,
return codes; a proxy_pass with a URI part and no
variables in a regex or named location or inside if or limit_except ("cannot have URI part"),
and a stream access_log without a format. Values nginx parses at load are checked too: the
port of an upstream's server ("invalid port in upstream"), its weight=, max_fails=,
max_conns= and fail_timeout=, proxy_cache_valid's codes and time ("invalid time value"), a
*_pass to an upstream's name with a port ("upstream ... may not have port"), an if
condition with an operator and no value, and disable_symlinks' words; a value that looks like a template's placeholder
(CACHE_MAX_AGE, __port__, ${PORT}) is named so, and is still an error. A fragment read alone
has its values checked wherever the check does not depend on the context, and a file cut
short by a syntax error has the directives before it checked, as nginx reads them.`,
		Fix:      `Add the missing ";", or write the arguments the message names.`,
		Bad:      "events {}\nhttp {\n    sendfile yes;\n    keepalive_timeout;\n}\n",
		Good:     "events {}\nhttp {\n    sendfile on;\n    keepalive_timeout 30s;\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx src/core/ngx_conf_file.c (ngx_conf_handler: invalid number of arguments)", "nginx src/core/ngx_conf_file.c (ngx_conf_set_flag_slot, _enum_slot, _bitmask_slot)", "nginx 1.22.1-1.30.4: ngx_http_core_listen, ngx_stream_core_listen, ngx_http_upstream_server, ngx_http_log_set_log, ngx_http_file_cache_set_slot, ngx_http_rewrite, ngx_http_headers_expires; each refusal measured with nginx -t (fixtures/nginx-t/values-*.conf)"},
	},
	Check:      check(runLanguage),
	Scope:      engine.ScopeTree, // a *_pass to NAME:PORT reads the upstream blocks of every server block too (one walk with the other language rules)
	Slow:       6,
	LineByLine: true,
}
