package knowledge

import (
	"slices"
	"testing"
)

func TestHandlers(t *testing.T) {
	for _, n := range slices.Concat(passHandlers, fileHandlers, otherHandlers) {
		if !IsContentHandler(n) {
			t.Errorf("%s is no content handler", n)
		}
		// hls and api are nginx Plus's, which the table does not read
		if n != "hls" && n != "api" && !Has(n) {
			t.Errorf("the directive table does not know the handler %s", n)
		}
	}
	for _, n := range []string{"proxy_pass", "grpc_pass", "memcached_pass"} {
		if !IsPassHandler(n) || !Responds(n) {
			t.Errorf("%s passes to a backend", n)
		}
	}
	for _, n := range []string{"mp4", "flv", "root", "try_files", "proxy_set_header"} {
		if Responds(n) || IsPassHandler(n) {
			t.Errorf("%s: Responds %v, IsPassHandler %v; it serves files or is no handler", n, Responds(n), IsPassHandler(n))
		}
	}
	if !Responds("return") || IsContentHandler("return") {
		t.Error("return makes the response in the rewrite phase; it sets no content handler")
	}
}

func TestAccessChecks(t *testing.T) {
	for _, n := range AccessChecks() {
		if !IsAccessCheck(n) {
			t.Errorf("IsAccessCheck(%q) is false", n)
		}
		// auth_pam is a third-party module's, auth_jwt nginx Plus's: the
		// table, built from nginx's and Debian's modules' sources, may lack them
		if n != "auth_pam" && n != "auth_jwt" && !Has(n) {
			t.Errorf("the directive table does not know %s", n)
		}
	}
	for _, n := range []string{"allow", "deny", "return", ""} {
		if IsAccessCheck(n) {
			t.Errorf("IsAccessCheck(%q): allow and deny are apart, the others are no access check", n)
		}
	}
}
