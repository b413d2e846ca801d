package rules

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// Security and exposure rules (the first of the gixy family; see
// docs/rules.md). Each says what an attacker or a visitor gains.

// locationIsPrefix reports whether a location matches by prefix (no
// modifier, or ^~), and returns its path.
func locationIsPrefix(loc *parser.Directive) (string, bool) {
	switch len(loc.Args) {
	case 1:
		if strings.HasPrefix(loc.Arg(0), "@") {
			return "", false
		}
		return loc.Arg(0), true
	case 2:
		if loc.Arg(0) == "^~" {
			return loc.Arg(1), true
		}
	}
	return "", false
}

var aliasTraversal = &Rule{
	Doc: Doc{
		ID:    "alias-traversal",
		Title: "alias under a location that does not end where the alias does (path traversal)",
		Why: `With "location /static { alias /srv/static/; }" a request for /static../secret.txt
matches the location (its prefix is /static), and nginx replaces the prefix with the alias:
/srv/static/../secret.txt, one directory above what was meant to be served. Any file beside
the aliased directory can be read. A regex location does the same when the capture the alias
appends after a slash can start with ".." right after a name: "location ~ ^/assets(.*)$ { alias
/srv/assets/$1; }" serves /srv/secret.txt for /assets../secret.txt, and "location ~ /site(2)(.*)
{ alias /lol/$2; }" serves /secret.txt for /site2../secret.txt (measured with nginx 1.22.1);
after "^/assets/" the capture cannot start with "..", since nginx resolves "/../" before it
matches. When neither the prefix nor the alias ends with a slash ("location /media { alias
/srv/media; }"), nothing climbs, but /media_old/x is served from /srv/media_old/x: every
sibling directory whose name starts the same is exposed (a warning); so does a capture glued to
the alias's last name ("location ~ /images(.*) { alias /app/static$1; }" serves
/app/static-old/x.txt for /images-old/x.txt). Each regex finding names a request the regex
matches that way.`,
		Fix:      `End the location with a slash when the alias does ("location /static/ { alias /srv/static/; }"); in a regex, put the slash before the capture ("^/assets/(.*)$"); or use root where the path maps one to one.`,
		Bad:      "events {}\nhttp {\n    server {\n        location /static {\n            alias /srv/static/;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /static/ {\n            alias /srv/static/;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module alias", "gixy: alias_traversal (the check's idea; written anew here)"},
	},
	Check: checkAliasTraversal,
}

func checkAliasTraversal(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) || c.In() != parser.CtxLocation || len(d.Args) == 0 {
			return
		}
		loc := c.Enclosing(parser.CtxLocation)
		if len(findIn(loc.Block, "return")) > 0 {
			return // a return answers before any file is read
		}
		alias := d.Arg(0)
		if re, ok := locationRegex(loc); ok {
			checkRegexAlias(p, d, loc, re, alias)
			return
		}
		path, ok := locationIsPrefix(loc)
		if !ok || strings.HasSuffix(path, "/") || templated(path) {
			return
		}
		if !strings.HasSuffix(alias, "/") {
			// neither ends with a slash: no climbing, but siblings that
			// start with the same name are served
			if strings.Contains(alias, "$") || !p.dirLike(alias) {
				return
			}
			diag := p.DiagArg(d, 0, "alias %s under \"location %s\" serves %s_old/x from %s_old/x: every directory beside %s whose name starts the same is exposed; end both with a slash",
				clip(alias), clip(path), clip(path), clip(alias), clip(alias))
			diag.Severity = finding.Warning
			p.Report(diag)
			return
		}
		diag := p.DiagArg(d, 0, "alias %s under \"location %s\" lets %s../ reach the directory above %s; write \"location %s/\"",
			clip(alias), clip(path), clip(path), clip(alias), clip(path))
		if i := len(loc.Args) - 1; i >= 0 {
			diag.Fix = &finding.Fix{Description: "end the location with a slash", Edits: []finding.Edit{replaceArg(loc, i, loc.Args[i].Raw+"/")}}
		}
		p.Report(diag)
	}, "alias")
}

// dirLike reports whether an alias without a trailing slash names a
// directory rather than a file: its last part has no extension.
func (p *Pass) dirLike(alias string) bool {
	last := alias[strings.LastIndex(alias, "/")+1:]
	return last != "" && !strings.Contains(last, ".")
}

// locationRegex returns the regex of a regex location.
func locationRegex(loc *parser.Directive) (string, bool) {
	switch {
	case len(loc.Args) == 2 && (loc.Arg(0) == "~" || loc.Arg(0) == "~*"):
		return loc.Arg(1), true
	case len(loc.Args) == 1 && strings.HasPrefix(loc.Arg(0), "~"):
		return strings.TrimLeft(loc.Arg(0)[1:], "*"), true
	}
	return "", false
}

// checkRegexAlias reports an alias that appends a capture of the location's
// regex where the capture can leave the aliased directory: after a slash,
// when the capture can start with ".." right after a character that is
// not a slash in the path (nginx resolves "/../" before it matches, but
// "/site2../" is a name); glued to a name ("/app/static$1"), when the
// capture can start with something other than a slash, which reaches every
// directory beside it whose name starts the same. Each finding names a
// request the compiled regex really matches that way.
func checkRegexAlias(p *Pass, d, loc *parser.Directive, re, alias string) {
	fold := loc.Arg(0) == "~*" || strings.HasPrefix(loc.Arg(0), "~*")
	for _, r := range varsIn(alias) {
		n := 0
		if len(r.name) == 1 && r.name[0] >= '1' && r.name[0] <= '9' {
			n = int(r.name[0] - '0')
		} else if n = namedGroup(re, r.name); n == 0 {
			continue
		}
		if r.start > 0 && alias[r.start-1] == '/' {
			if regexAliasClimbs(p, d, re, fold, n, r, alias) {
				return
			}
			continue
		}
		// glued to the last name of the alias, and the alias's last part
		name := alias[strings.LastIndex(alias[:r.start], "/")+1 : r.start]
		if name == "" || strings.Contains(name, "$") || r.end != len(alias) {
			continue
		}
		u, found, _ := captureWitness(re, fold, n, []string{"-old/x.txt", "_old/x", "-old/", "old/x", "2/x"}, func(u string, lo, hi int) bool {
			capt := u[lo:hi]
			return capt != "" && capt[0] != '/' && strings.Contains(capt, "/")
		})
		if !found {
			continue
		}
		capt := capturedBy(re, fold, n, u)
		diag := p.DiagArg(d, 0, "alias %s appends $%s to the name %s and the capture may start without a slash: %s reads %s, beside %s; put the slash in the regex before the capture",
			clip(alias), r.name, clip(name), clip(u), clip(alias[:r.start]+capt), clip(alias[:r.start]))
		diag.Severity = finding.Warning
		p.Report(diag)
		return
	}
}

