package rules

import (
	"net"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// Argument values nginx -t refuses, beyond their number: the words of
// enum and bitmask slots (from the directive table, as nginx's source
// lists them), the parameters of listen and of an upstream's server, the
// flag a third argument of add_header or *_param must be, and error_page's
// codes. Each is reported as directive-args.

// valuesWith checks d's argument values against what the table's rows for
// its version and context give (ctxRows: the slot every row has, else the
// words they list, else the name's own check); called once the number of
// arguments is right. Where the context is a guess (a fragment read alone,
// cr.certain false), the rows are every row of the name, and only the
// checks that judge the same in every context run. maybeTemplated is false
// when no argument holds a byte a template's placeholder needs
// (mayBeTemplated).
func valuesWith(p *Pass, d *parser.Directive, c *parser.Context, cr *ctxRows, maybeTemplated bool) {
	if len(d.Args) == 0 || maybeTemplated && templated(d.Args[0].Raw) {
		return
	}
	if cr.slot != "" {
		slotAt(p, d, cr.slot)
		return
	}
	if len(cr.values) > 0 {
		wordsAt(p, d, cr.values, cr.bitmask)
		return
	}
	check, ok, certain := cr.check, cr.hasCheck, cr.certain
	if !certain {
		// a *_pass only http has, or a proxy_pass with a scheme, is
		// http's wherever the fragment is included
		if knowledge.IsPassHandler(d.Name) && (d.Name != "proxy_pass" || strings.Contains(d.Arg(0), "://")) {
			passPortAt(p, d, c, false)
		}
		if !check.anyContext {
			return
		}
	}
	if ok {
		check.run(p, d, c, certain)
	}
}

// rowsSlot is the standard slot of the rows, "" unless every row has the
// same.
func rowsSlot(rows []knowledge.Directive) string {
	slot := ""
	for i, r := range rows {
		if r.Slot == "" || i > 0 && r.Slot != slot {
			return ""
		}
		slot = r.Slot
	}
	return slot
}

// rowsValues are the words of the rows' enum or bitmask slots: only when
// every row for the context has the same kind of list (one module's
// directive).
func rowsValues(rows []knowledge.Directive) (values []string, bitmask bool) {
	for i, r := range rows {
		if len(r.Values) == 0 || i > 0 && r.Bitmask != bitmask {
			return nil, false
		}
		values, bitmask = append(values, r.Values...), r.Bitmask
	}
	return values, bitmask
}

// wordsAt checks an enum slot's word (a bitmask's words) against values.
func wordsAt(p *Pass, d *parser.Directive, values []string, bitmask bool) {
	args := d.Args[:1]
	if bitmask {
		args = d.Args
	}
	for i, a := range args {
		if strings.ContainsAny(a.Value, "$") || templated(a.Raw) || containsFold(values, a.Value) {
			continue
		}
		if v := newerWith(p, d.Name, a.Value); v != "" {
			p.ReportArgf(d, i, "invalid value %q in %q for nginx %s: nginx -t fails; nginx %s takes it (here: %s)", engine.Clip(a.Value), d.Name, p.Version, v, strings.Join(values, ", "))
			return
		}
		p.ReportArgf(d, i, "invalid value %q in %q: nginx -t fails; it takes %s", engine.Clip(a.Value), d.Name, strings.Join(values, ", "))
		return
	}
}

// valueCheck checks the values of one directive beyond the table's slots
// and word lists. anyContext says it judges alike in every context nginx
// allows the directive: it runs in a fragment read alone too, whose
// context is a guess (certain false).
type valueCheck struct {
	run        func(p *Pass, d *parser.Directive, c *parser.Context, certain bool)
	anyContext bool
}

// valueChecks are the value checks by directive name.
var valueChecks = map[string]valueCheck{
	"listen":              {run: listenValuesAt},
	"server":              {run: upstreamServerAt, anyContext: true},
	"add_header":          {run: onlyFlag("always"), anyContext: true},
	"add_trailer":         {run: onlyFlag("always"), anyContext: true},
	"fastcgi_param":       {run: onlyFlag("if_not_empty"), anyContext: true},
	"scgi_param":          {run: onlyFlag("if_not_empty"), anyContext: true},
	"uwsgi_param":         {run: onlyFlag("if_not_empty"), anyContext: true},
	"error_page":          {run: ofDirective(errorPageAt), anyContext: true},
	"rewrite":             {run: ofDirective(rewriteFlagAt), anyContext: true},
	"expires":             {run: ofDirective(expiresAt), anyContext: true},
	"ssl_session_cache":   {run: ofDirective(sessionCacheAt), anyContext: true},
	"error_log":           {run: ofDirective(errorLogAt), anyContext: true},
	"if":                  {run: ofDirective(ifConditionAt), anyContext: true},
	"disable_symlinks":    {run: ofDirective(disableSymlinksAt), anyContext: true},
	"map":                 {run: ofDirective(variableNamesAt), anyContext: true},
	"geo":                 {run: ofDirective(variableNamesAt)},
	"access_log":          {run: accessLogValuesAt},
	"proxy_pass":          {run: proxyPassValuesAt},
	"location":            {run: ofDirective(locationModifierAt)},
	"return":              {run: returnValuesAt},
	"proxy_cookie_domain": {run: ofDirective(cookieRewriteAt), anyContext: true},
	"proxy_cookie_path":   {run: ofDirective(cookieRewriteAt), anyContext: true},
	"proxy_cookie_flags":  {run: ofDirective(cookieRewriteAt), anyContext: true},
	"proxy_cache_valid":   {run: ofDirective(cacheValidAt), anyContext: true},
	"fastcgi_cache_valid": {run: ofDirective(cacheValidAt), anyContext: true},
	"scgi_cache_valid":    {run: ofDirective(cacheValidAt), anyContext: true},
	"uwsgi_cache_valid":   {run: ofDirective(cacheValidAt), anyContext: true},
	"proxy_cache_path":    {run: ofDirective(cachePathAt), anyContext: true},
	"fastcgi_cache_path":  {run: ofDirective(cachePathAt), anyContext: true},
	"scgi_cache_path":     {run: ofDirective(cachePathAt), anyContext: true},
	"uwsgi_cache_path":    {run: ofDirective(cachePathAt), anyContext: true},
	"fastcgi_pass":        {run: otherPassAt},
	"uwsgi_pass":          {run: otherPassAt},
	"scgi_pass":           {run: otherPassAt},
	"grpc_pass":           {run: otherPassAt},
	"memcached_pass":      {run: otherPassAt},
	"proxy_bind":          {run: ofDirective(bindAt)},
	"fastcgi_bind":        {run: ofDirective(bindAt)},
	"uwsgi_bind":          {run: ofDirective(bindAt)},
	"scgi_bind":           {run: ofDirective(bindAt)},
	"grpc_bind":           {run: ofDirective(bindAt)},
	"memcached_bind":      {run: ofDirective(bindAt)},
}

// ofDirective is a value check that reads the directive alone.
func ofDirective(f func(*Pass, *parser.Directive)) func(*Pass, *parser.Directive, *parser.Context, bool) {
	return func(p *Pass, d *parser.Directive, _ *parser.Context, _ bool) { f(p, d) }
}

// onlyFlag checks a third argument that can only be flag (add_header's
// "always", *_param's "if_not_empty").
func onlyFlag(flag string) func(*Pass, *parser.Directive, *parser.Context, bool) {
	return func(p *Pass, d *parser.Directive, _ *parser.Context, _ bool) {
		if len(d.Args) == 3 && d.Arg(2) != flag && !templated(d.Args[2].Raw) {
			p.ReportArgf(d, 2, "invalid parameter %q in %q: nginx -t fails; the third argument can only be %q", engine.Clip(d.Arg(2)), d.Name, flag)
		}
	}
}

func listenValuesAt(p *Pass, d *parser.Directive, c *parser.Context, _ bool) {
	table := "listen"
	if engine.InStream(c) {
		table = "stream listen"
	} else if c.Has("mail") {
		return
	}
	paramsAt(p, d, table, 1)
}

// upstreamServerAt checks an upstream's server: a server with arguments
// and no block is an upstream's, whatever the context around a fragment.
func upstreamServerAt(p *Pass, d *parser.Directive, c *parser.Context, certain bool) {
	if d.Block != nil || c.In() != parser.CtxUpstream && certain {
		return
	}
	if !upstreamPortAt(p, d) || !certain {
		return
	}
	table := "upstream server"
	if engine.InStream(c) {
		table = "stream upstream server"
	}
	paramsAt(p, d, table, 1)
	if !engine.InStream(c) {
		resolveAt(p, d, c)
	}
}

func otherPassAt(p *Pass, d *parser.Directive, c *parser.Context, _ bool) { passPortAt(p, d, c, false) }

func cachePathAt(p *Pass, d *parser.Directive) { paramsAt(p, d, "cache path", 1) }

func rewriteFlagAt(p *Pass, d *parser.Directive) {
	if len(d.Args) != 3 || templated(d.Args[2].Raw) {
		return
	}
	switch d.Arg(2) {
	case "last", "break", "redirect", "permanent":
	default:
		p.ReportArgf(d, 2, "invalid parameter %q in rewrite: nginx -t fails; the flag is last, break, redirect or permanent", engine.Clip(d.Arg(2)))
	}
}

func sessionCacheAt(p *Pass, d *parser.Directive) {
	for i, a := range d.Args {
		v := a.Value
		if v == "off" || v == "none" || v == "builtin" || strings.HasPrefix(v, "builtin:") || strings.HasPrefix(v, "shared:") || templated(a.Raw) {
			continue
		}
		p.ReportArgf(d, i, "invalid session cache %q in ssl_session_cache: nginx -t fails; it takes off, none, builtin[:SIZE] or shared:NAME:SIZE", engine.Clip(v))
		return
	}
}

func errorLogAt(p *Pass, d *parser.Directive) {
	for i := 1; i < len(d.Args); i++ {
		if !logLevels[d.Arg(i)] && !templated(d.Args[i].Raw) {
			p.ReportArgf(d, i, "invalid log level %q in error_log: nginx -t fails; it takes debug, info, notice, warn, error, crit, alert or emerg", engine.Clip(d.Arg(i)))
			return
		}
	}
}

func accessLogValuesAt(p *Pass, d *parser.Directive, c *parser.Context, _ bool) {
	if !engine.InStream(c) {
		accessLogAt(p, d)
		return
	}
	if len(d.Args) == 1 && d.Arg(0) != "off" {
		p.Reportf(d, "access_log %s in stream needs a log format: nginx -t fails with \"log format is not specified\" (stream has no default format; declare one with log_format in stream)", engine.Clip(d.Arg(0)))
	}
}

func proxyPassValuesAt(p *Pass, d *parser.Directive, c *parser.Context, _ bool) {
	if passPortAt(p, d, c, engine.InStream(c)) {
		proxyPassURIAt(p, d, c)
	}
}

func locationModifierAt(p *Pass, d *parser.Directive) {
	if len(d.Args) != 2 || templated(d.Args[0].Raw) {
		return
	}
	switch d.Arg(0) {
	case "=", "~", "~*", "^~":
	default:
		p.ReportArgf(d, 0, "invalid location modifier %q: nginx -t fails; a location is \"PATH\", \"@NAME\", or a modifier (=, ~, ~*, ^~) and a path", engine.Clip(d.Arg(0)))
	}
}

func returnValuesAt(p *Pass, d *parser.Directive, c *parser.Context, _ bool) {
	if engine.InStream(c) || len(d.Args) == 0 || templated(d.Args[0].Raw) {
		return
	}
	v := d.Arg(0)
	if isNum(v) && len(v) <= 3 || len(d.Args) == 1 && (strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "$scheme")) {
		return
	}
	p.ReportArgf(d, 0, "invalid return code %q: nginx -t fails; return takes a status code (and a text or URL), or a URL starting with http://, https:// or $scheme alone", engine.Clip(v))
}

