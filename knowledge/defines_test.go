package knowledge

import (
	"slices"
	"strings"
	"testing"
)

func TestDefinedVariable(t *testing.T) {
	for _, c := range []struct {
		directive string
		args      []string
		want      string
	}{
		{"set", []string{"$a", "1"}, "a"},
		{"set", nil, ""},
		{"map", []string{"$uri", "$m"}, "m"},
		{"map", []string{"$uri"}, ""}, // too few: the source is no definition
		{"split_clients", []string{"${remote_addr}x", "$variant"}, "variant"},
		{"geo", []string{"$g"}, "g"},
		{"geo", []string{"$remote_addr", "$g"}, "g"},
		{"perl_set", []string{"$p", "sub { }"}, "p"},
		{"js_set", []string{"$j", "m.f"}, "j"},
		{"js_var", []string{"$v"}, "v"},
		{"auth_request_set", []string{"$u", "$upstream_http_x_user"}, "u"},
		{"set_by_lua_block", []string{"$l"}, "l"},
		{"set_unescape_uri", []string{"$k", "$arg_k"}, "k"},
		{"set_real_ip_from", []string{"10.0.0.0/8"}, ""}, // a trusted address, no variable
		{"set_base32_padding", []string{"on"}, ""},
		{"proxy_set_header", []string{"Host", "$host"}, ""},
	} {
		if got := definedVariable(c.directive, c.args); got != c.want {
			t.Errorf("definedVariable(%s %q) = %q, want %q", c.directive, c.args, got, c.want)
		}
	}
	// every definer is a directive of the table
	for name := range definers {
		if !Has(name) {
			t.Errorf("%s defines a variable but the directive table does not know it", name)
		}
	}
}

func TestNamedCaptures(t *testing.T) {
	for re, want := range map[string][]string{
		`^/(?<a>x)(?'b'y)(?P<c_1>z)$`: {"a", "b", "c_1"},
		`^/(?:x)(?=y)(?i)z`:           nil,
		`(?<1a>x)`:                    nil, // PCRE refuses a digit first
		`/plain`:                      nil,
	} {
		if got := NamedCaptures(re); !slices.Equal(got, want) {
			t.Errorf("NamedCaptures(%q) = %q, want %q", re, got, want)
		}
	}
}

// definedVariable returns the name (without "$") of the variable a
// directive with these arguments defines, "" when none.
func definedVariable(directive string, args []string) string {
	if i, ok := DefinesVariable(directive, len(args)); ok {
		return strings.TrimPrefix(args[i], "$")
	}
	return ""
}
