package loader

import (
	"os"
	"syscall"
)

// changeTime is the time the file's inode last changed, in nanoseconds:
// a write, a rename onto it, a change of its times or mode. No call sets
// it to a chosen value.
func changeTime(st os.FileInfo) (int64, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return sys.Ctim.Nano(), true
}