func bindAt(p *Pass, d *parser.Directive) {
	v := d.Arg(0)
	if v == "off" || strings.Contains(v, "$") || templated(d.Args[0].Raw) {
		return
	}
	if net.ParseIP(strings.Trim(v, "[]")) == nil {
		p.ReportArgf(d, 0, "invalid address %q in %q: nginx -t fails; it takes off, an IP address (\"transparent\" after it) or a variable", engine.Clip(v), d.Name)
		return
	}
	if len(d.Args) == 2 && d.Arg(1) != "transparent" {
		p.ReportArgf(d, 1, "invalid parameter %q in %q: nginx -t fails; after the address only \"transparent\"", engine.Clip(d.Arg(1)), d.Name)
	}
}

// variableNamesAt checks the variables map and geo set: the last
// argument; geo's optional first (the address) is a variable too.
func variableNamesAt(p *Pass, d *parser.Directive) {
	for i, a := range d.Args {
		if d.Name == "map" && i == 0 || templated(a.Raw) {
			continue
		}
		if !strings.HasPrefix(a.Value, "$") {
			p.ReportArgf(d, i, "invalid variable name %q in %s: nginx -t fails; write it with $ (%s $%s ...)", engine.Clip(a.Value), d.Name, d.Name, engine.Clip(a.Value))
			return
		}
	}
}

