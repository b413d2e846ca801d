//go:build !pprof

package main

import (
	"fmt"
	"os"
)

// profiled runs fn. Profiles need a build with -tags pprof (make
// build-pprof); this one says so when asked for one rather than ignore it.
func profiled(fn func() int) int {
	for _, v := range []string{"NGINXTUNE_CPUPROFILE", "NGINXTUNE_MEMPROFILE"} {
		if os.Getenv(v) != "" {
			fmt.Fprintf(os.Stderr, "nginxtune: %s is ignored: profiles need a build with -tags pprof (make build-pprof)\n", v)
		}
	}
	return fn()
}
