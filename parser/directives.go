package parser

import (
	_ "embed"
	"sort"
	"strings"
	"sync"

	"github.com/nginxtune/nginxtune/knowledge"
)

// Context names used in context stacks.
const (
	CtxMain        = "main"
	CtxEvents      = "events"
	CtxHTTP        = "http"
	CtxServer      = "server"
	CtxLocation    = "location"
	CtxUpstream    = "upstream"
	CtxIf          = "if"
	CtxLimitExcept = "limit_except"
	CtxStream      = "stream"
	CtxMail        = "mail"
)

// ctx is a set of places a directive may appear, after nginx's NGX_*_CONF
// flags (src/core/ngx_conf_file.h and the modules' command tables).
type ctx uint32

const (
	cMain ctx = 1 << iota
	cEvents
	cHTTP
	cServer
	cLocation
	cUpstream
	cIf // "if" inside server or location
	cLimitExcept
	cStream
	cStreamServer
	cStreamUpstream
	cMail
	cMailServer
)

var ctxLetters = map[byte]ctx{
	'm': cMain, 'e': cEvents, 'h': cHTTP, 's': cServer, 'l': cLocation, 'u': cUpstream,
	'i': cIf, 'x': cLimitExcept, 'S': cStream, 'T': cStreamServer, 'U': cStreamUpstream,
	'M': cMail, 'N': cMailServer,
}

// directiveTable lists where the directives of nginx's core and commonly
// built modules are allowed, read from the nginx directive reference
// (nginx.org/en/docs/dirindex.html). One line each: name, context letters
// (m main, e events, h http, s server, l location, u upstream, i if,
// x limit_except, S stream, T stream server, U stream upstream, M mail,
// N mail server) and "B" when the directive takes a block.
const directiveTable = `
daemon m
env m
error_log mhslSTMN
events m B
http m B
include mehsluiSTUMNx
load_module m
lock_file m
master_process m
pcre_jit m
pid m
ssl_engine m
stream m B
mail m B
thread_pool m
timer_resolution m
user m
worker_cpu_affinity m
worker_priority m
worker_processes m
worker_rlimit_core m
worker_rlimit_nofile m
worker_shutdown_timeout m
working_directory m
accept_mutex e
accept_mutex_delay e
multi_accept e
use e
worker_aio_requests e
worker_connections e
debug_connection e
server hSuU B
upstream hS B
location sl B
if sl B
limit_except l B
map hS B
geo hS B
split_clients hS B
types hsl B
charset_map h B
match hS B
log_format h
access_log hslixST
open_log_file_cache hslST
absolute_redirect hsl
aio hsl
aio_write hsl
alias l
auth_basic hslx
auth_basic_user_file hslx
auth_request hsl
autoindex hsl
chunked_transfer_encoding hsl
client_body_buffer_size hsl
client_body_in_file_only hsl
client_body_temp_path hsl
client_body_timeout hsl
client_header_buffer_size hs
client_header_timeout hs
client_max_body_size hsl
default_type hsl
directio hsl
directio_alignment hsl
error_page hsli
etag hsl
expires hsli
add_header hsli
add_trailer hsli
allow hslxST
deny hslxST
gzip hsli
gzip_buffers hsl
gzip_comp_level hsl
gzip_disable hsl
gzip_http_version hsl
gzip_min_length hsl
gzip_proxied hsl
gzip_static hsl
gzip_types hsl
gzip_vary hsl
http2 hs
http2_max_concurrent_streams hs
http2_recv_buffer_size h
http3 hs
index hsl
internal l
keepalive_disable hsl
keepalive_requests hslu
keepalive_time hslu
keepalive_timeout hslu
keepalive u
large_client_header_buffers hs
limit_conn hslST
limit_conn_zone hS
limit_rate hsli
limit_req hsl
limit_req_zone h
listen sTN
log_not_found hsl
log_subrequest hsl
merge_slashes hs
open_file_cache hsl
open_file_cache_errors hsl
open_file_cache_min_uses hsl
open_file_cache_valid hsl
output_buffers hsl
postpone_output hsl
proxy_buffer_size hslST
proxy_buffering hsl
proxy_buffers hsl
proxy_busy_buffers_size hsl
proxy_cache hsl
proxy_cache_path h
proxy_connect_timeout hslST
proxy_http_version hsl
proxy_next_upstream hslST
proxy_pass liT
proxy_read_timeout hsl
proxy_redirect hsl
proxy_send_timeout hsl
proxy_set_header hsl
proxy_hide_header hsl
proxy_pass_header hsl
proxy_timeout ST
fastcgi_pass li
fastcgi_param hsl
fastcgi_keep_conn hsl
fastcgi_index hsl
fastcgi_split_path_info l
uwsgi_pass li
scgi_pass li
grpc_pass l
memcached_pass li
read_ahead hsl
reset_timedout_connection hsl
resolver hslSTMN
resolver_timeout hslSTMN
return sli
rewrite sli
break sli
set sli
root hsli
satisfy hsl
send_timeout hsl
sendfile hsli
sendfile_max_chunk hsl
server_name s
server_name_in_redirect hsl
server_names_hash_bucket_size h
server_names_hash_max_size h
server_tokens hsl
ssl hsMN
ssl_certificate hsSTMN
ssl_certificate_key hsSTMN
ssl_ciphers hsSTMN
ssl_dhparam hsSTMN
ssl_ecdh_curve hsSTMN
ssl_prefer_server_ciphers hsSTMN
ssl_protocols hsSTMN
ssl_session_cache hsSTMN
ssl_session_tickets hsSTMN
ssl_session_timeout hsSTMN
ssl_stapling hs
ssl_stapling_verify hs
ssl_buffer_size hs
ssl_trusted_certificate hsST
ssl_client_certificate hsSTMN
ssl_verify_client hsSTMN
sub_filter hsl
tcp_nodelay hslST
tcp_nopush hsl
try_files sl
types_hash_bucket_size hsl
types_hash_max_size hsl
underscores_in_headers hs
variables_hash_bucket_size h
variables_hash_max_size h
least_conn uU
ip_hash u
hash uU
zone uU
random uU
`

