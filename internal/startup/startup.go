// Package startup sets the runtime up for a command, first of the
// program's initialisation. Only the command imports it;
// it imports only the runtime, and the linker orders its initialisation
// right after the runtime's, before the rest of the standard library's,
// go.yaml.in's and nginxtune's (TestHookStartupRunsFirst holds it there).
//
// What it saves is the runtime's own work at start, which is most of a
// pre-commit hook's run (docs/lint-speed.md, round 4): the main goroutine
// gets the stack a command reaches (grow) and runs on the first processor
// (onFirstP).
package startup

import "runtime"

func init() {
	grow()
	onFirstP()
}

// StackSize is the stack the main goroutine starts the program with. The
// runtime starts it with 2 KB and doubles the stack when a call needs more,
// copying every frame on it and moving the pointers into it (each frame's
// stack map looked up): a lint of Debian's tree doubled it four times, in
// the initialisation of internal/godebug and of yaml (while it compiles its
// expressions) and twice deep in the parser, 0.27 million of the
// pre-commit hook's 4.2 million instructions (callgrind); and the 4, 8 and
// 16 KB stacks came from pools that write into every stack of a fresh 32 KB
// span, a dozen page faults. Grown here, with only the runtime's frames
// below, the copy is of a few hundred bytes.
const StackSize = 32 << 10

// frameSize does not fit a 16 KB stack and fits a 32 KB one: calling a
// function with a frame this large makes the runtime double the stack to
// StackSize at once.
const frameSize = 20 << 10

// grow has a frame of frameSize. The stack is kept: a goroutine's stack
// shrinks only in a garbage collection that finds it a quarter used.
//
//go:noinline
func grow() {
	var frame [frameSize]byte
	frame[probe] = 1
	probe = int(frame[len(frame)-1-probe]) // read: the compiler keeps the frame
}

// probe is 0, in a variable so that the compiler cannot tell which bytes of
// grow's frame are written and read.
var probe int

// onFirstP moves the main goroutine to the runtime's first processor (P)
// by running on one processor for a moment, then on as many as before.
// Each processor has caches of memory spans of its own. The runtime's own
// start allocates on the first, and the main goroutine is often handed to
// the second while runtime.main starts the collector's helpers: it then
// allocated everything in spans of its own while the first processor's
// stayed part-used, 20 more page faults in most pre-commit hook runs (a
// median of 470 against 450 on Debian's tree). Shrinking to one processor
// keeps the goroutine on the first and gives the second's spans back;
// growing back makes the second anew. It has to be done before the other
// packages' initialisation allocates: done later (after syscall's, say)
// it saved nothing.
//
// The number of processors stays what the runtime chose (the GOMAXPROCS
// environment variable's, else the CPUs the process may use). Setting it
// stops the runtime from following later changes of the CPU limits, which
// a command that ends within seconds does not see; one that runs for long
// (the language server) calls FollowCPULimits.
func onFirstP() {
	if n := runtime.GOMAXPROCS(0); n > 1 {
		runtime.GOMAXPROCS(1)
		runtime.GOMAXPROCS(n)
	}
}

// FollowCPULimits lets the runtime follow changes of the process's CPU
// limits again, as it does unless GOMAXPROCS is in the environment
// (envSet), after onFirstP's setting of the number of processors.
func FollowCPULimits(envSet bool) {
	if !envSet {
		runtime.SetDefaultGOMAXPROCS()
	}
}