func cookieRewriteAt(p *Pass, d *parser.Directive) {
	if len(d.Args) != 1 || d.Arg(0) == "off" || templated(d.Args[0].Raw) {
		return
	}
	more := "a value and its replacement"
	if d.Name == "proxy_cookie_flags" {
		more = "a cookie's name and its flags"
	}
	p.ReportArgf(d, 0, "invalid parameter %q in %q: nginx -t fails; one argument can only be \"off\", else %s", engine.Clip(d.Arg(0)), d.Name, more)
}

// ifConditionAt checks an if's condition as ngx_http_rewrite_if_condition
// reads it: a variable alone, a variable, an operator (=, !=, ~, ~*, !~,
// !~*) and a value, or a file test (-f, -d, -e, -x, each with "!") and a
// path.
func ifConditionAt(p *Pass, d *parser.Directive) {
	if len(d.Args) == 0 || templated(d.Args[0].Raw) {
		return
	}
	v, op, operand, ok := ifCondition(d)
	if !ok {
		if strings.HasPrefix(v, "$") && op != "" {
			// "$var =" and no value (ngx_http_rewrite_if_condition takes a
			// variable alone or with an operator and a value)
			p.ReportArgf(d, 0, "invalid condition %q in if: nginx -t fails; %q needs a value after it (\"$var %s value\"), or the variable stands alone", engine.Clip(v), engine.Clip(op), engine.Clip(op))
		}
		return // the parts are more than nginx's parser would take apart here; not judged
	}
	switch {
	case op == "" && operand == "":
		// one part: a variable, or a file test glued to nothing
		if strings.HasPrefix(v, "$") {
			return
		}
		p.ReportArgf(d, 0, "invalid condition %q in if: nginx -t fails; a condition is a variable, \"$var OP value\" (=, !=, ~, ~*, !~, !~*) or a file test (-f, -d, -e, -x)", engine.Clip(v))
	default:
		if !strings.HasPrefix(v, "$") {
			return // a file test: "-f" and a path read as two parts
		}
		switch op {
		case "=", "!=", "~", "~*", "!~", "!~*":
		default:
			p.ReportArgf(d, 0, "unexpected %q in the condition of if: nginx -t fails; the operators are =, !=, ~, ~*, !~ and !~*", engine.Clip(op))
		}
	}
}

