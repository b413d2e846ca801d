package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// reportStaticSetting reports a directive missing from the scope of the
// servers that serve files: once per http block when the whole http level
// lacks it, naming the first such server, or at the directive that turns it
// off. skip leaves out servers where the setting does not matter.
func reportStaticSetting(p *Pass, name string, bad func(d *parser.Directive) bool, skip func(s *parser.Directive, c *parser.Context) bool,
	missing func(at *parser.Directive, first *parser.Directive, n int) finding.Diagnostic, off func(d *parser.Directive) finding.Diagnostic) {
	type group struct {
		at, first *parser.Directive
		n         int
	}
	var order []*group
	byAt := map[*parser.Directive]*group{}
	p.httpServers(func(s *parser.Directive, c *parser.Context) {
		if !servesFiles(s) || (skip != nil && skip(s, c)) {
			return
		}
		set := p.EffectiveIn(c, s, name)
		switch {
		case set.Found() && bad(set.Last()):
			p.Report(off(set.Last()))
		case !set.Found() && set.Complete:
			at := c.Enclosing(parser.CtxHTTP)
			if at == nil {
				at = s
			}
			g := byAt[at]
			if g == nil {
				g = &group{at: at, first: s}
				byAt[at] = g
				order = append(order, g)
			}
			g.n++
		}
	})
	for _, g := range order {
		p.Report(missing(g.at, g.first, g.n))
	}
}

// serverName names a server block for messages: its first server_name and
// where it is.
func serverName(s *parser.Directive) string {
	name := ""
	if ns := findIn(s.Block, "server_name"); len(ns) > 0 && len(ns[0].Args) > 0 {
		name = ns[0].Arg(0)
		if len(name) > 40 {
			name = name[:37] + "..."
		}
		name += " "
	}
	return fmt.Sprintf("server %sat %s", name, where(s))
}

// serversNote says which servers a finding at the http block is about.
func serversNote(first *parser.Directive, n int) string {
	if n > 1 {
		return fmt.Sprintf("%s and %d more serve files", serverName(first), n-1)
	}
	return serverName(first) + " serves files"
}

// tlsOnly reports whether every listen of a server terminates TLS (or is
// QUIC): there nginx does not use sendfile unless kernel TLS is on.
func tlsOnly(p *Pass, s *parser.Directive, c *parser.Context) bool {
	listens := findIn(s.Block, "listen")
	if len(listens) == 0 {
		return false
	}
	for _, l := range listens {
		if hasArg(l, "ssl") < 0 && hasArg(l, "quic") < 0 {
			return false
		}
	}
	for _, d := range p.EffectiveIn(c, s, "ssl_conf_command").Dirs {
		if strings.EqualFold(d.Arg(0), "Options") && strings.Contains(strings.ToLower(d.Arg(1)), "ktls") {
			return false
		}
	}
	return true
}

// commented reports whether a directive carries a comment, on its line or
// on the line before: an informed choice, with its reason written down.
func commented(p *Pass, d *parser.Directive) bool {
	for _, c := range d.File.Comments {
		if c.Line == int(d.EndLine) && c.Trailing || c.Line == int(d.Line)-1 && !c.Trailing {
			// nginxtune's own comments (suppressions, and the "want"
			// expectations of its fixtures) give no reason
			t := strings.TrimSpace(c.Text)
			if !strings.HasPrefix(t, "nginxtune:") && !fixtureExpectation(p, t) {
				return true
			}
		}
	}
	return false
}

// fixtureExpectation reports whether a comment is a fixture's expectation:
// "want" and then only rule ids, each with an optional quoted pattern. A
// user's "# want it off: the disk is ZFS" is a reason, not fixture syntax.
func fixtureExpectation(p *Pass, text string) bool {
	rest, ok := strings.CutPrefix(text, "want ")
	if !ok {
		return false
	}
	m := expectationRe().FindStringSubmatch(strings.TrimSpace(rest))
	if m == nil {
		return false
	}
	for _, id := range ruleIDRe().FindAllString(expectationPatternRe().ReplaceAllString(m[0], ""), -1) {
		if !p.IsRule(id) {
			return false
		}
	}
	return true
}

var (
	expectationRe        = lazyre.New(`^[a-z0-9-]+(?:\s+"(?:[^"\\]|\\.)*")?(?:\s+[a-z0-9-]+(?:\s+"(?:[^"\\]|\\.)*")?)*$`)
	expectationPatternRe = lazyre.New(`"(?:[^"\\]|\\.)*"`)
	ruleIDRe             = lazyre.New(`[a-z0-9-]+`)
)

