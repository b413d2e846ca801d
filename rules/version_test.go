package rules

import (
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// TestNoVersionJudgedByEveryVersion: with no nginx version, what every
// version of the directive table refuses is an error (a typo, a directive
// in a context none allows) and what some refuse is information; no
// finding tells how to give the version (the run's summary does, once).
// Before, a typo was a warning ("up to nginx 1.30.4 ... give
// --nginx-version to be sure"), so --fail-on error passed it, and "ssl on"
// was an error as if the version were 1.25.1 or later.
func TestNoVersionJudgedByEveryVersion(t *testing.T) {
	unknown, v122, v130 := knowledge.Version{}, knowledge.MustVersion("1.22.1"), knowledge.MustVersion("1.30.4")
	cases := []struct {
		line, rule string
		want       map[knowledge.Version]finding.Severity // absent: no finding of the rule
	}{
		{"locaton / { }", "unknown-directive", map[knowledge.Version]finding.Severity{unknown: finding.Error, v122: finding.Error, v130: finding.Error}},
		{"location / { proxy_pas http://127.0.0.1:1; }", "unknown-directive", map[knowledge.Version]finding.Severity{unknown: finding.Error, v122: finding.Error, v130: finding.Error}},
		{"proxy_pass http://127.0.0.1:1;", "directive-context", map[knowledge.Version]finding.Severity{unknown: finding.Error, v122: finding.Error, v130: finding.Error}},
		{"listen 443 ssl; ssl on; ssl_certificate c; ssl_certificate_key k;", "ssl-directive-removed", map[knowledge.Version]finding.Severity{unknown: finding.Info, v122: finding.Warning, v130: finding.Error}},
		{"http2 on;", "unknown-directive", map[knowledge.Version]finding.Severity{unknown: finding.Info, v122: finding.Error}},
		{"listen 443 quic;", "directive-args", map[knowledge.Version]finding.Severity{unknown: finding.Info, v122: finding.Error}},
		{"location / { sendfile on; }", "unknown-directive", map[knowledge.Version]finding.Severity{}},
		// at http level: resolver in an upstream came with nginx 1.27.3
		{"upstream u { server 127.0.0.1:1; resolver 127.0.0.1; }", "directive-context", map[knowledge.Version]finding.Severity{unknown: finding.Info, v122: finding.Error}},
	}
	for _, c := range cases {
		for _, v := range []knowledge.Version{unknown, v122, v130} {
			conf := "events {}\nhttp {\n    server {\n        " + c.line + "\n    }\n}\n"
			if strings.HasPrefix(c.line, "upstream") {
				conf = "events {}\nhttp {\n    " + c.line + "\n}\n"
			}
			got, n := finding.Severity(-1), 0
			for _, d := range lintText(t, conf, engine.Config{Version: v, Disabled: onlyRules(c.rule)}) {
				if d.Rule == c.rule {
					got, n = d.Severity, n+1
				}
				if !v.Known() && strings.Contains(d.Message, "--nginx-version") {
					t.Errorf("%s: a finding tells how to give the version, which the summary says once: %s", c.line, d.Message)
				}
			}
			want, ok := c.want[v]
			switch {
			case !ok && n > 0:
				t.Errorf("%s (nginx %q): %s reported %v, want nothing", c.line, v, c.rule, got)
			case ok && (n != 1 || got != want):
				t.Errorf("%s (nginx %q): %s reported %d findings, severity %v; want one %v", c.line, v, c.rule, n, got, want)
			}
		}
	}
}
