package outbuf

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// countingWriter records each write it gets.
type countingWriter struct {
	bytes.Buffer
	writes []int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes = append(c.writes, len(p))
	return c.Buffer.Write(p)
}

// TestSameBytes: any mix of writes of any size reaches w unchanged and in
// order, in writes of at most Size unless one write was larger.
func TestSameBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var want bytes.Buffer
		w := &countingWriter{}
		b := New(w)
		for i := 0; i < r.IntN(50); i++ {
			n := r.IntN(3 * Size / 2)
			if r.IntN(4) > 0 {
				n = r.IntN(300)
			}
			p := bytes.Repeat([]byte{byte('a' + i%26)}, n)
			want.Write(p)
			switch r.IntN(3) {
			case 0:
				b.Write(p)
			case 1:
				b.WriteString(string(p))
			default:
				for _, c := range p {
					b.WriteByte(c)
				}
			}
		}
		if err := b.Flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w.Bytes(), want.Bytes()) {
			t.Fatalf("round %d: %d bytes out, want %d", round, w.Len(), want.Len())
		}
		for _, n := range w.writes {
			if n == 0 {
				t.Fatalf("round %d: an empty write", round)
			}
		}
	}
}

// TestSmallOutputSmallBuffer: what a short report allocates.
func TestSmallOutputSmallBuffer(t *testing.T) {
	var w bytes.Buffer
	b := New(&w)
	b.WriteString(strings.Repeat("x", 100))
	if cap(b.buf) >= 4096 {
		t.Errorf("100 bytes written, buffer of %d", cap(b.buf))
	}
	if w.Len() != 0 {
		t.Error("written before Flush")
	}
	b.Flush()
	if w.String() != strings.Repeat("x", 100) {
		t.Errorf("got %q", w.String())
	}
	if New(b) != b {
		t.Error("a Writer on a Writer buffers twice")
	}
}

type failing struct{ after int }

var errBroken = errors.New("broken pipe")

func (f *failing) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errBroken
	}
	f.after--
	return len(p), nil
}

// TestErrorSticks: after w fails, every call says so and nothing more is
// written.
func TestErrorSticks(t *testing.T) {
	f := &failing{after: 1}
	b := New(f)
	big := make([]byte, Size)
	if _, err := b.Write(big); err != nil {
		t.Fatalf("first write: %v", err)
	}
	if _, err := b.Write(big); !errors.Is(err, errBroken) {
		t.Fatalf("second write: %v", err)
	}
	if _, err := b.WriteString("x"); !errors.Is(err, errBroken) {
		t.Errorf("after the error, WriteString: %v", err)
	}
	if err := b.Flush(); !errors.Is(err, errBroken) {
		t.Errorf("after the error, Flush: %v", err)
	}
	var _ io.StringWriter = b
	var _ io.ByteWriter = b
}