var sendfileOff = &Rule{
	Doc: Doc{
		ID:    "sendfile-off",
		Title: "Static files are served without sendfile",
		Why: `sendfile is off by default: nginx then reads each file into its own buffers and writes it
out again. With "sendfile on" the kernel sends the file straight from the page cache.
tcp_nopush only takes effect together with sendfile, so on its own it does nothing. Over
TLS nginx does not use sendfile unless kernel TLS is on ("ssl_conf_command Options KTLS;"
with OpenSSL 3), so servers that only listen with ssl or quic are left out.`,
		Fix:      `Write "sendfile on;" in the http block (and "tcp_nopush on;" with it). On FreeBSD with ZFS keep it off.`,
		Bad:      "events {}\nhttp {\n    tcp_nopush on;\n    server {\n        listen 80;\n        root /srv/www;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    sendfile on;\n    tcp_nopush on;\n    server {\n        listen 80;\n        root /srv/www;\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module sendfile, tcp_nopush"},
	},
	Check: checkSendfileOff,
}

func checkSendfileOff(p *Pass) {
	isOff := func(d *parser.Directive) bool { return d.Arg(0) != "on" }
	reportStaticSetting(p, "sendfile", isOff, func(s *parser.Directive, c *parser.Context) bool { return tlsOnly(p, s, c) },
		func(at, first *parser.Directive, n int) finding.Diagnostic {
			d := p.Diag(at, "files are served without sendfile (%s); it is off by default, so each file is copied through nginx's buffers; write \"sendfile on;\"", serversNote(first, n))
			if at.Name == parser.CtxHTTP {
				d.Fix = &finding.Fix{Description: "add sendfile on; to the http block", Edits: []finding.Edit{insertFirst(at, "sendfile on;")}}
			}
			return d
		},
		func(d *parser.Directive) finding.Diagnostic {
			if commented(p, d) {
				return p.DiagSev(finding.Info, d, "sendfile is off where files are served, with a comment giving the reason (shared folders of VirtualBox or Vagrant, FreeBSD with ZFS need it off); if the reason no longer holds, write \"sendfile on;\"")
			}
			diag := p.Diag(d, "sendfile is off where files are served: each one is copied through nginx's buffers instead of sent by the kernel")
			diag.Fix = &finding.Fix{Description: "turn sendfile on", Edits: []finding.Edit{replaceArg(d, 0, "on")}}
			return diag
		})
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Name == "tcp_nopush" && d.Arg(0) == "on" && !inStream(c) {
			if s := p.Effective(c.Blocks, c.Root, "sendfile"); s.Complete && (!s.Found() || isOff(s.Last())) {
				p.Reportf(d, "tcp_nopush works only together with sendfile, which is off here")
			}
		}
	}, "tcp_nopush")
}

// insertFirst adds a statement as the first one of block b.
func insertFirst(b *parser.Directive, stmt string) finding.Edit {
	if len(b.Block) > 0 {
		return insertBefore(b.Block[0], stmt)
	}
	return insertInBlock(b, stmt)
}

var openFileCache = &Rule{
	Doc: Doc{
		ID:    "open-file-cache",
		Title: "Static files are served without open_file_cache",
		Why: `Without open_file_cache nginx opens, stats and closes every file (and checks every
directory of try_files and index) on each request. On our machine the cache alone cut the
system calls per request from 13.2 to 6.2 and the CPU per request by about 40 %, and gave
2.04 times the requests of Debian's stock configuration for 1 KB files. A modest cache does
it: 1,000 to 10,000 entries.`,
		Fix: `In the http block: "open_file_cache max=10000 inactive=20s; open_file_cache_valid 1s;".
open_file_cache_valid is how long nginx trusts a cached file before it looks at the name
again: with its default, 60 s, a file replaced by a deploy (written, then renamed into place)
was served in its old version for more than 15 s after the rename (measured; up to a minute);
with 1 s the new version was served after 0.9 s, at the same throughput (docs/measurements.md).
The entries are descriptors each worker keeps open: the fix adds only as many as the workers'
open-file limit (worker_rlimit_nofile, else the limit nginx starts with: the host's soft limit,
or systemd's 1024) leaves beside a socket and a file per connection and 64 spare, as gen does,
and none when nothing is left; raise worker_rlimit_nofile first (worker-fd-limit).`,
		Bad:      "events {}\nhttp {\n    sendfile on;\n    server {\n        listen 80;\n        root /srv/www;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    sendfile on;\n    open_file_cache max=10000 inactive=20s;\n    open_file_cache_valid 1s;\n    server {\n        listen 80;\n        root /srv/www;\n    }\n}\n",
		Severity: finding.Info,
		Category: CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module open_file_cache", "docs/measurements.md: open_file_cache alone 2.04x"},
	},
	Check: checkOpenFileCache,
}