// proxyPassURIAt reports a proxy_pass with a URI part (a path after the
// host) and no variables where nginx cannot substitute one: in a regex or
// named location, inside "if" or "limit_except" (ngx_http_proxy_pass).
func proxyPassURIAt(p *Pass, d *parser.Directive, c *parser.Context) {
	v := d.Arg(0)
	if strings.Contains(v, "$") || templated(d.Args[0].Raw) {
		return
	}
	_, rest, ok := strings.Cut(v, "://")
	if !ok || !strings.Contains(rest, "/") || strings.HasPrefix(v, "unix:") {
		return
	}
	if strings.HasPrefix(rest, "unix:") {
		// unix:/path:/uri: the URI part follows the socket's colon
		if i := strings.LastIndex(rest, ":"); i < 0 || !strings.HasPrefix(rest[i+1:], "/") {
			return
		}
	}
	where := ""
	for i := len(c.Blocks) - 1; i >= 0 && where == ""; i-- {
		b := c.Blocks[i]
		switch {
		case b.Name == "if":
			where = "inside \"if\""
		case b.Name == "limit_except":
			where = "inside \"limit_except\""
		case b.Name == "location":
			if _, isRe := locationRegex(b); isRe {
				where = "in a regex location"
			} else if strings.HasPrefix(b.Arg(0), "@") {
				where = "in a named location"
			}
			i = -1 // the innermost location decides
		}
	}
	if where == "" {
		return
	}
	p.ReportArgf(d, 0, "proxy_pass %s has a URI part %s: nginx -t fails with \"proxy_pass cannot have URI part...\"; drop the path (nginx passes the request's URI), or rewrite the URI first", engine.Clip(v), where)
}

var logLevels = map[string]bool{
	"debug": true, "info": true, "notice": true, "warn": true, "error": true, "crit": true, "alert": true, "emerg": true,
	"debug_core": true, "debug_alloc": true, "debug_mutex": true, "debug_event": true, "debug_http": true, "debug_mail": true, "debug_stream": true,
}

// expiresAt checks expires: [modified] TIME, @TIME-OF-DAY, epoch, max or
// off (ngx_http_headers_expires).
func expiresAt(p *Pass, d *parser.Directive) {
	args := d.Args
	if len(args) == 2 {
		if args[0].Value != "modified" {
			p.ReportArgf(d, 0, "invalid value %q in expires: nginx -t fails; two arguments are \"modified\" and a time", engine.Clip(args[0].Value))
			return
		}
		args = args[1:]
	}
	v := args[0].Value
	if strings.Contains(v, "$") || templated(args[0].Raw) {
		return
	}
	switch {
	case len(d.Args) == 1 && (v == "epoch" || v == "max" || v == "off"):
	case strings.HasPrefix(v, "@") && isTimeSpan(v[1:]):
	case isTimeSpan(v):
	default:
		p.ReportArgf(d, len(d.Args)-1, "invalid value %q in expires: nginx -t fails; it takes a time (30d, 1h), @TIME-OF-DAY, epoch, max or off", engine.Clip(v))
	}
}

// accessLogAt checks access_log's parameters: off alone, or a path, a
// format and buffer=, gzip[=LEVEL], flush=, if= (ngx_http_log_set_log).
func accessLogAt(p *Pass, d *parser.Directive) {
	if d.Arg(0) == "off" {
		if len(d.Args) > 1 {
			p.ReportArgf(d, 1, "invalid parameter %q in access_log: nginx -t fails; \"off\" takes nothing after it", engine.Clip(d.Arg(1)))
		}
		return
	}
	for i := 2; i < len(d.Args); i++ {
		a := d.Args[i]
		if templated(a.Raw) {
			return
		}
		v := a.Value
		if v == "gzip" || strings.HasPrefix(v, "gzip=") || strings.HasPrefix(v, "buffer=") || strings.HasPrefix(v, "flush=") || strings.HasPrefix(v, "if=") {
			continue
		}
		p.ReportArgf(d, i, "invalid parameter %q in access_log: nginx -t fails; after the format it takes buffer=, gzip, flush= and if=", engine.Clip(v))
		return
	}
}

