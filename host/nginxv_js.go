//go:build js

package host

import "errors"

// RunNginxV has no nginx to run in the browser (GOOS=js): the page says
// which version its findings are for. Kept apart so that nginxcheck (which
// runs programs and writes files) is not linked into the WebAssembly build.
func RunNginxV() (string, error) { return "", errors.New("no nginx to run in the browser") }
