//go:build !js

package host

import "github.com/nginxtune/nginxtune/internal/nginxcheck"

// RunNginxV runs the installed nginx's "nginx -V" (nginxcheck finds the
// binary and caches the answer under its identity).
func RunNginxV() (string, error) { return (&nginxcheck.Installed{}).V() }
