package rules

import (
	"bytes"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var undefinedReference = &engine.Rule{
	Doc: engine.Doc{
		ID:    "undefined-reference",
		Title: "A zone, log format or variable used but never declared, or a TLS listen with no certificate",
		Why: `nginx -t refuses a name that nothing declares: "limit_req zone=y" with no limit_req_zone
of that name ("zero size shared memory zone"), "limit_conn c" with no limit_conn_zone, a
proxy_cache (fastcgi_cache, uwsgi_cache, scgi_cache) zone with no *_cache_path keys_zone of
that name ("zone is unknown"), and an access_log format that no log_format declared before it
("unknown log format": log_format must come first in reading order, and the second argument
of access_log is always the format, so "access_log FILE buffer=32k" names a format
"buffer=32k"; zones may be declared anywhere in http). A variable that neither nginx nor a
module of the table defines (knowledge/variables.tsv, generated from their sources) and that
nothing in the tree sets (set, map, geo, split_clients, a named capture) fails with 'unknown
"NAME" variable' (not judged in trees with a module nginxtune does not know, or an include
that is missing). A server that listens with ssl and has no ssl_certificate in effect (nor
ssl_reject_handshake on) fails with 'no "ssl_certificate" is defined for the "listen ... ssl"
directive'. Judged only on a whole tree, read from its nginx.conf with every include.`,
		Fix:      `Declare the zone or format (limit_req_zone $binary_remote_addr zone=NAME:10m rate=10r/s; log_format NAME ...; before its access_log), or correct the name.`,
		Bad:      "events {}\nhttp {\n    access_log /var/log/nginx/access.log main;\n    log_format main '$remote_addr $request';\n}\n",
		Good:     "events {}\nhttp {\n    log_format main '$remote_addr $request';\n    access_log /var/log/nginx/access.log main;\n}\n",
		Severity: finding.Error,
		Category: engine.CategoryCorrectness,
		Since:    "0.4.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_limit_req_module, ngx_http_limit_conn_module, ngx_http_proxy_module proxy_cache_path, ngx_http_log_module log_format; each message checked with real nginx -t 1.22.1"},
	},
	Check: check(checkUndefinedReference),
	Slow:  4,
	// a server's findings take from the rest of the tree only the
	// variables it defines and whether it is judged at all
	// (undefinedSummary); the zones and formats are declared in http
	Scope:   engine.ScopeSummary,
	Summary: summary(undefinedSummary),
}

// declarations are the directives that declare the zones and formats
// undefined-reference looks names up in.
var declarations = []string{"limit_req_zone", "limit_conn_zone", "proxy_cache_path", "fastcgi_cache_path", "uwsgi_cache_path", "scgi_cache_path", "log_format"}

// undefinedSummary writes what undefined-reference's findings in a server
// block read of the rest of the tree (engine.ScopeSummary): whether the
// tree is judged, and the variables it defines. Not ok where a zone or a
// format is declared inside a server block (nginx refuses it there), whose
// declaration a finding in another server then reads.
func undefinedSummary(p *Pass) (string, bool) {
	if !wholeTree(p) {
		return "not judged", true
	}
	inServer := false
	p.Each(func(d *parser.Directive, c *parser.Context) {
		inServer = inServer || c.Enclosing(parser.CtxServer) != nil
	}, declarations...)
	if inServer {
		return "", false
	}
	v := p.variablesDefined()
	if v.skip {
		return "variables not judged", true
	}
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(v.defined)) {
		b.WriteString(strconv.Quote(n))
		b.WriteByte('\n')
	}
	return b.String(), true
}

// wholeTree reports whether the tree is whole, read from its nginx.conf
// with every include: only a whole tree says that nothing declares a name.
func wholeTree(p *Pass) bool {
	return len(mainRoots(p.Tree)) > 0 && !p.Tree.HasUnread() && len(p.Tree.Unreadable) == 0
}

