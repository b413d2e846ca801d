package parser

import (
	"path/filepath"
	"strings"
)

// SettleContext sets the context a root file's top level is read in
// (File.Context, File.ContextSource): the one a "# nginxtune: context="
// comment declares; main for a file that holds a main-only statement, for
// an empty file, and for an nginx.conf whose statements may stand in main;
// else the one its statements infer.
func SettleContext(f *File) {
	for _, c := range f.Comments {
		if spec, ok := strings.CutPrefix(strings.TrimSpace(c.Text), "nginxtune: context="); ok {
			f.Context = parseContextSpec(strings.Fields(spec + " ")[0])
			f.ContextSource = "declared"
			return
		}
	}
	for _, d := range f.Directives {
		if d.Name == "http" || d.Name == "events" || d.Name == "stream" || d.Name == "worker_processes" {
			f.Context, f.ContextSource = []string{CtxMain}, "root"
			return
		}
	}
	if len(f.Directives) == 0 {
		f.Context, f.ContextSource = []string{CtxMain}, "root"
		return
	}
	inferred := inferContext(f.Directives)
	// a file named nginx.conf is the main file, unless what it holds can
	// only stand inside http (server, location, upstream blocks): then it
	// is a fragment that happens to carry the name
	if filepath.Base(f.Path) == "nginx.conf" && len(inferred) <= 1 {
		f.Context, f.ContextSource = []string{CtxMain}, "root"
		return
	}
	f.Context, f.ContextSource = inferred, "inferred"
}