// paramsAt checks the words after the first from-1 arguments of d against
// a parameter table.
func paramsAt(p *Pass, d *parser.Directive, table string, from int) {
	for i := from; i < len(d.Args); i++ {
		a := d.Args[i]
		if strings.Contains(a.Value, "$") || templated(a.Raw) {
			return
		}
		known, since, ok := knowledge.ParamKnown(table, a.Value, p.Version)
		if known && !p.Version.Known() {
			// no version given: the oldest nginx the table knows decides
			// whether the versions differ
			_, ov := knowledge.OldestCore()
			if _, added, _ := knowledge.ParamKnown(table, a.Value, ov); added != "" {
				var older []string
				for _, v := range knowledge.CoreVersions() {
					if knowledge.MustVersion(v).Less(knowledge.MustVersion(added)) {
						older = append(older, v)
					}
				}
				diag := p.DiagArg(d, i, "parameter %q of %q came with nginx %s: nginx %s, of the versions nginxtune knows, fail with \"invalid parameter\"", engine.Clip(a.Value), d.Name, added, strings.Join(older, ", "))
				diag.Severity = finding.Info
				p.Report(diag)
				return
			}
		}
		switch {
		case known && !paramValueOK(table, a.Value):
			p.ReportArgf(d, i, "invalid parameter %q in %q: nginx -t fails; %s", engine.Clip(a.Value), d.Name, paramValueWant[strings.SplitN(a.Value, "=", 2)[0]])
			return
		case !ok || known:
		case since != "":
			p.ReportArgf(d, i, "invalid parameter %q in %q for nginx %s: nginx -t fails; nginx %s added it", engine.Clip(a.Value), d.Name, p.Version, since)
			return
		default:
			p.ReportArgf(d, i, "invalid parameter %q in %q: nginx -t fails", engine.Clip(a.Value), d.Name)
			return
		}
	}
}

// errorPageAt checks error_page's codes: every argument but the last is a
// status from 300 to 599, the one before the last may be "=" or "=CODE".
func errorPageAt(p *Pass, d *parser.Directive) {
	n := len(d.Args)
	for i := 0; i < n-1; i++ {
		v := d.Arg(i)
		if strings.Contains(v, "$") || templated(d.Args[i].Raw) {
			return
		}
		if i == n-2 && i > 0 && strings.HasPrefix(v, "=") {
			if rest := v[1:]; rest != "" {
				if code, err := strconv.Atoi(rest); err != nil || code < 0 {
					p.ReportArgf(d, i, "invalid value %q in error_page: nginx -t fails; the answer's code is \"=\" or \"=CODE\"", engine.Clip(v))
					return
				}
			}
			continue
		}
		code, err := strconv.Atoi(v)
		if err != nil || code < 300 || code > 599 {
			p.ReportArgf(d, i, "invalid value %q in error_page: nginx -t fails; a code must be between 300 and 599 (%s)", engine.Clip(v), errorPageHint(err))
			return
		}
	}
}

func errorPageHint(err error) string {
	if err != nil {
		return "a number"
	}
	return "no 1xx or 2xx"
}

func containsFold(list []string, v string) bool {
	for _, x := range list {
		if strings.EqualFold(x, v) {
			return true
		}
	}
	return false
}

// newerWith names the oldest nginx newer than the linted one whose table
// row takes value for the directive, "" when none does.
func newerWith(p *Pass, name, value string) string {
	best := ""
	for _, r := range knowledge.Lookup(name) {
		if !containsFold(r.Values, value) {
			continue
		}
		for _, v := range r.Core {
			if p.Version.Less(knowledge.MustVersion(v)) && (best == "" || knowledge.MustVersion(v).Less(knowledge.MustVersion(best))) {
				best = v
			}
		}
	}
	return best
}

// resolveNeeds is the first nginx whose upstream servers take "resolve".
var resolveNeeds = knowledge.MustVersion("1.27.3")

