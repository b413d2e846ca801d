package rules

import (
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// undefined-reference reads a value's variables as nginx does
// (knowledge.VarRefs): "$0" and "${1}" are the variables "0" and "1", which
// nginx does not define (nginx -t: unknown "0" variable), while "$10" and
// "$1x" are the capture $1 and text. The rule skipped every name that
// starts with a digit.
func TestUndefinedDigitVariables(t *testing.T) {
	cases := []struct {
		body  string
		fires bool
	}{
		{`server { listen 8001; location ~ ^/(a)$ { return 200 "$0"; } }`, true},
		{`server { listen 8001; location ~ ^/(a)$ { return 200 "${1}"; } }`, true},
		{`server { listen 8001; location ~ ^/(a)$ { return 200 "$10$1x"; } }`, false},
		{`server { listen 8001; location ~ ^/(a)$ { set $0 x; return 200 "$0"; } }`, false},
	}
	var bodies []string
	for _, c := range cases {
		fired := false
		for _, d := range lintText(t, "events {}\nhttp {\n"+c.body+"\n}\n", engine.Config{Disabled: onlyRules("undefined-reference")}) {
			fired = fired || d.Rule == "undefined-reference"
		}
		if fired != c.fires {
			t.Errorf("%s: undefined-reference fired=%v, want %v", c.body, fired, c.fires)
		}
		bodies = append(bodies, c.body)
	}
	judgedByNginx(t, nginxtest.Require(t), "undefined-reference", bodies, "says a variable is unknown", func(r nginxtest.Result) bool {
		return strings.HasPrefix(r.Message, "unknown") && strings.HasSuffix(r.Message, "variable")
	})
}
