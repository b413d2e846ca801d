//go:build js

package boundedread

// ONonblock is 0 in the browser (GOOS=js), where the only files are the
// ones a page hands over in memory (loader.LoadFS): there is no FIFO to
// wait on, and syscall has no O_NONBLOCK.
const ONonblock = 0