// resolveAt reports an upstream server with "resolve" whose upstream is
// not in shared memory (no zone) or has no resolver in effect: nginx
// fails at load ("resolving names at run time requires upstream ... to be
// in shared memory", "no resolver defined to resolve names at run time").
func resolveAt(p *Pass, d *parser.Directive, c *parser.Context) {
	if hasArg(d, "resolve") < 1 || !p.Version.Known() || p.Version.Less(resolveNeeds) {
		return
	}
	up := c.Enclosing(parser.CtxUpstream)
	if up == nil {
		return
	}
	if len(p.Find(up.Block, "zone")) == 0 {
		p.ReportArgf(d, hasArg(d, "resolve"), "server %s resolve in upstream %s without a zone: nginx -t fails with \"resolving names at run time requires upstream ... to be in shared memory\"; add \"zone %s 64k;\" to the upstream", engine.Clip(d.Arg(0)), engine.Clip(up.Arg(0)), engine.Clip(up.Arg(0)))
		return
	}
	if len(p.Find(up.Block, "resolver")) > 0 {
		return
	}
	if http := c.Enclosing(parser.CtxHTTP); http != nil && len(p.Find(http.Block, "resolver")) > 0 || http == nil || p.Tree.HasUnread() {
		return
	}
	p.ReportArgf(d, hasArg(d, "resolve"), "server %s resolve in upstream %s with no resolver in the upstream or http: nginx -t fails with \"no resolver defined to resolve names at run time\"; add a resolver", engine.Clip(d.Arg(0)), engine.Clip(up.Arg(0)))
}

// The shapes of nginx's number slots, written out: these run on most
// directives of every tree, the pre-commit hook's too, where compiling the
// equivalent expressions cost a tenth of a millisecond a run.
// TestValueShapesMatchExpressions holds each to its expression (in its
// comment) over generated and fuzzed strings.

// digits reports the length of s's leading run of ASCII digits.
func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// numberWithUnit: ^[0-9]+[UNITS]?$, a number and at most one of the unit
// letters.
func numberWithUnit(s, units string) bool {
	n := digits(s)
	return n > 0 && (n == len(s) || n == len(s)-1 && strings.IndexByte(units, s[n]) >= 0)
}

// isNum: ^[0-9]+$
func isNum(s string) bool { return numberWithUnit(s, "") }

// isSize: ^[0-9]+[kKmM]?$
func isSize(s string) bool { return numberWithUnit(s, "kKmM") }

// isOffset: ^[0-9]+[kKmMgG]?$
func isOffset(s string) bool { return numberWithUnit(s, "kKmMgG") }

// timeUnit reports the length of the unit at the start of s (ms, s, m, h,
// d, w, M, y), 0 for none.
func timeUnit(s string) int {
	switch {
	case strings.HasPrefix(s, "ms"):
		return 2
	case s != "" && strings.IndexByte("smhdwMy", s[0]) >= 0:
		return 1
	}
	return 0
}

// isTime reports whether v is a time as ngx_parse_time reads it for a
// setting: numbers with units (30s, 1h30m), parts may be separated by
// spaces, no sign; milliseconds ("ms") only where ms says the setting
// takes them. Every seconds or milliseconds value nginxtune judges is read
// here.
func isTime(v string, ms bool) bool {
	if strings.TrimSpace(v) == "" {
		return false
	}
	for _, part := range strings.Fields(v) {
		if strings.HasPrefix(part, "-") || !isTimeSpan(part) || !ms && strings.Contains(part, "ms") {
			return false
		}
	}
	return true
}

// isTimeSpan: ^-?([0-9]+(ms|s|m|h|d|w|M|y)?)+$ (nginx's ngx_parse_time as
// expires takes it: numbers with units, no spaces)
func isTimeSpan(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for s != "" {
		n := digits(s)
		if n == 0 {
			return false
		}
		s = s[n:]
		// "ms" is one unit: an "m" followed by "s" could not go on (a
		// number must follow a unit)
		s = s[timeUnit(s):]
	}
	return true
}

// slotAt checks the argument of a standard slot as nginx parses it:
// ngx_parse_size (k, m), ngx_parse_offset (k, m, g), ngx_parse_time (ms in
// millisecond slots only; parts may be separated by spaces), ngx_atoi, and
// bufs' number and size.
func slotAt(p *Pass, d *parser.Directive, slot string) {
	bad := func(i int, what string) {
		p.ReportArgf(d, i, "invalid value %q in %q: nginx -t fails (\"invalid value\"); it takes %s", engine.Clip(d.Arg(i)), d.Name, what)
	}
	check := func(i int, kind string) bool {
		a := d.Args[i]
		if strings.Contains(a.Value, "$") || templated(a.Raw) {
			return true
		}
		v := a.Value
		switch kind {
		case "size":
			if !isSize(v) {
				bad(i, "a size: a number with k or m (16k, 1m)")
				return false
			}
		case "off":
			if !isOffset(v) {
				bad(i, "a size: a number with k, m or g (512m, 1g)")
				return false
			}
		case "num":
			if !isNum(v) {
				bad(i, "a whole number")
				return false
			}
		case "msec", "sec":
			if strings.TrimSpace(v) == "" {
				bad(i, "a time")
				return false
			}
			if !isTime(v, kind == "msec") {
				bad(i, "a time (30s, 5m, 1h30m"+map[bool]string{true: ", 500ms", false: ""}[kind == "msec"]+")")
				return false
			}
		}
		return true
	}
	switch slot {
	case "bufs":
		if len(d.Args) == 2 && check(0, "num") {
			check(1, "size")
		}
	default:
		if len(d.Args) == 1 {
			check(0, slot)
		}
	}
}

