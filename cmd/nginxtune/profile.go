//go:build pprof

package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// profiled runs fn with Go's CPU profiler writing to $NGINXTUNE_CPUPROFILE
// and writes an allocation profile to $NGINXTUNE_MEMPROFILE at the end:
// how the figures in docs/lint-speed.md were found (go tool pprof FILE).
// Only in a build with -tags pprof (make build-pprof): the profiler's
// packages cost every run a little to initialise, the pre-commit hook's too.
func profiled(fn func() int) int {
	if path := os.Getenv("NGINXTUNE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			defer f.Close() // after the profiler stops: defers run last first
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	code := fn()
	if path := os.Getenv("NGINXTUNE_MEMPROFILE"); path != "" {
		// the profile holds what was allocated up to the last collection:
		// one more takes in the allocations since (the rules', the report's)
		runtime.GC()
		if f, err := os.Create(path); err == nil {
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	return code
}
