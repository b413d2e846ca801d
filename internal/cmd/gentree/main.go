// Command gentree writes the synthetic configuration tree of the benchmarks
// (make bench, make bench-lint): gentree -servers 20000 -out DIR.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nginxtune/nginxtune/internal/testkit/gentree"
)

func main() {
	servers := flag.Int("servers", 20000, "server blocks")
	files := flag.Int("files", 100, "include files they are spread over")
	out := flag.String("out", "", "directory to write (created)")
	upstreams := flag.Int("upstreams", 0, "upstream blocks the servers proxy to, with inherited headers: a tree full of findings")
	sites := flag.Bool("sites", false, "every server a finding-heavy site: an upstream of its own without keepalive, a websocket map's Connection header, server-level headers its locations lose")
	flag.Parse()
	if *out == "" || *servers < *files || *files < 1 {
		fmt.Fprintln(os.Stderr, "usage: gentree -servers N -files F -out DIR (N >= F >= 1)")
		os.Exit(2)
	}
	dir, err := filepath.Abs(*out)
	if err == nil {
		err = os.MkdirAll(filepath.Join(dir, "logs"), 0o755)
	}
	if err == nil {
		var size int64
		var main string
		main, size, err = gentree.WriteShape(dir, gentree.Shape{Servers: *servers, Files: *files, Upstreams: *upstreams, Sites: *sites, LogDir: filepath.Join(dir, "logs")})
		fmt.Printf("%s: %d servers, %d upstreams, %.1f MB\n", main, *servers, *upstreams, float64(size)/1e6)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentree:", err)
		os.Exit(2)
	}
}