// openFileCacheEntries is the cache the rule suggests where descriptors
// allow it.
const openFileCacheEntries = 10000

func checkOpenFileCache(p *Pass) {
	reportStaticSetting(p, "open_file_cache", func(d *parser.Directive) bool { return d.Arg(0) == "off" }, nil,
		func(at, first *parser.Directive, n int) finding.Diagnostic {
			// the entries are descriptors each worker keeps open: sized,
			// as gen sizes them, within the limit the workers get beside a
			// socket and a file per connection (host-fd-limit and
			// worker-fd-limit count the same), never past it
			entries, budget := openFileCacheEntries, ""
			if at.Name == parser.CtxHTTP && p.wanted(at) {
				entries, budget = p.cacheBudget(at)
			}
			if entries == 0 {
				return p.Diag(at, "files are served without open_file_cache (%s); every request opens and stats them again (measured: the cache alone gave 2.04x on 1 KB files); %s leaves no descriptors for cached files: raise worker_rlimit_nofile, then add open_file_cache", serversNote(first, n), budget)
			}
			d := p.Diag(at, "files are served without open_file_cache (%s); every request opens and stats them again (measured: the cache alone gave 2.04x on 1 KB files); write \"open_file_cache max=%d inactive=20s; open_file_cache_valid 1s;\"%s (with the default validity of 60 s, a file a deploy replaces is served in its old version for up to a minute; with 1 s, for up to a second)", serversNote(first, n), entries, budgetNote(entries, budget))
			if at.Name == parser.CtxHTTP {
				stmts := []string{fmt.Sprintf("open_file_cache max=%d inactive=20s;", entries)}
				if len(p.index.find(at.Block, "open_file_cache_valid")) == 0 {
					stmts = append(stmts, "open_file_cache_valid 1s;")
				}
				d.Fix = &finding.Fix{Description: "add open_file_cache, with a validity of 1 s, to the http block", Edits: []finding.Edit{insertFirstAll(at, stmts...)}}
			}
			return d
		},
		func(d *parser.Directive) finding.Diagnostic {
			return p.Diag(d, "open_file_cache is off where files are served: every request opens and stats them again")
		})
}

// budgetNote says why a cache is smaller than the rule's usual one.
func budgetNote(entries int, budget string) string {
	if entries == openFileCacheEntries {
		return ""
	}
	return " (" + budget + " leaves room for " + strconv.Itoa(entries) + " cached files)"
}

// cacheBudget is how many open_file_cache entries the http block can get
// (knowledge.CacheWithin), and the limit and connections that decide it.
func (p *Pass) cacheBudget(http *parser.Directive) (int, string) {
	var m *mainSettings
	roots := mainRoots(p.Tree)
	for _, r := range roots {
		if http.File == r || len(roots) == 1 {
			ms := p.mainSettings(r)
			m = &ms
			break
		}
	}
	wc := nginxDefaultConnections
	if m != nil {
		wc = m.wc
	}
	limit, why := p.workersLimit(m)
	budget := fmt.Sprintf("the open-file limit %d (%s) beside %d connections", limit, why, wc)
	return knowledge.CacheWithin(limit, wc, openFileCacheEntries), budget
}

var gzipCompressedTypes = &Rule{
	Doc: Doc{
		ID:    "gzip-compressed-types",
		Title: "gzip_types lists types that are already compressed",
		Why: `JPEG, PNG, GIF, WebP, AVIF, zip and gzip archives, WOFF fonts, audio and video are
compressed already: gzip spends CPU on them for no smaller output, and on-the-fly gzip is
the most expensive thing nginx does per request (a 40 KB response went from 27,317 rps
uncompressed to 3,291 at level 1 on our machine). "gzip_types *" compresses all of them.`,
		Fix:      `List only text-like types: text/css, application/javascript, application/json, image/svg+xml, ... (text/html is always included).`,
		Bad:      "events {}\nhttp {\n    gzip on;\n    gzip_types text/css image/jpeg application/javascript;\n}\n",
		Good:     "events {}\nhttp {\n    gzip on;\n    gzip_types text/css application/javascript image/svg+xml;\n}\n",
		Severity: finding.Warning,
		Category: CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_gzip_module gzip_types", "docs/measurements.md: gzip CPU cost"},
	},
	Check: checkGzipCompressedTypes,
}

