// Package nginxtune holds the version of nginxtune, from the file VERSION
// beside it: the one place it is written. Releases are tagged vVERSION; a
// build of another commit says so (make build, make deb: VERSION~dev+COMMIT).
package nginxtune

import (
	_ "embed"
	"strings"
)

//go:embed VERSION
var versionFile string

// Version is the release being built, such as "0.6.0".
var Version = strings.TrimSpace(versionFile)
