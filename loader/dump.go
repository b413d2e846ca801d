package loader

// Reading nginx -T output: the dump is split into the files it holds, and
// the tree is loaded from them as from a directory.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

type dumpSource struct {
	files map[string][]byte
	order []string
}

func (d *dumpSource) read(p string) ([]byte, error) {
	if b, ok := d.files[p]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("open %s: not in the nginx -T output", p)
}

func (d *dumpSource) glob(pattern string) ([]string, error) {
	var out []string
	for _, p := range d.order {
		if ok, err := path.Match(pattern, p); err != nil {
			return nil, err
		} else if ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (d *dumpSource) onDisk() bool { return false }

func (d *dumpSource) exists(p string) bool { _, ok := d.files[p]; return ok }

func (d *dumpSource) isDir(p string) bool {
	prefix := strings.TrimSuffix(p, "/") + "/"
	for _, f := range d.order {
		if strings.HasPrefix(f, prefix) {
			return true
		}
	}
	return false
}

const dumpMarker = "# configuration file "

// splitDump splits nginx -T output into its files. Lines before the first
// "# configuration file PATH:" line (nginx's own messages) are skipped.
func splitDump(b []byte) (*dumpSource, bool) {
	d := &dumpSource{files: map[string][]byte{}}
	var cur string
	var buf bytes.Buffer
	flush := func() {
		if cur != "" {
			content := buf.Bytes()
			// nginx -T prints an empty line after each file.
			content = bytes.TrimSuffix(content, []byte("\n"))
			if _, dup := d.files[cur]; !dup {
				d.order = append(d.order, cur)
			}
			d.files[cur] = append([]byte(nil), content...)
		}
		buf.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, dumpMarker) && strings.HasSuffix(strings.TrimRight(line, "\r"), ":") {
			flush()
			cur = strings.TrimSuffix(strings.TrimRight(line[len(dumpMarker):], "\r"), ":")
			continue
		}
		if cur != "" {
			buf.WriteString(line)
			buf.WriteByte('\n')
		}
	}
	flush()
	return d, len(d.order) > 0
}

// isDump reports whether b looks like nginx -T output.
func isDump(b []byte) bool {
	// line by line as bufio.Scanner's ScanLines splits them (a trailing
	// "\r" dropped, at most 1 MiB a line), without its 64 KiB buffer: this
	// runs on every file given on the command line
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) >= 1<<20 {
			return false // the scanner stops at a line it cannot hold
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if bytes.HasPrefix(line, []byte("nginx: ")) || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return bytes.HasPrefix(line, []byte(dumpMarker))
	}
	return false
}

func (l *loader) loadDump(b []byte) (*Tree, error) {
	d, ok := splitDump(b)
	if !ok {
		return nil, errors.New("nginx -T output holds no \"# configuration file\" sections")
	}
	l.src = d
	l.tree.Dump = true
	l.prefix = l.opt.Prefix
	if l.prefix == "" {
		l.prefix = path.Dir(d.order[0])
	}
	for _, p := range d.order {
		if _, err := l.file(p); err != nil {
			return nil, err
		}
	}
	l.finish([]string{d.order[0]})
	return l.tree, nil
}