// regexAliasClimbs reports (and says) whether capture n, which the alias
// appends after a slash, can start with ".." after a character of a name.
func regexAliasClimbs(p *Pass, d *parser.Directive, re string, fold bool, n int, r varRef, alias string) bool {
	u, found, known := captureWitness(re, fold, n, []string{"../secret.txt", "../secret", "../", ".."}, func(u string, lo, hi int) bool {
		capt := u[lo:hi]
		return lo > 0 && u[lo-1] != '/' && (capt == ".." || strings.HasPrefix(capt, "../"))
	})
	if known {
		if !found {
			return false
		}
		p.ReportArgf(d, 0, "alias %s appends $%s after a slash, but the regex lets that capture start with \"..\" after a name: %s reads %s, outside %s; put the slash in the regex before the capture",
			clip(alias), r.name, clip(u), clip(alias[:r.start]+capturedBy(re, fold, n, u)), clip(alias[:r.start]))
		return true
	}
	// a pattern Go cannot read (PCRE-only syntax): judged by its text. The
	// capture must follow a literal character of a path segment
	// ("^/assets(.*)"); at the start of the regex, or after a class or a
	// repetition, PCRE's leftmost match begins it at a "/" or a segment's
	// start, where nginx has resolved every ".."
	before, frag, ok := groupContext(re, n)
	if !ok || before == "" || !strings.ContainsAny(before[len(before)-1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ||
		len(before) > 1 && before[len(before)-2] == '\\' || !canStartWithDots(frag) {
		return false
	}
	example := "a request whose capture starts with \"..\""
	if lit := strings.TrimPrefix(before, "^"); literalChoice(strings.ReplaceAll(lit, "/", "")) && !strings.Contains(lit, "|") {
		example = lit + "../secret"
	}
	p.ReportArgf(d, 0, "alias %s appends $%s after a slash, but the regex has no slash before that capture: %s reads %s; put the slash in the regex before the capture",
		clip(alias), r.name, clip(example), clip(alias[:r.start]+"../secret"))
	return true
}

// capturedBy is the text capture n of re takes in u.
func capturedBy(re string, fold bool, n int, u string) string {
	if fold {
		re = "(?i)" + re
	}
	m := regexp.MustCompile(re).FindStringSubmatch(u)
	return m[n]
}

// groupContext returns the regex text before capture group n (without
// the group's own "(") and the group's pattern.
func groupContext(re string, n int) (before, frag string, ok bool) {
	count, at := 0, -1
	regexSyntax(re, func(i int) {
		if at < 0 && re[i] == '(' && capturing(re, i) {
			if count++; count == n {
				at = i
			}
		}
	})
	if at < 0 {
		return "", "", false
	}
	frag, ok = groupPattern(re, n)
	return re[:at], frag, ok
}

// canStartWithDots reports whether a capture's pattern can match "../x".
func canStartWithDots(frag string) bool {
	re, err := regexp.Compile(`^(?:` + frag + `)`)
	if err != nil {
		return true
	}
	return re.MatchString("../x") && strings.HasPrefix(re.FindString("../x"), "..")
}

var errorLogOff = &Rule{
	Doc: Doc{
		ID:    "error-log-off",
		Title: `"error_log off" writes to a file named "off"`,
		Why: `error_log takes a file (or stderr, syslog:, memory:), not a switch: "error_log off;"
makes nginx write its errors to a file called "off" in its prefix directory, where nobody
looks, and the errors that explain an outage are lost to the people who need them.`,
		Fix:      `To keep the log small, raise the level ("error_log /var/log/nginx/error.log crit;"); to discard it, "error_log /dev/null crit;".`,
		Bad:      "error_log off;\nevents {}\n",
		Good:     "error_log /var/log/nginx/error.log crit;\nevents {}\n",
		Severity: finding.Warning,
		Category: CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_core_module error_log"},
	},
	Check: checkErrorLogOff,
}

func checkErrorLogOff(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) == "off" {
			p.ReportArgf(d, 0, "error_log off writes errors to a file named \"off\" in nginx's prefix; write \"error_log /var/log/nginx/error.log crit;\" (or /dev/null) instead")
		}
	}, "error_log")
}

var validReferersNone = &Rule{
	Doc: Doc{
		ID:    "valid-referers-none",
		Title: `"valid_referers none" lets requests without a Referer through`,
		Why: `A referer check that accepts "none" accepts every request whose Referer header is
missing, and leaving it out is up to the client: hotlinking protection or a CSRF-style check
built on $invalid_referer is bypassed by any client that sends no Referer (a privacy extension,
a script, curl).`,
		Fix:      `Remove "none" where the check protects something; keep it only where it guards nothing but bandwidth.`,
		Bad:      "events {}\nhttp {\n    server {\n        valid_referers none server_names;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        valid_referers server_names;\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_referer_module valid_referers"},
	},
	Check: checkValidReferersNone,
}

func checkValidReferersNone(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if i := hasArg(d, "none"); i >= 0 {
			p.ReportArgf(d, i, "valid_referers none accepts every request that sends no Referer header, which any client can omit; remove \"none\" where $invalid_referer protects something")
		}
	}, "valid_referers")
}