// placeholderNote says that a value nginx refuses is a template's
// placeholder left unfilled (CACHE_MAX_AGE, __server_port__, ${PORT}),
// "" for any other value: still an error, since nginx reads it as written.
func placeholderNote(v string) string {
	if !placeholderLike(v) {
		return ""
	}
	return "; " + strconv.Quote(engine.Clip(v)) + " looks like a template placeholder: fill it in before nginx reads it"
}

// placeholderLike reports whether v looks like a placeholder of a
// template: __name__, ${NAME}, $NAME in capitals, NAME_IN_CAPITALS, or
// one of the shapes loader.Templated knows.
func placeholderLike(v string) bool {
	if templated(v) || strings.Contains(v, "${") {
		return true
	}
	if len(v) > 4 && strings.HasPrefix(v, "__") && strings.HasSuffix(v, "__") {
		return true
	}
	w := strings.TrimPrefix(v, "$")
	letters, under := 0, false
	for i := 0; i < len(w); i++ {
		switch ch := w[i]; {
		case ch >= 'A' && ch <= 'Z':
			letters++
		case ch == '_':
			under = true
		case ch >= '0' && ch <= '9':
		default:
			return false
		}
	}
	return letters > 0 && (under || letters >= 4 || w != v)
}

// upstreamPortAt checks the address of an upstream's server: a port
// after the host must be a number from 1 to 65535 (ngx_parse_inet_url:
// "invalid port in upstream"). It reports whether the address passed.
func upstreamPortAt(p *Pass, d *parser.Directive) bool {
	a := d.Arg(0)
	if strings.HasPrefix(a, "unix:") || strings.Contains(a, "$") || templated(d.Args[0].Raw) {
		return true
	}
	host, port, ok := hostPort(a)
	if !ok {
		return true
	}
	if n, err := strconv.Atoi(port); err == nil && n >= 1 && n <= 65535 && isNum(port) {
		return true
	}
	note := placeholderNote(port)
	if note == "" {
		note = placeholderNote(host)
	}
	p.ReportArgf(d, 0, "invalid port in upstream %q: nginx -t fails; a port is a number from 1 to 65535%s", engine.Clip(a), note)
	return false
}

// hostPort splits "host:port" and "[v6]:port" at the port's colon; ok is
// false when the address has no port (or is an IPv6 address alone).
func hostPort(a string) (host, port string, ok bool) {
	if strings.HasPrefix(a, "[") {
		i := strings.Index(a, "]")
		if i < 0 || !strings.HasPrefix(a[i+1:], ":") {
			return "", "", false
		}
		return a[:i+1], a[i+2:], true
	}
	if strings.Count(a, ":") != 1 {
		return "", "", false
	}
	host, port, _ = strings.Cut(a, ":")
	return host, port, true
}

// passPortAt reports a *_pass to "NAME:PORT" where NAME is an upstream
// block of the same http or stream: nginx -t fails with "upstream NAME may
// not have port PORT" (ngx_http_upstream_add, ngx_stream_upstream_add),
// whichever comes first in the files. stream says whose upstreams. It
// reports whether d passed.
func passPortAt(p *Pass, d *parser.Directive, c *parser.Context, stream bool) bool {
	a := d.Arg(0)
	if strings.Contains(a, "$") || templated(d.Args[0].Raw) {
		return true
	}
	host := passAddress(a)
	if _, port, ok := strings.Cut(host, ":"); !ok || !isNum(port) {
		return true // no port: no upstream's name with one
	}
	up, port := portedUpstream(p.upstreamsFor(c.Root, stream), host)
	if up == nil {
		return true
	}
	fixed := strings.Replace(a, ":"+port, "", 1)
	n, _ := strconv.Atoi(port)
	p.ReportArgf(d, 0, "upstream %q may not have port %d: nginx -t fails; %s names the upstream block at %s, whose servers carry the ports: write %q",
		engine.Clip(up.Arg(0)), n, engine.Clip(a), where(up), engine.Clip(fixed))
	return false
}

// upstreamsKey names one set of upstream blocks a *_pass may name: its
// main file's (root), or every fragment's (root nil), of http or stream.
type upstreamsKey struct {
	root   *parser.File
	stream bool
}

