// Package outbuf is a buffered writer whose buffer grows with what is
// written, up to a limit: a report of three lines allocates a few hundred
// bytes, one of 20,000 findings a 64 KiB buffer that it writes out whole.
// bufio.Writer allocates its full size up front, and on a pre-commit run
// that prints nothing the zeroed pages of that buffer cost more page faults
// than the lint itself.
package outbuf

import "io"

// Size is the most a Writer holds before it writes to the underlying
// writer: large outputs are then a few writes, not one per line.
const Size = 64 << 10

// Writer buffers writes to w. The first error from w is kept and returned
// by every later call, as bufio.Writer does.
type Writer struct {
	w   io.Writer
	buf []byte
	err error
}

// New returns a Writer on w. When w is already a *Writer it is returned
// as it is: a writer layered on another buffers nothing twice.
func New(w io.Writer) *Writer {
	if b, ok := w.(*Writer); ok {
		return b
	}
	return &Writer{w: w}
}

// Write buffers p, writing the buffer out first when p would take it past
// Size; a p of Size or more goes straight to w.
func (b *Writer) Write(p []byte) (int, error) { return write(b, p) }

// WriteString is Write for a string, without converting it (but for one
// of Size or more, which goes to w as a copy).
func (b *Writer) WriteString(s string) (int, error) { return write(b, s) }

func write[S []byte | string](b *Writer, p S) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(b.buf)+len(p) > Size {
		if err := b.Flush(); err != nil {
			return 0, err
		}
		if len(p) >= Size {
			n, err := b.w.Write([]byte(p))
			b.err = err
			return n, err
		}
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// WriteByte buffers one byte.
func (b *Writer) WriteByte(c byte) error {
	if b.err != nil {
		return b.err
	}
	if len(b.buf)+1 > Size {
		if err := b.Flush(); err != nil {
			return err
		}
	}
	b.buf = append(b.buf, c)
	return nil
}

// Flush writes what is buffered to w.
func (b *Writer) Flush() error {
	if b.err != nil {
		return b.err
	}
	if len(b.buf) == 0 {
		return nil
	}
	n, err := b.w.Write(b.buf)
	if err == nil && n < len(b.buf) {
		err = io.ErrShortWrite
	}
	b.buf = b.buf[:0]
	b.err = err
	return err
}