var headerMultiline = &Rule{
	Doc: Doc{
		ID:    "header-multiline",
		Title: "A header value that spans lines",
		Why: `A quoted value with a line break puts a raw newline into a response or request header:
clients and proxies split it into a second header or reject the response, and a value built
from parts of the request becomes header injection.`,
		Fix:      `Write the value on one line.`,
		Bad:      "events {}\nhttp {\n    add_header Content-Security-Policy \"default-src 'self';\n        img-src *\";\n}\n",
		Good:     "events {}\nhttp {\n    add_header Content-Security-Policy \"default-src 'self'; img-src *\";\n}\n",
		Severity: finding.Warning,
		Category: CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"RFC 9110 5.5 (field values do not contain CR or LF)", "nginx docs: add_header, proxy_set_header"},
	},
	Check: checkHeaderMultiline,
}

func checkHeaderMultiline(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		more := d.Name == "more_set_headers" || d.Name == "more_set_input_headers"
		for i, a := range d.Args {
			// headers-more's -s and -t take a list of statuses or types,
			// which may span lines: not a header
			if more && i > 0 && (d.Arg(i-1) == "-s" || d.Arg(i-1) == "-t") || more && strings.HasPrefix(a.Value, "-") {
				continue
			}
			if i > 0 && strings.ContainsAny(a.Value, "\r\n") || more && strings.ContainsAny(a.Value, "\r\n") {
				p.ReportArgf(d, i, "the value of %s holds a line break, which splits the header in two or breaks the message; write it on one line", d.Name)
				return
			}
		}
	}, "add_header", "add_trailer", "proxy_set_header", "grpc_set_header", "more_set_headers", "more_set_input_headers")
}

var autoindexOn = &Rule{
	Doc: Doc{
		ID:    "autoindex-on",
		Title: "Directory listings for anyone",
		Why: `"autoindex on" answers a request for a directory with the list of its files: backups,
editor swap files and anything copied there by mistake become discoverable. Where a listing is
meant, it is usually meant for some people only.`,
		Fix:      `Turn it off, or limit the location with allow/deny or auth_basic.`,
		Bad:      "events {}\nhttp {\n    server {\n        location /files/ {\n            autoindex on;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /files/ {\n            autoindex on;\n            auth_basic \"files\";\n            auth_basic_user_file /etc/nginx/htpasswd;\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_autoindex_module"},
	},
	Check: checkAutoindexOn,
}

func checkAutoindexOn(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) != "on" || p.restricted(c) {
			return
		}
		p.Reportf(d, "autoindex on lists the files of every directory here to anyone; limit it with allow/deny or auth_basic, or turn it off")
	}, "autoindex", "fancyindex")
}

// restricted reports whether access to a place is limited: deny, auth or
// auth_request in effect.
func (p *Pass) restricted(c *parser.Context) bool {
	for _, name := range []string{"auth_basic", "auth_request", "auth_pam", "satisfy", "auth_jwt"} {
		if s := p.Effective(c.Blocks, c.Root, name); s.Found() && s.Last().Arg(0) != "off" || !s.Complete {
			return true
		}
	}
	return p.accessClosed(c)
}

// accessClosed reports whether the allow/deny rules in effect keep most
// clients out. They are one list, taken whole from the innermost level that
// has any, and nginx applies the first that matches a client: the list
// closes only when "deny all" comes before any "allow all" ("allow all;
// deny all;" is open, and so is "deny 10.0.0.0/8;" alone, since a client
// no rule matches is let in). A level with an include nginxtune did not
// read counts as closed: it may hold the rules.
func (p *Pass) accessClosed(c *parser.Context) bool {
	var levels [][]*parser.Directive
	for i := len(c.Blocks) - 1; i >= 0; i-- {
		levels = append(levels, c.Blocks[i].Block)
	}
	if c.Root != nil {
		levels = append(levels, c.Root.Directives)
	}
	names := levelNames(c.Root, c.Blocks)
	for i, dirs := range levels {
		var rules []*parser.Directive
		for _, d := range level(dirs) {
			if d.Name == "allow" || d.Name == "deny" {
				rules = append(rules, d)
			}
		}
		if len(rules) == 0 {
			// the level's context: levels run from the innermost block
			// out to the root's top
			if p.unreadMayHold(dirs, names[:len(names)-i], "allow", "deny") {
				return true
			}
			continue
		}
		for _, r := range rules {
			if r.Arg(0) == "all" {
				return r.Name == "deny"
			}
		}
		return false // every client no rule names is let in
	}
	return c.Root != nil && c.Root.ContextSource != "root" // a snippet: the levels above are unknown
}

var statusPageExposed = &Rule{
	Doc: Doc{
		ID:    "status-page-exposed",
		Title: "A status page open to everyone",
		Why: `stub_status (and nginx Plus's api and status) tell anyone who asks how many connections
and requests the server handles: a load figure an attacker uses to time and measure an attack,
and, for api, an interface that can change the configuration. A site or snippet linted on its own, whose including blocks are unknown, gets a warning that
says so when nothing in it restricts access, or when its own allow/deny list lets everyone in
("allow all; deny all;": nginx applies the first rule that matches), since a block's list
replaces the inherited one; linted inside its tree, the levels above decide. An "if" that
refuses (return 401, 403, 404 or 444) on a variable, such as a geo of the allowed hosts,
restricts too.`,
		Fix:      `Allow the monitoring hosts and deny the rest ("allow 127.0.0.1; deny all;"), or require auth.`,
		Bad:      "events {}\nhttp {\n    server {\n        location = /nginx_status {\n            stub_status;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location = /nginx_status {\n            stub_status;\n            allow 127.0.0.1;\n            deny all;\n        }\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_stub_status_module", "nginx docs: ngx_http_api_module"},
	},
	Check: checkStatusPageExposed,
}