// upstreamsFor returns the upstream blocks, by name, that nginx reads with
// a *_pass of the file root: its own main file's, or any fragment's where
// it is a fragment (fragments are included into one http); two main files
// are two nginx instances. Each set is collected once a pass (every
// *_pass of a large tree asks).
func (p *Pass) upstreamsFor(root *parser.File, stream bool) map[string]*parser.Directive {
	mine := isMainRoot(root)
	key := upstreamsKey{nil, stream}
	if mine {
		key.root = root
	}
	if ups, ok := p.upstreams[key]; ok {
		return ups
	}
	ups := map[string]*parser.Directive{}
	p.Each(func(u *parser.Directive, uc *parser.Context) {
		if u.Block != nil && len(u.Args) > 0 && engine.InStream(uc) == stream && (uc.Root == root || !mine && !isMainRoot(uc.Root)) {
			ups[u.Arg(0)] = u
		}
	}, "upstream")
	if p.upstreams == nil {
		p.upstreams = map[upstreamsKey]map[string]*parser.Directive{}
	}
	p.upstreams[key] = ups
	return ups
}

// passAddress is the host[:port] a *_pass argument names, without the
// scheme and the URI part.
func passAddress(a string) string {
	if _, after, ok := strings.Cut(a, "://"); ok {
		a = after
	}
	host, _, _ := strings.Cut(a, "/")
	return host
}

// portedUpstream returns the upstream block of ups that host ("NAME:PORT")
// names with a port, compared as nginx compares names (case-insensitive),
// and the port; nil when host is no upstream's name with a port.
func portedUpstream(ups map[string]*parser.Directive, host string) (*parser.Directive, string) {
	if strings.HasPrefix(host, "unix:") || strings.HasPrefix(host, "[") {
		return nil, ""
	}
	name, port, ok := strings.Cut(host, ":")
	if !ok || !isNum(port) || strings.Contains(port, ":") {
		return nil, ""
	}
	if up, ok := ups[name]; ok {
		return up, port
	}
	for n, up := range ups {
		if strings.EqualFold(n, name) {
			return up, port
		}
	}
	return nil, ""
}

// isMainRoot reports whether a walk's root file is a main file (an nginx
// of its own), not a fragment.
func isMainRoot(f *parser.File) bool { return f != nil && f.ContextSource == "root" }

// cacheValidAt checks proxy_cache_valid and its kin: status codes (100 to
// 599, or "any") and a time last (ngx_http_file_cache_valid_set_slot:
// "invalid status", "invalid time value").
func cacheValidAt(p *Pass, d *parser.Directive) {
	for _, a := range d.Args {
		if strings.Contains(a.Value, "$") || templated(a.Raw) {
			return
		}
	}
	// nginx reads the time first, then the codes
	n := len(d.Args)
	v := d.Arg(n - 1)
	if !isTime(v, false) {
		p.ReportArgf(d, n-1, "invalid time value %q in %q: nginx -t fails; the last argument is how long to cache (10m, 1h)%s", engine.Clip(v), d.Name, placeholderNote(v))
		return
	}
	for i := 0; i < n-1; i++ {
		v := d.Arg(i)
		if v == "any" {
			continue
		}
		if code, err := strconv.Atoi(v); err != nil || !isNum(v) || code < 100 || code > 599 {
			p.ReportArgf(d, i, "invalid status %q in %q: nginx -t fails; the codes are numbers from 100 to 599 or \"any\"%s", engine.Clip(v), d.Name, placeholderNote(v))
			return
		}
	}
}

// paramValueWant says what the value of an upstream server's parameter
// must be (ngx_http_upstream_server, ngx_stream_upstream_server: "invalid
// parameter" for any other).
var paramValueWant = map[string]string{
	"weight": "weight= takes a whole number from 1", "max_fails": "max_fails= takes a whole number",
	"max_conns": "max_conns= takes a whole number", "fail_timeout": "fail_timeout= takes a time (10s, 1m)",
}

// paramValueOK reports whether a known parameter's value is one nginx
// takes; only an upstream server's numbers and times are judged.
func paramValueOK(table, word string) bool {
	if table != "upstream server" && table != "stream upstream server" {
		return true
	}
	name, v, _ := strings.Cut(word, "=")
	switch name {
	case "weight":
		n, err := strconv.Atoi(v)
		return isNum(v) && err == nil && n > 0
	case "max_fails", "max_conns":
		return isNum(v)
	case "fail_timeout":
		return isTime(v, false)
	}
	return true
}

// disableSymlinksAt checks disable_symlinks: off, on or if_not_owner, and
// from= after on or if_not_owner (ngx_http_disable_symlinks: "invalid
// parameter", "from=" cannot be used with "off").
func disableSymlinksAt(p *Pass, d *parser.Directive) {
	mode := ""
	for i, a := range d.Args {
		v := a.Value
		if templated(a.Raw) {
			return
		}
		switch {
		case v == "off" || v == "on" || v == "if_not_owner":
			mode = v
		case strings.HasPrefix(v, "from="):
			if mode == "off" {
				p.ReportArgf(d, i, "\"from=\" cannot be used with \"off\" in disable_symlinks: nginx -t fails; give it after on or if_not_owner")
				return
			}
		default:
			p.ReportArgf(d, i, "invalid parameter %q in disable_symlinks: nginx -t fails; it takes off, on or if_not_owner, then from=", engine.Clip(v))
			return
		}
	}
}
