package knowledge

import (
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	// no version given: every version that has it, each form with its own
	a, ok := Describe("keepalive", "upstream", Version{})
	if !ok || strings.Join(a.Core, ",") != "1.22.1,1.26.3,1.28.3,1.30.4" {
		t.Fatalf("keepalive: versions %v, want all four", a.Core)
	}
	if len(a.Forms) != 2 || strings.Join(a.Forms[0].Core, ",") != "1.22.1,1.26.3,1.28.3" || strings.Join(a.Forms[1].Core, ",") != "1.30.4" {
		t.Errorf("keepalive: forms %+v, want one to 1.28.3 and one of 1.30.4", a.Forms)
	}
	if len(a.Defaults) != 1 || a.Defaults[0].Value != "32 local" || strings.Join(a.Defaults[0].Core, ",") != "1.30.4" {
		t.Errorf("keepalive: defaults %+v", a.Defaults)
	}
	if a.URL != "https://nginx.org/en/docs/http/ngx_http_upstream_keepalive_module.html#keepalive" || a.Summary == "" {
		t.Errorf("keepalive: url %q, summary %q", a.URL, a.Summary)
	}
	// a version given: that branch's rows
	a, _ = Describe("keepalive", "upstream", MustVersion("1.22.1"))
	if len(a.Forms) != 1 || len(a.Defaults) != 0 || strings.Join(a.Core, ",") != "1.22.1,1.26.3,1.28.3,1.30.4" || a.Missing != "" {
		t.Errorf("keepalive for 1.22.1: %+v", a)
	}
	// a version that does not have it says so
	if a, _ = Describe("http2", "server", MustVersion("1.22.1")); a.Missing != "1.22.1" || len(a.Forms) == 0 {
		t.Errorf("http2 for 1.22.1: %+v", a)
	}
	// a name of two modules: the one the context asks for
	a, _ = Describe("error_log", "http", Version{})
	if a.Module != "ngx_http_core_module" {
		t.Errorf("error_log in http: module %q", a.Module)
	}
	a, _ = Describe("error_log", "main", Version{})
	if a.Module != "ngx_log" || !strings.HasSuffix(a.URL, "ngx_core_module.html#error_log") || len(a.Defaults) != 1 {
		t.Errorf("error_log in main: %+v", a)
	}
	if _, ok := Describe("no_such_directive", "", Version{}); ok {
		t.Error("an unknown name is described")
	}
	// a third-party module: no nginx.org page
	for _, name := range Names() {
		rows := Lookup(name)
		if rows[len(rows)-1].Extra != "" {
			if a, _ := Describe(name, "", Version{}); a.URL != "" || a.Extra == "" {
				t.Errorf("%s: third party, url %q", name, a.URL)
			}
			break
		}
	}
}