func checkStatusPageExposed(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) || c.In() != parser.CtxLocation || listensOnLoopbackOnly(c) {
			return // "status" is also a match block's test; not that
		}
		if len(findIn(c.Blocks[len(c.Blocks)-1].Block, "internal")) > 0 {
			return // reachable only through internal redirects
		}
		if refusesByCondition(c.Blocks[len(c.Blocks)-1]) {
			return // "if ($not_allowed) { return 404; }": a geo or map decides
		}
		if p.restricted(c) {
			// a fragment read alone: the levels that include it are
			// unknown, and may restrict access; say what the fragment shows
			switch {
			case !fragmentAlone(p, c):
			case p.openHere(c):
				p.ReportSeverityf(finding.Warning, d, "%s answers anyone who asks, unless the block that includes this file restricts access (nothing here does); add \"allow <monitoring host>; deny all;\" or auth", d.Name)
			case !p.accessClosed(c) && !guardedHere(c):
				// the fragment's own allow/deny list decides (a level's list
				// replaces the inherited one), and it lets everyone in; only
				// auth from the including block could still keep clients out
				p.ReportSeverityf(finding.Warning, d, "%s answers anyone (the first allow/deny that matches applies): here %s, unless the including block requires auth; list the monitoring hosts first and end with \"deny all;\"", d.Name, openList(c))
			}
			return
		}
		p.Reportf(d, "%s answers anyone who asks; add \"allow <monitoring host>; deny all;\" or auth", d.Name)
	}, "stub_status", "api", "status")
}

// refusesByCondition reports whether a block answers some requests with a
// refusal before its handler runs: an "if" on a variable (a geo or map of
// the allowed clients) whose block returns 401, 403, 404 or 444.
func refusesByCondition(b *parser.Directive) bool {
	for _, x := range level(b.Block) {
		if x.Name != "if" {
			continue
		}
		for _, r := range findIn(x.Block, "return") {
			switch r.Arg(0) {
			case "401", "403", "404", "444":
				return true
			}
		}
	}
	return false
}

// openList says why the allow/deny list in effect at c, the innermost one,
// lets everyone in: "allow all" comes first, or nothing denies all.
func openList(c *parser.Context) string {
	levels := make([][]*parser.Directive, 0, len(c.Blocks)+1)
	for i := len(c.Blocks) - 1; i >= 0; i-- {
		levels = append(levels, c.Blocks[i].Block)
	}
	if c.Root != nil {
		levels = append(levels, c.Root.Directives)
	}
	for _, dirs := range levels {
		listed := false
		for _, x := range level(dirs) {
			if x.Name != "allow" && x.Name != "deny" {
				continue
			}
			listed = true
			if x.Arg(0) == "all" && x.Name == "allow" {
				return fmt.Sprintf("\"allow all\" (line %d) comes before any \"deny all\"", x.Line)
			}
		}
		if listed {
			break
		}
	}
	return "no \"deny all\" follows the rules, so a client no rule names is let in"
}

// fragmentAlone reports whether c is in a file read on its own whose
// context was inferred or declared (a site or a snippet), with nothing
// left unread: what includes it is unknown, what it holds is known.
func fragmentAlone(p *Pass, c *parser.Context) bool {
	return c.Root != nil && len(c.Root.Context) > 1 && !p.Tree.HasUnread()
}

// openHere reports whether no level inside the fragment restricts access:
// no auth and no allow/deny in the blocks around c within the file.
func (p *Pass) openHere(c *parser.Context) bool {
	return !guardedHere(c, "allow", "deny")
}

// guardedHere reports whether a level inside the fragment, around c, holds
// auth, satisfy, an include (which may hold either), or one of more.
func guardedHere(c *parser.Context, more ...string) bool {
	levels := make([][]*parser.Directive, 0, len(c.Blocks)+1)
	for _, b := range c.Blocks {
		levels = append(levels, b.Block)
	}
	if c.Root != nil {
		levels = append(levels, c.Root.Directives)
	}
	for _, dirs := range levels {
		for _, x := range level(dirs) {
			switch x.Name {
			case "auth_basic", "auth_request", "auth_pam", "auth_jwt", "satisfy", "include":
				return true
			}
			if slices.Contains(more, x.Name) {
				return true
			}
		}
	}
	return false
}

// listensOnLoopbackOnly reports whether the server around a place listens
// only on loopback addresses or unix sockets.
func listensOnLoopbackOnly(c *parser.Context) bool {
	srv := c.Enclosing(parser.CtxServer)
	if srv == nil {
		return false
	}
	listens := findIn(srv.Block, "listen")
	if len(listens) == 0 {
		return false
	}
	for _, l := range listens {
		if a := l.Arg(0); !strings.HasPrefix(a, "unix:") && !loopbackAddr(a) {
			return false
		}
	}
	return true
}

var defaultServerMissing = &Rule{
	Doc: Doc{
		ID:    "default-server-missing",
		Title: "Several servers on one address, none marked default_server",
		Why: `A request whose Host matches no server_name goes to the default server of its address and
port: the one marked default_server, or else the first in file order, which moves whenever
files are renamed or included in another order. Scanners and mistyped names then get whatever
site happens to be first, with its certificate.`,
		Fix:      `Mark one server of the address "default_server" — often a catch-all that answers 444 or rejects the TLS handshake.`,
		Bad:      "events {}\nhttp {\n    server { listen 80; server_name a.example; }\n    server { listen 80; server_name b.example; }\n}\n",
		Good:     "events {}\nhttp {\n    server { listen 80 default_server; server_name _; return 444; }\n    server { listen 80; server_name a.example; }\n    server { listen 80; server_name b.example; }\n}\n",
		Severity: finding.Info,
		Category: CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: How nginx processes a request (default server)", "nginx docs: ngx_http_core_module listen default_server"},
	},
	Check: checkDefaultServerMissing,
}

// listenGroup is the http servers that listen on one address, in file
// order, and the one marked default_server there (nil when none is).
type listenGroup struct {
	addr    string // "80" is written "*:80", as nginx reads it
	servers []*parser.Directive
	marked  *parser.Directive
}

// defaultServer is the server that answers names no server_name matches.
func (g *listenGroup) defaultServer() *parser.Directive {
	if g.marked != nil {
		return g.marked
	}
	return g.servers[0]
}