func checkGzipCompressedTypes(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "gzip_types" {
			return
		}
		var bad []string
		var edits []finding.Edit
		for i, a := range d.Args {
			if a.Value == "*" {
				p.ReportArgf(d, i, "gzip_types * compresses every response, including images, fonts, archives and video that are compressed already; list the text types instead")
				return
			}
			if knowledge.IsCompressedType(a.Value) {
				bad = append(bad, a.Value)
				edits = append(edits, removeArg(d, i))
			}
		}
		if len(bad) == 0 {
			return
		}
		diag := p.Diag(d, "gzip_types lists %s, compressed already: gzip spends CPU on them for no gain", strings.Join(bad, ", "))
		if len(bad) < len(d.Args) {
			diag.Fix = &finding.Fix{Description: "remove " + strings.Join(bad, ", ") + " from gzip_types", Edits: edits}
		}
		p.Report(diag)
	}, "gzip_types")
}

var gzipCompLevel = &Rule{
	Doc: Doc{
		ID:    "gzip-comp-level",
		Title: "gzip_comp_level above 6",
		Why: `Compression levels above 6 cost much more CPU for output that is barely smaller. On-the-fly
gzip is already the most expensive step per request: on our machine a 40 KB response served
3,291 rps at level 1 and 714 at level 6 (27,317 uncompressed). Pre-compressed files
(gzip_static) cost nothing at request time.`,
		Fix:      `Use gzip_comp_level 5 or lower (h5bp uses 5, the default is 1), and gzip_static on for files you can compress ahead of time.`,
		Bad:      "events {}\nhttp {\n    gzip on;\n    gzip_comp_level 9;\n}\n",
		Good:     "events {}\nhttp {\n    gzip on;\n    gzip_comp_level 5;\n}\n",
		Severity: finding.Warning,
		Category: CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_gzip_module gzip_comp_level", "h5bp/server-configs-nginx: level 5", "docs/measurements.md: gzip CPU cost"},
	},
	Check: checkGzipCompLevel,
}

func checkGzipCompLevel(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "gzip_comp_level" {
			return
		}
		n, err := strconv.Atoi(d.Arg(0))
		if err != nil || n <= 6 {
			return
		}
		diag := p.DiagArg(d, 0, "gzip_comp_level %d costs several times the CPU of level 5 for output barely smaller (measured on 40 KB: 3,291 rps at level 1, 714 at level 6); write \"gzip_comp_level 5;\", and \"gzip_static on;\" for files compressed ahead of time", n)
		diag.Fix = &finding.Fix{Description: "set gzip_comp_level 5", Edits: []finding.Edit{replaceArg(d, 0, "5")}}
		p.Report(diag)
	}, "gzip_comp_level")
}

var keepaliveDisabled = &Rule{
	Doc: Doc{
		ID:    "keepalive-disabled",
		Title: "Client keep-alive is turned off",
		Why: `"keepalive_timeout 0" closes every client connection after one response, so each request
pays a new TCP handshake, and over HTTPS a new TLS handshake: nginx did 3,531 new TLS 1.3
handshakes per second on two cores, against 79,169 requests per second for 1 KB over
kept-alive HTTPS.`,
		Fix:      `Use a timeout of 15-75s (the default is 75s; 20-30s suits busy static servers).`,
		Bad:      "events {}\nhttp {\n    keepalive_timeout 0;\n}\n",
		Good:     "events {}\nhttp {\n    keepalive_timeout 30s;\n}\n",
		Severity: finding.Warning,
		Category: CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module keepalive_timeout", "docs/measurements.md: TLS handshakes per second"},
	},
	Check: checkKeepaliveDisabled,
}

func checkKeepaliveDisabled(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Name == "keepalive_timeout" && c.In() != parser.CtxUpstream && !inStream(c) {
			if c.In() == parser.CtxLocation && probeLocation(c.Blocks[len(c.Blocks)-1]) {
				return // a health check or status page: one request per connection is its nature
			}
			if v := d.Arg(0); v == "0" || v == "0s" || v == "0ms" {
				p.ReportArgf(d, 0, "keepalive_timeout %s closes every client connection after one response; each request pays a new TCP (and TLS) handshake (3,531 new TLS handshakes/s against 79,169 kept requests/s); write \"keepalive_timeout 30s;\"", v)
			}
		}
	}, "keepalive_timeout")
}

