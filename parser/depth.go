//go:build !js

package parser

// maxDepth bounds block nesting: 20,000, twice what nginx accepts.
const maxDepth = 20000