// listenGroups groups the http servers by the addresses they listen on, in
// the order the addresses first appear, and lists apart the servers with
// no listen directive (nginx puts them on *:80, or *:8000 without root).
func (p *Pass) listenGroups() (groups []*listenGroup, noListen []*parser.Directive) {
	byAddr := map[string]*listenGroup{}
	p.httpServers(func(s *parser.Directive, c *parser.Context) {
		listens := p.index.find(s.Block, "listen")
		if len(listens) == 0 {
			noListen = append(noListen, s)
		}
		for _, l := range listens {
			a := l.Arg(0)
			if !strings.Contains(a, ":") && !strings.HasPrefix(a, "unix:") {
				a = "*:" + a
			}
			if hasArg(l, "quic") > 0 {
				a += " quic"
			}
			// one address as nginx compares them (listenKey: "80", "*:80"
			// and "0.0.0.0:80" are one), shown as first written
			key := socketKey(l)
			if key == "" {
				key = a
			}
			g := byAddr[key]
			if g == nil {
				g = &listenGroup{addr: a}
				byAddr[key] = g
				groups = append(groups, g)
			}
			if g.marked == nil && (hasArg(l, "default_server") >= 0 || hasArg(l, "default") >= 0) {
				g.marked = s
			}
			if n := len(g.servers); n == 0 || g.servers[n-1] != s {
				g.servers = append(g.servers, s)
			}
		}
	})
	return groups, noListen
}

func checkDefaultServerMissing(p *Pass) {
	if len(mainRoots(p.Tree)) == 0 {
		return // a fragment: other servers on the address may be elsewhere
	}
	groups, _ := p.listenGroups()
	for _, g := range groups {
		if g.marked != nil || len(g.servers) < 2 {
			continue
		}
		first := g.servers[0]
		p.Reportf(first, "%d servers listen on %s and none is default_server: requests for unknown names go to the first in file order, %s; mark the one you mean",
			len(g.servers), g.addr, serverName(first))
	}
}

var tryFilesProxy = &Rule{
	Doc: Doc{
		ID:    "try-files-proxy",
		Title: "try_files and proxy_pass in one location",
		Why: `try_files checks the disk for every request before the location's handler runs; with
proxy_pass beside it, the proxy handles only what try_files lets through, and a file that
happens to exist under the root is served from disk instead of the backend: stale copies,
or files that were never meant to be public.`,
		Fix:      `Send the fallback of try_files to a named location that proxies ("try_files $uri @app; location @app { proxy_pass ...; }").`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            try_files $uri $uri/ =404;\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location / {\n            try_files $uri @app;\n        }\n        location @app {\n            proxy_pass http://127.0.0.1:8080;\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module try_files"},
	},
	Check: checkTryFilesProxy,
}

func checkTryFilesProxy(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if c.In() != parser.CtxLocation || inStream(c) {
			return
		}
		loc := c.Blocks[len(c.Blocks)-1]
		if pp := findIn(loc.Block, "proxy_pass"); len(pp) > 0 {
			diag := p.Diag(d, "try_files serves any matching file from disk before proxy_pass at %s sees the request; send the fallback to a named location that proxies", where(pp[0]))
			diag.Related = []finding.Related{relatedTo(pp[0], "the proxy_pass")}
			p.Report(diag)
		}
	}, "try_files")
}

// weakProtocols and weakCipherWords are below Mozilla's intermediate
// profile (TLS 1.2 and 1.3, AEAD suites with forward secrecy).
var weakProtocols = map[string]bool{"SSLv2": true, "SSLv3": true, "TLSv1": true, "TLSv1.1": true}

var weakCipherWords = []string{"RC4", "3DES", "DES-CBC3", "NULL", "EXPORT", "EXP-", "aNULL", "eNULL", "MD5", "DES-CBC-"}

var weakTLS = &Rule{
	Doc: Doc{
		ID:    "weak-tls",
		Title: "TLS protocols or ciphers below Mozilla's intermediate profile",
		Why: `SSLv3, TLS 1.0 and TLS 1.1 have known attacks (POODLE, BEAST) and are disabled by every
current browser; RC4, 3DES, NULL and EXPORT suites can be broken or downgraded to. Offering
them helps no real client and lets an attacker in the middle pick the weakest. A value written
at the http (or stream) level is judged by the TLS servers that inherit it: none is reported
when every TLS server sets its own (or includes a file nginxtune could not read, which may), and
it is information while no server of the tree uses TLS (Debian's stock nginx.conf; Debian 12's
OpenSSL refuses TLS 1.0 and 1.1 at its default security level anyway).`,
		Fix:      `"ssl_protocols TLSv1.2 TLSv1.3;" and Mozilla's intermediate cipher list (nginxtune gen writes both).`,
		Bad:      "events {}\nhttp {\n    ssl_protocols TLSv1 TLSv1.1 TLSv1.2;\n}\n",
		Good:     "events {}\nhttp {\n    ssl_protocols TLSv1.2 TLSv1.3;\n}\n",
		Severity: finding.Warning,
		Category: CategorySecurity,
		Since:    "0.2.0",
		Versions: "all (TLSv1 and TLSv1.1 are off by default since 1.27.3)",
		Sources:  []string{"Mozilla Server Side TLS guidelines 5.7 (intermediate)", "RFC 8996 (TLS 1.0 and 1.1 deprecated)", "RFC 7465 (RC4 prohibited)"},
	},
	Check: checkWeakTLS,
}

// tlsUse is what the servers of one http (or stream) block make of a TLS
// setting written at that level.
type tlsUse struct {
	tls, inherit int // TLS servers; those that use the block's value
}