var accessLogUnbuffered = &Rule{
	Doc: Doc{
		ID:    "access-log-unbuffered",
		Title: "An access log written to a file without a buffer",
		Why: `Without buffer=, nginx writes one log line per request with its own write() call. With
"buffer=64k flush=5s" the writes drop from one per request to about 0.002, as cheap as
"access_log off", and the log is kept.`,
		Fix:      `Add "buffer=64k flush=5s" after the log format (write the format, e.g. combined, when it is not given).`,
		Bad:      "events {}\nhttp {\n    access_log /var/log/nginx/access.log;\n}\n",
		Good:     "events {}\nhttp {\n    access_log /var/log/nginx/access.log combined buffer=64k flush=5s;\n}\n",
		Severity: finding.Info,
		Category: CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_log_module access_log", "docs/measurements.md: buffered access log"},
	},
	Check: checkAccessLogUnbuffered,
}

func checkAccessLogUnbuffered(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Name != "access_log" || inStream(c) || len(d.Args) == 0 {
			return
		}
		path := d.Arg(0)
		if path == "off" || strings.HasPrefix(path, "syslog:") || strings.Contains(path, "$") {
			return
		}
		for _, a := range d.Args[1:] {
			if strings.HasPrefix(a.Value, "buffer=") {
				return
			}
		}
		add := "buffer=64k flush=5s"
		if len(d.Args) == 1 {
			add = "combined " + add
		}
		diag := p.Diag(d, "access_log %s writes each request's line with its own write(); add \"buffer=64k flush=5s\" to batch them", path)
		diag.Fix = &finding.Fix{Description: fmt.Sprintf("add %s", add), Edits: []finding.Edit{appendArgs(d, add)}}
		p.Report(diag)
	}, "access_log")
}

var gzipTypesMissing = &Rule{
	Doc: Doc{
		ID:    "gzip-types-missing",
		Title: "gzip is on but compresses only text/html",
		Why: `gzip_types defaults to text/html alone, so "gzip on;" without it leaves CSS, JavaScript,
JSON and SVG uncompressed: usually most of a page's text bytes. Debian's stock nginx.conf
turns gzip on and leaves its gzip_types line commented out.`,
		Fix:      `Add "gzip_types ` + knowledge.GzipTypes + `;" next to "gzip on;" (text/html is always compressed).`,
		Bad:      "events {}\nhttp {\n    gzip on;\n}\n",
		Good:     "events {}\nhttp {\n    gzip on;\n    gzip_types text/css application/javascript application/json image/svg+xml;\n}\n",
		Severity: finding.Info,
		Category: CategoryPerformance,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_gzip_module gzip_types (default text/html)"},
	},
	Check: checkGzipTypesMissing,
}

func checkGzipTypesMissing(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) != "on" || inStream(c) {
			return
		}
		if s := p.Effective(c.Blocks, c.Root, "gzip_types"); s.Found() || !s.Complete {
			return
		}
		if loc := c.Enclosing(parser.CtxLocation); loc != nil && htmlOnly(loc) {
			return // the location serves HTML, which gzip compresses anyway
		}
		// types listed anywhere below may be where it compresses;
		// only a tree that lists none for sure compresses text/html alone
		if typesListed(p) {
			return
		}
		diag := p.Diag(d, "gzip is on but gzip_types is not set, so only text/html is compressed; add \"gzip_types %s;\"", knowledge.GzipTypes)
		diag.Fix = &finding.Fix{Description: "add gzip_types", Edits: []finding.Edit{insertAfter(d, "gzip_types "+knowledge.GzipTypes+";")}}
		p.Report(diag)
	}, "gzip")
}

// typesListed reports whether the tree sets gzip_types anywhere.
func typesListed(p *Pass) bool {
	found := false
	p.each(func(d *parser.Directive, c *parser.Context) { found = true }, "gzip_types")
	return found
}

var probePath = lazyre.New(`(?i)(health|status|ping|alive|ready|metrics|heartbeat)`)

// probeLocation reports whether a location answers health checks or status
// requests: its path says so, or it only returns a fixed response.
func probeLocation(loc *parser.Directive) bool {
	for _, a := range loc.Args {
		if probePath().MatchString(a.Value) {
			return true
		}
	}
	for _, d := range level(loc.Block) {
		if d.Name == "stub_status" || d.Name == "empty_gif" {
			return true
		}
	}
	return false
}

// htmlOnly reports whether a location matches only HTML files by its path.
func htmlOnly(loc *parser.Directive) bool {
	if len(loc.Args) == 0 {
		return false
	}
	v := strings.TrimSuffix(loc.Args[len(loc.Args)-1].Value, "$")
	return strings.HasSuffix(v, ".html") || strings.HasSuffix(v, ".htm")
}
