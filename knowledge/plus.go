package knowledge

// PlusContexts returns the context keys where an nginx Plus directive the
// table does not hold may stand; ok is false for any other name. These are
// the contexts of the nginx Plus directives nginxtune looks up, which the
// directive table (built from open source) does not hold: nginx Plus
// documentation, ngx_http_auth_jwt_module. A switch, not a map literal
// that every start would build.
func PlusContexts(name string) (keys []string, ok bool) {
	switch name {
	case "auth_jwt":
		return []string{"http", "server", "location", "limit_except"}, true
	}
	return nil, false
}