func checkWeakTLS(p *Pass) {
	// per http or stream block and setting name: how many TLS servers use
	// the value written at the block's level (a server that sets its own,
	// or may through an include nginxtune did not read, does not)
	uses := map[*parser.Directive]map[string]*tlsUse{}
	p.each(func(s *parser.Directive, c *parser.Context) {
		top := c.Enclosing(parser.CtxHTTP)
		if top == nil {
			top = c.Enclosing(parser.CtxStream)
		}
		if s.Block == nil || top == nil || !isTLSServer(s) {
			return
		}
		if uses[top] == nil {
			uses[top] = map[string]*tlsUse{}
		}
		for _, name := range []string{"ssl_protocols", "ssl_ciphers"} {
			u := uses[top][name]
			if u == nil {
				u = &tlsUse{}
				uses[top][name] = u
			}
			u.tls++
			if len(p.index.find(s.Block, name)) == 0 && !p.unreadInclude(s.Block) {
				u.inherit++
			}
		}
	}, "server")
	p.each(func(d *parser.Directive, c *parser.Context) {
		if (d.Name == "ssl_protocols" || d.Name == "ssl_ciphers") && (c.In() == parser.CtxHTTP || c.In() == parser.CtxStream) {
			var u *tlsUse
			if len(c.Blocks) > 0 {
				u = uses[c.Blocks[len(c.Blocks)-1]][d.Name]
			}
			switch {
			case u == nil && (len(c.Blocks) == 0 || c.Root != nil && c.Root.ContextSource != "root"):
				// a snippet read at http level: its servers are elsewhere
			case u == nil:
				// no server of the tree terminates TLS: the value is used by
				// none, and Debian's stock http-level line is no risk yet
				if weakTLSValue(d) != "" {
					p.ReportSeverityf(finding.Info, d, "%s; no server in this tree uses TLS yet, so nothing offers it now, but the first one that does will inherit it", weakTLSValue(d))
				}
				return
			case u.inherit == 0:
				return // every TLS server sets its own (or may, in an include not read)
			}
		}
		if msg := weakTLSValue(d); msg != "" {
			if d.Name == "ssl_ciphers" || d.Name == "proxy_ssl_ciphers" {
				p.ReportArgf(d, 0, "%s", msg)
			} else {
				p.Reportf(d, "%s", msg)
			}
		}
	}, "ssl_protocols", "proxy_ssl_protocols", "ssl_ciphers", "proxy_ssl_ciphers")
}

// weakTLSValue says what is weak in a protocol or cipher directive, "" when
// nothing is.
func weakTLSValue(d *parser.Directive) string {
	switch d.Name {
	case "ssl_protocols", "proxy_ssl_protocols":
		var weak []string
		for _, a := range d.Args {
			if weakProtocols[a.Value] {
				weak = append(weak, a.Value)
			}
		}
		if len(weak) > 0 {
			return fmt.Sprintf("%s offers %s, broken or deprecated (RFC 8996) and refused by current browsers; write \"%s TLSv1.2 TLSv1.3;\"", d.Name, strings.Join(weak, ", "), d.Name)
		}
	default:
		var weak []string
		for _, part := range strings.FieldsFunc(d.Arg(0), func(r rune) bool { return r == ':' || r == ' ' || r == ',' }) {
			if strings.HasPrefix(part, "!") || strings.HasPrefix(part, "-") {
				continue
			}
			for _, w := range weakCipherWords {
				if strings.Contains(part, w) {
					weak = append(weak, part)
					break
				}
			}
		}
		if len(weak) > 0 {
			return fmt.Sprintf("%s allows %s, breakable or unauthenticated suites; use Mozilla's intermediate list", d.Name, clip(strings.Join(weak, ", ")))
		}
	}
	return ""
}

// systemRoots are directories no web server should serve from: each one
// itself, and, for those whose every subdirectory is the system's own
// (systemTrees), any directory below it.
var systemRoots = []string{"/etc", "/proc", "/sys", "/dev", "/dev/shm", "/root", "/boot", "/run", "/var/run", "/var/lib", "/usr/lib", "/bin", "/sbin", "/usr/bin", "/usr/sbin"}

// systemTrees hold nothing but the kernel's and the devices' files, except
// /dev/shm, a memory file system where applications keep directories of
// their own (GitLab's /dev/shm/gitlab/avatars).
var systemTrees = []string{"/proc", "/sys", "/dev"}

// systemDirectory reports whether a root or alias serves a directory of
// the system: judged on the directory it names ("/dev/shm/gitlab/avatars"
// is an application's, "/dev/shm" and "/dev/disk" are not), with ".."
// resolved.
func systemDirectory(dir string) bool {
	if !strings.HasPrefix(dir, "/") {
		return false
	}
	v := path.Clean(dir)
	if v == "/dev/null" {
		return false
	}
	for _, s := range systemRoots {
		if v == s {
			return true
		}
	}
	if strings.HasPrefix(v, "/dev/shm/") {
		return false
	}
	for _, s := range systemTrees {
		if strings.HasPrefix(v, s+"/") {
			return true
		}
	}
	return false
}

var rootFilesystem = &Rule{
	Doc: Doc{
		ID:    "root-filesystem",
		Title: "root or alias at / or a system directory",
		Why: `"root /;" serves the whole filesystem: /etc/passwd, private keys and the configuration
itself are one request away wherever a location without a handler reaches files. A root at
/etc or /proc does the same for the files there. The directory named is judged, ".." resolved:
/etc, /run, /var/lib, /dev/shm themselves and anything under /proc, /sys and /dev are the
system's; an application's directory below them (/etc/nginx/errors, /run/app/files,
/var/lib/app/media, GitLab's /dev/shm/gitlab/avatars) is someone's deliberate choice.`,
		Fix:      `Point root at the directory that holds the site and nothing else (/var/www/site).`,
		Bad:      "events {}\nhttp {\n    server {\n        root /;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        root /var/www/site;\n    }\n}\n",
		Severity: finding.Error,
		Category: CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_core_module root", "gixy: root at / (the check's idea; written anew here)"},
	},
	Check: checkRootFilesystem,
}

func checkRootFilesystem(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Name == "root" && servesNothing(p, c) {
			return // no request is answered from this root
		}
		v := strings.TrimSuffix(d.Arg(0), "/")
		if v == "" && d.Arg(0) == "/" {
			p.ReportArgf(d, 0, "%s / serves the whole filesystem (/etc/passwd, keys, this configuration) wherever files are served; point it at the site's own directory", d.Name)
			return
		}
		// the directory itself; a subdirectory (/etc/nginx/errors,
		// /var/lib/app/media, /run/app/files) is someone's deliberate choice
		if systemDirectory(d.Arg(0)) {
			p.ReportArgf(d, 0, "%s %s serves a system directory; point it at the site's own directory", d.Name, clip(d.Arg(0)))
		}
	}, "root", "alias")
}

