package knowledge

import "slices"

// accessChecks are the directives of nginx's access phase that restrict a
// request besides allow and deny (ngx_http_access_module): auth_basic,
// auth_request, auth_pam (a third-party module), nginx Plus's auth_jwt,
// and satisfy, which says how the checks combine.
var accessChecks = []string{"auth_basic", "auth_request", "auth_pam", "auth_jwt", "satisfy"}

// AccessChecks lists the directives of the access phase that restrict a
// request besides allow and deny: the authentication modules' and satisfy.
func AccessChecks() []string { return slices.Clone(accessChecks) }

// IsAccessCheck reports whether a directive is one of AccessChecks.
func IsAccessCheck(name string) bool { return slices.Contains(accessChecks, name) }
