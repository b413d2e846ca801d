package lsp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"
	"github.com/nginxtune/nginxtune/lsp/protocol"
)

// publishes signals each publishDiagnostics the server writes.
type publishes chan struct{}

func (p publishes) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(`"textDocument/publishDiagnostics"`)) {
		p <- struct{}{}
	}
	return len(b), nil
}

// typed is what the typing session types into a server block of a site
// file, one character per change, and then takes back, one per change.
const typed = "    gzip_vary on;\n"

// session is the texts an editor sends while a user types typed at off in
// text and deletes it again: each one character away from the last.
func session(text string, off int) []string {
	var out []string
	for i := 1; i <= len(typed); i++ {
		out = append(out, text[:off]+typed[:i]+text[off:])
	}
	for i := len(typed) - 1; i >= 0; i-- {
		out = append(out, text[:off]+typed[:i]+text[off:])
	}
	return out
}

// BenchmarkTyping replays a typing session in a site file of the 2,000-
// and 20,000-server trees (gentree; 100 servers a file): a didChange with
// the whole text per character typed, as editors send it, each waiting
// for the diagnostics it causes. It reports the latency from the change to
// the publish, median and 99th percentile (the debounce delay set to
// nothing: the figure is the server's work, not its wait for the next
// keystroke). Allocations are per session (36 publishes), the steadiest
// figure on a busy machine.
func BenchmarkTyping(b *testing.B) {
	for _, tc := range []struct{ servers, files int }{{2000, 20}, {20000, 200}} {
		b.Run(fmt.Sprintf("servers=%d", tc.servers), func(b *testing.B) {
			dir := b.TempDir()
			if _, _, err := gentree.WriteTree(dir, tc.servers, tc.files, "/var/log/nginx"); err != nil {
				b.Fatal(err)
			}
			// as an edited tree's files are, older than the few seconds in
			// which loader.Reuse reads a file again rather than trust a stat
			time.Sleep(3100 * time.Millisecond)
			file := filepath.Join(dir, "sites", fmt.Sprintf("s%03d.conf", tc.files/2))
			src, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			text := string(src)
			// inside the middle server block, after its root
			mid := strings.Index(text[len(text)/2:], "    root ")
			off := len(text)/2 + mid + strings.IndexByte(text[len(text)/2+mid:], '\n') + 1
			pub := make(publishes, 1)
			s := newTestServer(dir)
			s.conn = protocol.NewConn(pub)
			uri := pathToURI(file)
			s.open(didOpenParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "nginx", Version: 1, Text: text}})
			<-pub
			version := 1
			var lat []time.Duration
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				for _, t := range session(text, off) {
					version++
					start := time.Now()
					s.change(didChangeParams{TextDocument: protocol.VersionedTextDocumentIdentifier{URI: uri, Version: version},
						ContentChanges: []protocol.TextDocumentContentChangeEvent{{Text: t}}})
					<-pub
					lat = append(lat, time.Since(start))
				}
			}
			cpu = cpuTime() - cpu
			s.stop()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-p99")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(lat)), "ms-cpu/publish")
			b.ReportMetric(float64(len(lat)), "publishes")
		})
	}
}

// cpuTime is the processor time the process has used, user and system:
// on a busy machine a steadier figure than the latency.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
