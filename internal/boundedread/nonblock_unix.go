//go:build unix

package boundedread

import "syscall"

// ONonblock is the flag that opens a file without waiting: a FIFO in place
// of a file does not block the open.
const ONonblock = syscall.O_NONBLOCK
