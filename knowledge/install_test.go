package knowledge

import "testing"

func TestPackageFiles(t *testing.T) {
	for _, n := range PackageFiles() {
		if !IsPackageFile(n) {
			t.Errorf("IsPackageFile(%q) is false for a name PackageFiles lists", n)
		}
	}
	for _, n := range []string{"nginx.conf", "sites-enabled", "snippets/fastcgi-php.conf", ""} {
		if IsPackageFile(n) {
			t.Errorf("IsPackageFile(%q): no package installs it beside nginx.conf under that name", n)
		}
	}
	ConfDirs()[0], PackageFiles()[0] = "x", "x"
	if ConfDirs()[0] != "/etc/nginx" || PackageFiles()[0] != "mime.types" {
		t.Error("a caller changed the lists through what ConfDirs and PackageFiles returned")
	}
}