// cacheZoneOf names the directive that declares the zones each cache
// directive uses.
var cacheZoneOf = map[string]string{
	"proxy_cache": "proxy_cache_path", "fastcgi_cache": "fastcgi_cache_path",
	"uwsgi_cache": "uwsgi_cache_path", "scgi_cache": "scgi_cache_path",
}

// zoneArg returns the NAME of a "zone=NAME:SIZE" (or "keys_zone=") argument.
func zoneArg(d *parser.Directive, prefix string) string {
	for _, a := range d.Args {
		if v, ok := strings.CutPrefix(a.Value, prefix); ok {
			name, _, _ := strings.Cut(v, ":")
			return name
		}
	}
	return ""
}

func checkUndefinedReference(p *Pass) {
	if !wholeTree(p) {
		return
	}
	// a server that listens with ssl needs a certificate in effect (or
	// ssl_reject_handshake on, nginx 1.19.4): nginx -t fails otherwise
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) || d.Block == nil || c.In() != parser.CtxHTTP {
			return
		}
		var sslListen *parser.Directive
		for _, l := range p.Find(d.Block, "listen") {
			if hasArg(l, "ssl") > 0 {
				sslListen = l
				break
			}
		}
		if sslListen == nil {
			return
		}
		blocks := append(append([]*parser.Directive(nil), c.Blocks...), d)
		cert := p.Effective(blocks, c.Root, "ssl_certificate")
		reject := p.Effective(blocks, c.Root, "ssl_reject_handshake")
		if !cert.Complete || cert.Found() || reject.Found() && reject.Last().Arg(0) == "on" {
			return
		}
		// nginx names the server's line when it finds the certificate missing
		diag := p.Diag(d, "this server listens on %s with ssl and has no ssl_certificate in effect: nginx -t fails with 'no \"ssl_certificate\" is defined for the \"listen ... ssl\" directive'; give it (or http) a certificate, or ssl_reject_handshake on for a catch-all", engine.Clip(sslListen.Arg(0)))
		diag.Related = []finding.Related{engine.RelatedTo(sslListen, "the listen with ssl")}
		p.Report(diag)
	}, "server")
	unknownVariables(p)
	declared := map[string]bool{} // kind + "\x00" + name
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		switch d.Name {
		case "limit_req_zone", "limit_conn_zone":
			declared[d.Name+"\x00"+zoneArg(d, "zone=")] = true
		case "proxy_cache_path", "fastcgi_cache_path", "uwsgi_cache_path", "scgi_cache_path":
			declared[d.Name+"\x00"+zoneArg(d, "keys_zone=")] = true
		}
	}, "limit_req_zone", "limit_conn_zone", "proxy_cache_path", "fastcgi_cache_path", "uwsgi_cache_path", "scgi_cache_path")
	formats := map[string]bool{"combined": true}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		switch d.Name {
		case "log_format":
			formats[d.Arg(0)] = true
		case "access_log":
			f := d.Arg(1)
			if len(d.Args) < 2 || d.Arg(0) == "off" || formats[f] {
				return
			}
			if strings.Contains(f, "=") {
				// the second argument is always the format's name
				p.ReportArgf(d, 1, "access_log reads %q as the name of its format, which no log_format declares: nginx -t fails with \"unknown log format\"; write the format (combined) before buffer=, flush=, gzip= and if=", engine.Clip(f))
				return
			}
			p.ReportArgf(d, 1, "access_log uses the format %q, which no log_format declares before it: nginx -t fails with \"unknown log format\"; declare it first, or use combined", engine.Clip(f))
		case "limit_req":
			if z := zoneArg(d, "zone="); z != "" && !strings.Contains(z, "$") && !declared["limit_req_zone\x00"+z] {
				p.Reportf(d, "limit_req uses the zone %q, which no limit_req_zone declares: nginx -t fails with \"zero size shared memory zone\"", engine.Clip(z))
			}
		case "limit_conn":
			if z := d.Arg(0); z != "" && !strings.Contains(z, "$") && !declared["limit_conn_zone\x00"+z] {
				p.ReportArgf(d, 0, "limit_conn uses the zone %q, which no limit_conn_zone declares: nginx -t fails with \"zero size shared memory zone\"", engine.Clip(z))
			}
		default:
			decl := cacheZoneOf[d.Name]
			if z := d.Arg(0); decl != "" && z != "off" && z != "" && !strings.Contains(z, "$") && !declared[decl+"\x00"+z] {
				p.ReportArgf(d, 0, "%s uses the zone %q, which no %s keys_zone declares: nginx -t fails with \"zone is unknown\"", d.Name, engine.Clip(z), decl)
			}
		}
	}, "log_format", "access_log", "limit_req", "limit_conn", "proxy_cache", "fastcgi_cache", "uwsgi_cache", "scgi_cache")
}