var sslStaplingNoResolver = &Rule{
	Doc: Doc{
		ID:    "ssl-stapling-no-resolver",
		Title: "OCSP stapling without a resolver",
		Why: `With "ssl_stapling on" nginx fetches OCSP responses from the certificate authority's
responder, by name; without a resolver (and without ssl_stapling_file or
ssl_stapling_responder given as an address) it cannot resolve that name, logs "no resolver
defined to resolve ..." and staples nothing, so clients check revocation themselves, slower.`,
		Fix:      `Add "resolver 127.0.0.53 valid=300s;" (or your DNS server) where stapling is on, or ssl_stapling_file.`,
		Bad:      "events {}\nhttp {\n    server {\n        listen 443 ssl;\n        ssl_stapling on;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    resolver 127.0.0.53 valid=300s;\n    server {\n        listen 443 ssl;\n        ssl_stapling on;\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_ssl_module ssl_stapling, ssl_stapling_file; ngx_http_core_module resolver"},
	},
	Check: checkSslStaplingNoResolver,
}

func checkSslStaplingNoResolver(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Arg(0) != "on" || inStream(c) {
			return
		}
		for _, name := range []string{"resolver", "ssl_stapling_file", "ssl_stapling_responder"} {
			if s := p.Effective(c.Blocks, c.Root, name); s.Found() || !s.Complete {
				return
			}
		}
		// servers below may bring their own
		below := false
		if len(c.Blocks) > 0 {
			walkDirs(c.Blocks[len(c.Blocks)-1].Block, func(x *parser.Directive) {
				below = below || x.Name == "resolver" || x.Name == "ssl_stapling_file" || x.Name == "ssl_stapling_responder"
			})
		}
		if below {
			return
		}
		p.Reportf(d, "ssl_stapling on without a resolver: nginx cannot look up the OCSP responder and staples nothing; add \"resolver <DNS server> valid=300s;\"")
	}, "ssl_stapling")
}

var allowWithoutDeny = &Rule{
	Doc: Doc{
		ID:    "allow-without-deny",
		Title: "allow without a deny: everyone is allowed",
		Why: `allow and deny are checked in order and the default is to allow: a block with "allow
10.0.0.0/8;" and no deny lets every address in. A deny written in an outer block does not
help: an inner block's own allow/deny list replaces the inherited one.`,
		Fix:      `End the list with "deny all;".`,
		Bad:      "events {}\nhttp {\n    server {\n        location /admin/ {\n            allow 10.0.0.0/8;\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /admin/ {\n            allow 10.0.0.0/8;\n            deny all;\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: CategorySecurity,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_access_module"},
	},
	Check: checkAllowWithoutDeny,
}

func checkAllowWithoutDeny(p *Pass) {
	done := map[*parser.Directive]bool{}
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) || done[d] || d.Arg(0) == "all" {
			return
		}
		if len(c.Blocks) == 0 && c.Root != nil && c.Root.ContextSource != "root" {
			return // a snippet of allow lines, included where the deny follows
		}
		var dirs []*parser.Directive
		if len(c.Blocks) > 0 {
			dirs = c.Blocks[len(c.Blocks)-1].Block
		} else if c.Root != nil {
			dirs = c.Root.Directives
		}
		lvl := level(dirs)
		for _, x := range lvl {
			if x.Name == "allow" {
				done[x] = true
			}
		}
		for _, x := range lvl {
			if x.Name == "deny" {
				return
			}
		}
		outer := ""
		var related []finding.Related
		if len(c.Blocks) > 0 {
			if s := p.Effective(c.Blocks[:len(c.Blocks)-1], c.Root, "deny"); s.Found() {
				outer = fmt.Sprintf(" (the deny at %s does not help: this block's own allow list replaces the inherited one)", where(s.Last()))
				related = append(related, relatedTo(s.Last(), "the outer deny, replaced here"))
			}
		}
		diag := p.Diag(d, "allow %s with no deny in this block lets every address in (the default is to allow)%s; add \"deny all;\" after the allow lines", clip(d.Arg(0)), outer)
		diag.Related = related
		p.Report(diag)
	}, "allow")
}

// ifSafe are the directives that behave as written inside "if" in a
// location; anything else runs in a location nginx builds for the if, with
// surprising inheritance (the nginx wiki's "If is Evil").
var ifSafe = map[string]bool{"return": true, "rewrite": true, "set": true, "break": true, "if": true, "access_log": true}

var ifIsEvil = &Rule{
	Doc: Doc{
		ID:    "if-is-evil",
		Title: `"if" in a location with directives other than return and rewrite`,
		Why: `Inside a location, "if" creates a nested location of its own: when the condition holds,
the request is handled by that inner location, which inherits some settings and not others.
try_files, proxy_pass with a URI, add_header and the like behave unexpectedly there, and some
combinations crash workers. return and rewrite ... last are the safe uses; set and rewrite ...
break are safe only where the location has no try_files, which the if's location does not
inherit (measured with nginx 1.22.1: "location / { try_files $uri /index.html; if ($arg_x) {
set $a 1; } }" answers /missing?x=1 with 404, /missing with index.html).`,
		Fix:      `Keep only return, rewrite or set inside "if"; move the rest into a location of its own, a map, or the directives' own conditions.`,
		Bad:      "events {}\nhttp {\n    server {\n        location / {\n            if ($arg_debug) {\n                add_header X-Debug on;\n            }\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location / {\n            if ($arg_debug) {\n                return 403;\n            }\n        }\n    }\n}\n",
		Severity: finding.Info,
		Category: CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_rewrite_module if", "nginx wiki: If is Evil"},
	},
	Check: checkIfIsEvil,
}

