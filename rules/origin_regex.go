package rules

import (
	"regexp"
	"sort"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var originRegex = &engine.Rule{
	Doc: engine.Doc{
		ID:    "origin-regex",
		Title: "A regex on Origin or Referer that also accepts foreign sites",
		Why: `CORS answers and CSRF or hotlink checks often test $http_origin or $http_referer with a regex.
An unescaped dot matches any character, a missing "^" lets a foreign name end with yours, and
a missing "$" lets yours be the start of a foreign one: "example\.com" accepts
https://example.com.attacker.example. A site that allows credentialed CORS for the origins it
matches then lets the attacker's page read its users' data. Every name the regex spells out is
probed (each branch of an alternation), and a dot whose replacement stays inside the site's own
registrable domain (a.b.example.com as axb.example.com) is not reported; the registrable domain
is the last two labels, three under a country code's co/com/org/... (an approximation of the
public-suffix list). $http_referrer, a header no browser sends, is reported as always empty.`,
		Fix:      `Anchor both ends and escape the dots: "^https://(www\.)?example\.com$" (for Referer, end with "(/|$)").`,
		Bad:      "events {}\nhttp {\n    server {\n        location /api/ {\n            if ($http_origin ~* \"https://example\\.com\") {\n                add_header Access-Control-Allow-Origin $http_origin;\n            }\n        }\n    }\n}\n",
		Good:     "events {}\nhttp {\n    server {\n        location /api/ {\n            if ($http_origin ~* \"^https://example\\.com$\") {\n                add_header Access-Control-Allow-Origin $http_origin;\n            }\n        }\n    }\n}\n",
		Severity: finding.Error,
		Category: engine.CategorySecurity,
		Since:    "0.3.0",
		Versions: "all",
		Sources:  []string{"nginx docs: ngx_http_rewrite_module if, ngx_http_map_module, ngx_http_referer_module", "Fetch standard: CORS protocol", "gixy: origins (the check's idea; written anew here)"},
	},
	Check: check(checkOriginRegex),
	Scope: engine.ScopeServer,
}

// domainLit finds a domain name written in a pattern ("example\.com").
var domainLit = lazyre.New(`(?i)(?:[a-z0-9-]+(?:\\\.|\.))+[a-z][a-z0-9-]*[a-z]`)

// originBypass returns a value a foreign site can send that the pattern
// accepts, or "". subjectURL is true for Origin and Referer (a scheme comes
// first), false for valid_referers (matched from the host on); withPath
// when the value may carry a path (Referer, not Origin).
func originBypass(pattern string, fold, subjectURL, withPath bool) string {
	re, err := regexp.Compile(map[bool]string{true: "(?i)", false: ""}[fold] + pattern)
	if err != nil {
		return "" // PCRE only (lookarounds, backreferences): not judged
	}
	// every name the pattern spells out, longest first: each branch of
	// "(a\.example|b\.example)" is probed
	var domains []string
	for _, m := range domainLit().FindAllString(pattern, -1) {
		domains = append(domains, strings.ReplaceAll(m, `\.`, "."))
	}
	sort.SliceStable(domains, func(i, j int) bool { return len(domains[i]) > len(domains[j]) })
	for _, domain := range domains {
		if a := bypassFor(re, domain, subjectURL, withPath); a != "" {
			return a
		}
	}
	return ""
}

// bypassFor probes a pattern through one of the names it spells out.
func bypassFor(re *regexp.Regexp, domain string, subjectURL, withPath bool) string {
	prefixes := []string{""}
	if subjectURL {
		prefixes = []string{"https://", "http://"}
	}
	var base, pre, host string
	for _, pf := range prefixes {
		for _, h := range []string{domain, "www." + domain} {
			for _, tail := range []string{"", "/", "/page"} {
				if base == "" && re.MatchString(pf+h+tail) {
					base, pre, host = pf+h+tail, pf, h
				}
			}
		}
	}
	if base == "" {
		return ""
	}
	tail := strings.TrimPrefix(base, pre+host)
	attacks := []string{
		pre + host + ".attacker.example" + tail, // suffix left open
		pre + "attacker" + host + tail,          // no boundary before the name
	}
	// an unescaped dot: only where the name it makes lies outside the
	// site's own registrable domain (a.b.example.com as axb.example.com is
	// still example.com's)
	site := registrable(host)
	for i := 0; i < len(host); i++ {
		if host[i] == '.' && i >= len(host)-len(site)-1 {
			attacks = append(attacks, pre+host[:i]+"x"+host[i+1:]+tail)
		}
	}
	if withPath {
		attacks = append(attacks, "https://attacker.example/"+base) // no "^"
	}
	for _, a := range attacks {
		if re.MatchString(a) {
			return a
		}
	}
	// open gaps between the literals ("metrika.*yandex\.ru"): a foreign
	// name put at each place of the accepted URL, kept when the regex
	// still accepts it and its host is not the site's
	for i := len(pre) + 1; i < len(base); i++ {
		for _, ins := range []string{".attacker.example/", "-attacker.example/"} {
			a := base[:i] + ins + base[i:]
			h := strings.TrimPrefix(a, pre)
			if j := strings.IndexAny(h, "/?#"); j >= 0 {
				h = h[:j]
			}
			if re.MatchString(a) && registrable(h) != site && !strings.HasSuffix(h, "."+site) && h != site {
				return a
			}
		}
	}
	return ""
}

// secondLevel are the second-level labels under which country codes let
// names be registered (co.uk, com.au): the registrable domain takes one
// label more there. An approximation of the public-suffix list, which
// nginxtune does not carry.
var secondLevel = map[string]bool{"co": true, "com": true, "net": true, "org": true, "ac": true, "gov": true, "edu": true, "ne": true, "or": true, "go": true}

// registrable is the part of a host name an owner registers: the last two
// labels, three under a country code's second level (example.co.uk).
func registrable(host string) string {
	labels := strings.Split(host, ".")
	n := 2
	if len(labels) >= 3 && len(labels[len(labels)-1]) == 2 && secondLevel[labels[len(labels)-2]] {
		n = 3
	}
	if len(labels) <= n {
		return host
	}
	return strings.Join(labels[len(labels)-n:], ".")
}

func checkOriginRegex(p *Pass) {
	// the header is Referer (RFC 9110 keeps the misspelling): browsers
	// never send "Referrer", so $http_referrer is always empty and a
	// check built on it passes or fails for everyone alike
	referrer := func(w string) bool {
		return strings.Contains(w, "http_referrer") && (strings.Contains(w, "$http_referrer") || strings.Contains(w, "${http_referrer}"))
	}
	// a name or value holds "http_referrer" only where its file's text
	// does (no escape writes a letter or "_"): the directives of the files
	// without it are passed by unread (most files; their arguments were a
	// twentieth of a large tree's first reads)
	var file *parser.File
	holds := true
	for _, v := range p.Visits() {
		d := v.D
		if d.File != file {
			file = d.File
			holds = fileHolds(file, "http_referrer")
		}
		if !holds {
			continue
		}
		found := referrer(d.Name)
		for i := 0; i < len(d.Args) && !found; i++ {
			found = referrer(d.Args[i].Value)
		}
		if found {
			p.ReportSeverityf(finding.Warning, d, "$http_referrer is always empty: the header is Referer, one r (browsers never send \"Referrer\"); write $http_referer")
		}
	}
	report := func(d *parser.Directive, i int, header, pattern, attack string) {
		sev := finding.Error
		if header != "Origin" {
			sev = finding.Warning // a referer check guards less than a CORS answer
		}
		diag := p.DiagSev(sev, d, "the %s regex %s also accepts %q; anchor it (^...$) and escape the dots", header, engine.Clip(pattern), attack)
		if i < len(d.Args) {
			diag.Line, diag.Col, diag.Offset = int(d.Args[i].Line), int(d.Args[i].Col), int(d.Args[i].Offset)
		}
		p.Report(diag)
	}
	header := map[string]string{"$http_origin": "Origin", "$http_referer": "Referer"}
	p.Each(func(d *parser.Directive, c *parser.Context) {
		if engine.InStream(c) {
			return
		}
		switch d.Name {
		case "if":
			v, op, re, ok := ifCondition(d)
			if !ok || header[v] == "" || strings.TrimPrefix(op, "!") != "~" && strings.TrimPrefix(op, "!") != "~*" {
				return
			}
			if a := originBypass(re, strings.HasSuffix(op, "*"), true, header[v] == "Referer"); a != "" {
				report(d, len(d.Args)-2, header[v], re, a)
			}
		case "map":
			if d.Block == nil || header[d.Arg(0)] == "" {
				return
			}
			for _, e := range d.Block {
				if !strings.HasPrefix(e.Name, "~") {
					continue
				}
				re := strings.TrimPrefix(e.Name[1:], "*")
				if a := originBypass(re, strings.HasPrefix(e.Name, "~*"), true, header[d.Arg(0)] == "Referer"); a != "" {
					report(e, len(e.Args), header[d.Arg(0)], re, a)
				}
			}
		case "valid_referers":
			for i, a := range d.Args {
				if strings.HasPrefix(a.Value, "~") {
					// matched case-insensitively against the Referer without its scheme
					if at := originBypass(a.Value[1:], true, false, true); at != "" {
						report(d, i, "Referer", a.Value[1:], at)
					}
				}
			}
		}
	}, "if", "map", "valid_referers")
}
