package knowledge

import "slices"

// plusContexts are the contexts of the nginx Plus directives nginxtune looks
// up, which the directive table (built from open source) does not hold:
// nginx Plus documentation, ngx_http_auth_jwt_module.
var plusContexts = map[string][]string{
	"auth_jwt": {"http", "server", "location", "limit_except"},
}

// PlusContexts returns the context keys where an nginx Plus directive the
// table does not hold may stand; ok is false for any other name.
func PlusContexts(name string) (keys []string, ok bool) {
	keys, ok = plusContexts[name]
	return slices.Clone(keys), ok
}
