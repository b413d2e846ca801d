package knowledge

import "testing"

func TestInherited(t *testing.T) {
	for name, want := range map[string]bool{
		"root": true, "add_header": true, "proxy_set_header": true, "gzip": true, "error_page": true,
		"rewrite": false, "return": false, "set": false, "if": false, "try_files": false, "internal": false,
		"proxy_pass": false, "js_content": false, "mp4": false, "stub_status": false, "location": false,
	} {
		if Inherited(name) != want {
			t.Errorf("Inherited(%s) = %v, want %v", name, !want, want)
		}
	}
	for _, a := range Arrays() {
		if !Has(a.Name) || !Inherited(a.Name) {
			t.Errorf("the array directive %s: in the table %v, inherited %v", a.Name, Has(a.Name), Inherited(a.Name))
		}
		if a.Handler != "" && !IsPassHandler(a.Handler) {
			t.Errorf("%s is sent by %s, which passes to no backend", a.Name, a.Handler)
		}
	}
}