// regexArg reports whether argument i of d is a regular expression, where
// "$" is an anchor, not a variable.
func regexArg(d *parser.Directive, i int, c *parser.Context) bool {
	v := d.Arg(i)
	switch d.Name {
	case "location":
		return len(d.Args) == 2 && i == 1 && strings.HasPrefix(d.Arg(0), "~") || len(d.Args) == 1 && strings.HasPrefix(v, "~")
	case "rewrite":
		return i == 0
	case "server_name", "valid_referers":
		return strings.HasPrefix(v, "~")
	case "if":
		return i > 0 && strings.Contains(strings.Join(d.ArgValues()[:i], " "), "~")
	case "fastcgi_split_path_info", "proxy_redirect", "proxy_cookie_path", "proxy_cookie_domain", "sub_filter", "subs_filter":
		return true
	}
	return d.Parent != nil && (d.Parent.Name == "map" || d.Parent.Name == "geo" || d.Parent.Name == "split_clients") && strings.HasPrefix(d.Name, "~")
}

// unknownVariables reports variables no module of the table defines and
// the tree does not set (set, map, geo, split_clients, a *_set directive,
// a named capture): nginx -t fails with 'unknown "NAME" variable'. Only for
// a whole tree nginx builds alone: a tree with a module nginxtune does not
// know, or a third-party module that may define variables, is left alone.
func unknownVariables(p *Pass) {
	v := p.variablesDefined()
	if v.skip {
		return
	}
	defined := v.defined
	// the values met whose every variable is known or set, by family
	// (http or stream): a tree writes the same few ("$host",
	// "$http_upgrade") thousands of times; kept up to a bound
	type valueIn struct {
		v      string
		stream bool
	}
	fine := map[valueIn]bool{}
	p.EachDirective(func(d *parser.Directive, c *parser.Context) {
		if d.Parent != nil && parser.IsDataBlock(d.Parent.Name) && d.Parent.Name != "map" {
			return
		}
		// perl, njs and Lua take code, whose "$" is the language's own
		if strings.HasPrefix(d.Name, "perl") || strings.HasPrefix(d.Name, "js_") || strings.Contains(d.Name, "lua") {
			return
		}
		if !textHolds(d, '$') {
			return // no argument refers to a variable (most directives)
		}
		for i, a := range d.Args {
			if strings.IndexByte(a.Value, '$') < 0 || regexArg(d, i, c) {
				continue
			}
			k := valueIn{a.Value, engine.InStream(c)}
			if fine[k] {
				continue
			}
			for _, r := range knowledge.VarRefs(a.Value) {
				n := r.Name
				if r.Kind == knowledge.Capture || defined[n] || knowledge.VariableKnown(n, k.stream) {
					continue
				}
				p.ReportArgf(d, i, "$%s is not a variable nginx or a module knows, and nothing in this tree sets it: nginx -t fails with 'unknown \"%s\" variable'", engine.Clip(n), engine.Clip(n))
				return
			}
			if len(fine) < maxFineValues {
				fine[k] = true
			}
		}
	})
}