func checkIfIsEvil(p *Pass) {
	p.each(func(d *parser.Directive, c *parser.Context) {
		if d.Block == nil || inStream(c) || c.In() != parser.CtxLocation {
			return
		}
		lvl := level(d.Block)
		for _, x := range lvl {
			if x.Name == "return" {
				return // the request ends in the rewrite phase: nothing else here takes effect on it but logging
			}
		}
		for _, x := range lvl {
			if !ifSafe[x.Name] {
				p.Reportf(x, "%s inside \"if\" in a location runs in a location nginx makes for the if, with its own inheritance; keep return, rewrite or set there and move %s out", x.Name, x.Name)
				return
			}
		}
		// set or rewrite ... break keep the request in the if's location,
		// which has no try_files of its own (measured with nginx 1.22.1: a
		// 404 where the location's fallback answers without the condition)
		loc := c.Enclosing(parser.CtxLocation)
		if loc == nil || len(p.index.find(loc.Block, "try_files")) == 0 {
			return
		}
		for _, x := range lvl {
			if x.Name == "rewrite" && len(x.Args) >= 3 && x.Arg(2) != "break" {
				return // last re-runs the location search; redirect and permanent end the request
			}
		}
		tf := p.index.find(loc.Block, "try_files")[0]
		p.Reportf(d, "when this \"if\" holds, the if's own location handles the request, and \"try_files %s\" is skipped (it is not inherited; measured: a 404 where the fallback answers otherwise); set the value with a map outside the location, or end the if with return or rewrite ... last", clip(strings.Join(tf.ArgValues(), " ")))
	}, "if")
}

// captureGroups counts the capture groups of a PCRE pattern: "(" that is
// not escaped, not in a character class, and not "(?" unless it names a
// group.
func captureGroups(re string) int {
	n := 0
	regexSyntax(re, func(i int) {
		if re[i] == '(' && capturing(re, i) {
			n++
		}
	})
	return n
}

var regexCaptureMissing = &Rule{
	Doc: Doc{
		ID:    "regex-capture-missing",
		Title: "A $N that its regular expression does not capture",
		Why: `$1..$9 are the groups of the last regular expression matched: a location regex, or the
rewrite's own. A reference past the groups it has is an empty string, so a rewrite or alias
built from it quietly points somewhere else (often the root of the site).`,
		Fix:      `Add the missing group to the expression, or use the number it has.`,
		Bad:      "events {}\nhttp {\n    server {\n        rewrite ^/old/(.*)$ /new/$2 permanent;\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        rewrite ^/old/(.*)$ /new/$1 permanent;\n    }\n}\n",
		Severity: finding.Warning,
		Category: CategoryCorrectness,
		Since:    "0.2.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_rewrite_module rewrite", "nginx docs: ngx_http_core_module location"},
	},
	Check: checkRegexCaptureMissing,
}

func checkRegexCaptureMissing(p *Pass) {
	check := func(d *parser.Directive, groups int, values []parser.Arg, what string) {
		for _, a := range values {
			for _, r := range varsIn(a.Value) {
				if r.end-r.start != 2 || r.name[0] < '1' || r.name[0] > '9' {
					continue // a named variable, or a capture written ${N}
				}
				if n := int(r.name[0] - '0'); n > groups {
					p.ReportArgf(d, argIndex(d, a), "$%d refers to group %d, but %s has %d; it is empty at run time", n, n, what, groups)
					return
				}
			}
		}
	}
	p.each(func(d *parser.Directive, c *parser.Context) {
		if inStream(c) {
			return
		}
		if d.Name == "rewrite" && len(d.Args) >= 2 {
			check(d, captureGroups(d.Arg(0)), d.Args[1:2], "the rewrite's expression "+clip(d.Arg(0)))
			return
		}
		// inside an "if" with a regex test: its captures
		if c.In() == parser.CtxIf {
			b := c.Enclosing("if")
			if _, op, re, ok := ifCondition(b); ok && (op == "~" || op == "~*") {
				for _, x := range b.Block {
					if x == d {
						break
					}
					if x.Name == "rewrite" {
						return
					}
				}
				check(d, captureGroups(re), d.Args, "the if's expression "+clip(re))
			}
			return
		}
		// directives that read the location's captures
		loc := c.Enclosing(parser.CtxLocation)
		if loc == nil || len(loc.Args) != 2 || (loc.Arg(0) != "~" && loc.Arg(0) != "~*") || c.In() != parser.CtxLocation {
			return
		}
		// a rewrite earlier in the block replaces the captures
		for _, x := range loc.Block {
			if x == d {
				break
			}
			if x.Name == "rewrite" || x.Name == "if" {
				return
			}
		}
		check(d, captureGroups(loc.Arg(1)), d.Args, "the location's expression "+clip(loc.Arg(1)))
	}, "rewrite", "alias", "root", "proxy_pass", "fastcgi_param", "try_files", "return", "set", "add_header")
}

func argIndex(d *parser.Directive, a parser.Arg) int {
	for i := range d.Args {
		if d.Args[i].Offset == a.Offset {
			return i
		}
	}
	return 0
}

// servesNothing reports whether the block a root stands in answers no
// request from it: a location that hands every request on (proxy_pass,
// return, ...), or a server whose "location /" and every other location
// do, or have a root or alias of their own.
func servesNothing(p *Pass, c *parser.Context) bool {
	b := c.Blocks
	if len(b) == 0 {
		return false
	}
	block := b[len(b)-1]
	handles := func(l *parser.Directive) bool {
		for _, x := range level(l.Block) {
			if knowledge.Handlers[x.Name] || x.Name == "alias" || x.Name == "root" {
				return true
			}
		}
		return false
	}
	switch block.Name {
	case "location":
		for _, x := range level(block.Block) {
			if knowledge.Handlers[x.Name] {
				return true
			}
		}
		return false
	case "server":
		slash := false
		var all func(ds []*parser.Directive) bool
		all = func(ds []*parser.Directive) bool {
			for _, x := range ds {
				if x.Name != "location" || x.Block == nil {
					continue
				}
				if len(x.Args) == 1 && x.Arg(0) == "/" {
					slash = true
				}
				if !handles(x) || !all(level(x.Block)) {
					return false
				}
			}
			return true
		}
		return all(level(block.Block)) && slash
	}
	return false
}
