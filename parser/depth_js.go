//go:build js

package parser

// maxDepth bounds block nesting in the browser (the playground), where Go's
// calls use the JavaScript engine's stack of about 1 MB: Chromium's ran out
// reading, linting and routing from 3,000 to 10,000 nested blocks (a
// RangeError instead of an answer; where depends on whether the code was
// optimised yet), so the bound is 1,000, fifty times
// what real configurations nest.
const maxDepth = 1000
