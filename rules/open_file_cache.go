package rules

import (
	"fmt"
	"strconv"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var openFileCache = &engine.Rule{
	Doc: engine.Doc{
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
		Category: engine.CategoryPerformance,
		Since:    "0.1.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module open_file_cache", "docs/measurements.md: open_file_cache alone 2.04x"},
	},
	Check: check(checkOpenFileCache),
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
			if at.Name == parser.CtxHTTP && p.Wanted(at) {
				entries, budget = p.cacheBudget(at)
			}
			if entries == 0 {
				return p.Diag(at, "files are served without open_file_cache (%s); every request opens and stats them again (measured: the cache alone gave 2.04x on 1 KB files); %s leaves no descriptors for cached files: raise worker_rlimit_nofile, then add open_file_cache", serversNote(first, n), budget)
			}
			d := p.Diag(at, "files are served without open_file_cache (%s); every request opens and stats them again (measured: the cache alone gave 2.04x on 1 KB files); write \"open_file_cache max=%d inactive=20s; open_file_cache_valid 1s;\"%s (with the default validity of 60 s, a file a deploy replaces is served in its old version for up to a minute; with 1 s, for up to a second)", serversNote(first, n), entries, budgetNote(entries, budget))
			if at.Name == parser.CtxHTTP {
				stmts := []string{fmt.Sprintf("open_file_cache max=%d inactive=20s;", entries)}
				if len(p.Find(at.Block, "open_file_cache_valid")) == 0 {
					stmts = append(stmts, "open_file_cache_valid 1s;")
				}
				d.Fix = &finding.Fix{Description: "add open_file_cache, with a validity of 1 s, to the http block", Edits: []finding.Edit{engine.InsertFirstAll(at, stmts...)}}
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