type dirInfo struct {
	ctx   ctx
	block bool
}

// table is read from directiveTable on first use (sync.OnceValue), so that
// commands that never infer a snippet's context do not pay for it.
var table = sync.OnceValue(func() map[string]dirInfo {
	m := map[string]dirInfo{}
	for _, line := range strings.Split(directiveTable, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		var info dirInfo
		for _, part := range f[1:] {
			if part == "B" {
				info.block = true
				continue
			}
			for i := 0; i < len(part); i++ {
				info.ctx |= ctxLetters[part[i]]
			}
		}
		m[f[0]] = info
	}
	return m
})

// Known reports whether name is a directive of nginx or of a widely used
// module. The vocabulary is the directive table generated from nginx's and
// the modules' sources (knowledge), gonginx's list of valid directives
// (nginx Plus, njs, OpenResty's Lua directives, ...) and this package's
// table of contexts.
func Known(name string) bool {
	if name == "" {
		return false
	}
	if knowledge.Has(name) {
		return true
	}
	names := GonginxDirectives()
	if i := sort.SearchStrings(names, name); i < len(names) && names[i] == name {
		return true
	}
	// last: the table is built on first use, and the two above know
	// nearly every name it holds
	_, ok := table()[name]
	return ok
}

// gonginxDirectives is gonginx's ValidDirectives, one name a line, sorted:
// copied from the pinned gonginx by a test (TestGonginxVocabulary, which
// fails when the two differ; -update rewrites it), because linking gonginx's
// parser package builds its map of 780 names at every start of the program,
// the pre-commit hook's too (a twentieth of the hook's run).
//
//go:embed gonginx-directives.txt
var gonginxDirectives string

// GonginxDirectives lists the directive names gonginx knows, sorted.
var GonginxDirectives = sync.OnceValue(func() []string {
	var out []string
	for _, l := range strings.Split(gonginxDirectives, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
})

// Block bodies that hold data rather than directives.
var dataBlocks = map[string]bool{
	"map": true, "geo": true, "types": true, "split_clients": true, "charset_map": true,
}

// IsDataBlock reports whether the block's body is a list of entries (map,
// geo, types, ...) rather than directives.
func IsDataBlock(name string) bool {
	return dataBlocks[name] || strings.HasSuffix(name, "_by_lua_block")
}

// contextOrder is the nesting of the http family from outside in; inference
// picks the outermost context every top-level directive accepts.
var inferOrder = []struct {
	stack []string
	c     ctx
}{
	{[]string{CtxMain}, cMain},
	{[]string{CtxMain, CtxHTTP}, cHTTP},
	{[]string{CtxMain, CtxHTTP, CtxServer}, cServer},
	{[]string{CtxMain, CtxHTTP, CtxServer, CtxLocation}, cLocation},
	{[]string{CtxMain, CtxHTTP, CtxUpstream}, cUpstream},
	{[]string{CtxMain, CtxEvents}, cEvents},
	{[]string{CtxMain, CtxStream}, cStream},
	{[]string{CtxMain, CtxStream, CtxServer}, cStreamServer},
	{[]string{CtxMain, CtxMail}, cMail},
}

// inferContext guesses the context stack of a snippet from the directives at
// its top level: the outermost context that accepts the most of them.
func inferContext(dirs []*Directive) []string {
	best, bestScore := -1, 0
	for i, cand := range inferOrder {
		score := 0
		for _, d := range dirs {
			if info, ok := table()[d.Name]; ok && info.ctx&cand.c != 0 {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return []string{CtxMain}
	}
	return append([]string(nil), inferOrder[best].stack...)
}

// parseContextSpec turns "http,server" (as written in a
// "# nginxtune: context=" comment) into a full stack starting at main.
func parseContextSpec(spec string) []string {
	stack := []string{CtxMain}
	for _, p := range strings.Split(spec, ",") {
		p = strings.TrimSpace(p)
		if p == "" || p == CtxMain {
			continue
		}
		stack = append(stack, p)
	}
	return stack
}
