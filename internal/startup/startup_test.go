package startup

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The number of processors is the runtime's choice after onFirstP, with
// GOMAXPROCS in the environment and without; FollowCPULimits leaves it so.
func TestProcessorsKept(t *testing.T) {
	if want := os.Getenv("STARTUP_TEST_WANT"); want != "" {
		n, _ := strconv.Atoi(want)
		if n == 0 { // the runtime's default
			got := runtime.GOMAXPROCS(0)
			runtime.SetDefaultGOMAXPROCS()
			n = runtime.GOMAXPROCS(0)
			if got != n {
				t.Fatalf("GOMAXPROCS %d after start, the runtime's default is %d", got, n)
			}
		}
		if got := runtime.GOMAXPROCS(0); got != n {
			t.Fatalf("GOMAXPROCS %d after start, want %d", got, n)
		}
		_, set := os.LookupEnv("GOMAXPROCS")
		FollowCPULimits(set)
		if got := runtime.GOMAXPROCS(0); got != n {
			t.Fatalf("GOMAXPROCS %d after FollowCPULimits, want %d", got, n)
		}
		return
	}
	for _, env := range [][]string{{"STARTUP_TEST_WANT=0"}, {"STARTUP_TEST_WANT=3", "GOMAXPROCS=3"}, {"STARTUP_TEST_WANT=1", "GOMAXPROCS=1"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestProcessorsKept$", "-test.count=1")
		cmd.Env = append(withoutGOMAXPROCS(os.Environ()), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%v: %v\n%s", env, err, out)
		}
	}
}

func withoutGOMAXPROCS(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "GOMAXPROCS=") {
			out = append(out, e)
		}
	}
	return out
}

// grow's frame makes the runtime give the goroutine that calls it a stack
// of StackSize: a goroutine that calls it first and then recurses to a
// depth that needs less than that runs without growing its stack again
// (testing.AllocsPerRun cannot see stacks; the stack's size is read from
// the runtime's accounting of stack memory in use).
func TestGrowGivesTheStack(t *testing.T) {
	if frameSize <= StackSize/2 || frameSize >= StackSize-2048 {
		t.Fatalf("a frame of %d bytes does not make a stack of %d", frameSize, StackSize)
	}
	var before, after runtime.MemStats
	done := make(chan struct{})
	runtime.ReadMemStats(&before)
	go func() {
		defer close(done)
		grow()
		runtime.ReadMemStats(&after)
	}()
	<-done
	if grown := after.StackInuse - before.StackInuse; grown < StackSize {
		t.Errorf("stack memory in use grew by %d bytes while grow ran, want at least %d", grown, StackSize)
	}
}