// variablesDefined are the variables a tree defines (set, map, geo,
// split_clients, a *_set directive, a named capture), or skip where the
// tree is not judged: a module nginxtune does not know, or a third-party
// module, may define variables, and a missing include may hold the map or
// set that defines one.
type variablesDefined struct {
	skip    bool
	defined map[string]bool
}

// variablesDefinedKey keys the run's variablesDefined (Pass.Shared).
type variablesDefinedKey struct{}

// variablesDefined is the whole tree's, also where the rule walks part of
// it (engine.ScopeSummary).
func (p *Pass) variablesDefined() *variablesDefined {
	w := p.whole()
	return w.Shared(variablesDefinedKey{}, func() any { return w.collectVariablesDefined() }).(*variablesDefined)
}

func (p *Pass) collectVariablesDefined() *variablesDefined {
	thirdParty := false
	defined := map[string]bool{}
	// per name, whether only a third-party module (which may define
	// variables) or no module of the table has it (brotli and
	// headers-more define none), and whether it may define a variable.
	// Asked once per name and kept by the name's number
	// (Pass.VisitNames): knowledge.Lookup takes a lock, and the walk then
	// reads a directive only for the few names that need it.
	type kind struct{ done, known, foreign, definer bool }
	ids, names := p.VisitNames()
	kinds := make([]kind, len(names))
	for i, v := range p.Visits() {
		k := &kinds[ids[i]]
		if !k.done {
			name := names[ids[i]]
			ds := knowledge.Lookup(name)
			*k = kind{done: true, known: len(ds) > 0, foreign: true}
			for _, x := range ds {
				k.foreign = k.foreign && !(x.Extra == "" || strings.HasPrefix(x.Extra, "http-brotli") || strings.HasPrefix(x.Extra, "http-headers-more"))
			}
			_, k.definer = knowledge.DefinesVariable(name, math.MaxInt32)
		}
		if !thirdParty && names[ids[i]] != "" {
			// a third-party-only name; or a name the table does not have,
			// outside the entries of a map or geo
			thirdParty = k.known && k.foreign || !k.known && !parser.IsDataBlock(dParent(v.D))
		}
		// what the tree defines
		if k.definer {
			if i, ok := knowledge.DefinesVariable(v.D.Name, len(v.D.Args)); ok {
				defined[strings.TrimPrefix(v.D.Arg(i), "$")] = true
			}
		}
	}
	for n := range p.namedGroups() {
		defined[n] = true // a named capture, of a map's regex key too
	}
	if thirdParty || p.loadsUnknownModule() {
		return &variablesDefined{skip: true}
	}
	// a missing include may hold the map or set that defines a name
	for _, diag := range p.Tree.Diagnostics {
		if diag.Rule == loader.IncludeMissing {
			return &variablesDefined{skip: true}
		}
	}
	return &variablesDefined{defined: defined}
}

// maxFineValues bounds the values unknownVariables remembers as fine.
const maxFineValues = 4096

// dParent is the name of the block d stands in, "" at a file's top.
func dParent(d *parser.Directive) string {
	if d.Parent == nil {
		return ""
	}
	return d.Parent.Name
}

// textHolds reports whether the text of d's name and arguments, as the
// file holds it, has the byte b, for a byte no escape writes ("$", "("):
// an argument's value holds it only where that text does. Reading the
// file's text, which lies in order, spares the arguments of the many
// directives without it; true where the statement's extent is not known.
func textHolds(d *parser.Directive, b byte) bool {
	end := int(d.End)
	if d.BlockOpen >= 0 {
		end = int(d.BlockOpen)
	}
	if d.File == nil || d.Start < 0 || end < int(d.Start) || end > len(d.File.Src) {
		return true
	}
	return bytes.IndexByte(d.File.Src[d.Start:end], b) >= 0
}
