package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/rules/engine"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/loader"
)

// A run told to keep only some files' findings (Config.Only, the changed
// files of a pre-commit run) lets rules skip work for the rest; what the
// caller keeps must be exactly what a full run gives for those files, plus
// errors from everywhere. Checked over every fixture, keeping each file of
// its tree in turn and keeping none.
func TestOnlyKeepsWhatAFullRunKeeps(t *testing.T) {
	for _, p := range fixturePaths(t) {
		tr, err := loader.Load(p, loader.Options{})
		if err != nil {
			continue
		}
		cfg := fixtureConfig(t, tr.Roots[0].Src)
		full := Run(tr, cfg)
		subsets := []map[string]bool{{}}
		for _, f := range tr.Files {
			subsets = append(subsets, map[string]bool{f.Path: true})
		}
		for _, only := range subsets {
			c := cfg
			c.Only = only
			want, got := kept(full, only), kept(Run(tr, c), only)
			if !slices.Equal(want, got) {
				t.Errorf("%s, keeping %v:\nfull run keeps\n%s\nrun with Only keeps\n%s", p, keys(only), strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
		}
	}
}

// kept is what lintChanged keeps of a run: findings in the given files,
// errors anywhere (every finding when only is nil).
func kept(ds []finding.Diagnostic, only map[string]bool) []string {
	var out []string
	for _, d := range ds {
		if only == nil || only[d.File] || d.Severity == finding.Error {
			out = append(out, fmt.Sprintf("%s:%d:%d %s %s", filepath.Base(d.File), d.Line, d.Col, d.Rule, d.Message))
		}
	}
	return out
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, filepath.Base(k))
	}
	return out
}

// Host facts of a live machine are read a group at a time, when a rule
// that will report asks: a run that keeps only a site file's findings
// reads the network sysctls its listen and proxy_pass lines are checked
// against, not the open-file limits, CPUs or memory that rules check
// nginx.conf's worker settings against. The machine here is an empty
// directory, so every group read shows up as facts that could not be read.
func TestHostFactsReadWhenARuleReports(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	root := write("nginx.conf", "worker_processes auto;\nevents { worker_connections 4096; }\nhttp { include site.conf; }\n")
	site := write("site.conf", "server { listen 80; location / { proxy_pass http://10.0.0.5:8080; } }\n")
	tr, err := loader.Load(root, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	read := func(only map[string]bool) string {
		src := host.Lazily(&host.Reader{Root: t.TempDir()})
		Run(tr, engine.Config{Host: src, Only: only})
		var names []string
		for _, p := range src.Problems() {
			name, _, _ := strings.Cut(p, ":")
			names = append(names, name)
		}
		return strings.Join(names, " ")
	}
	if got, want := read(map[string]bool{site: true}), "net_core_somaxconn net_ipv4_ip_local_port_range net_ipv4_tcp_tw_reuse net_ipv4_tcp_max_syn_backlog"; got != want {
		t.Errorf("keeping the site's findings read %q, want %q", got, want)
	}
	if got := read(nil); !strings.Contains(got, "fs_file_max") || !strings.Contains(got, "cpu_online") || !strings.Contains(got, "mem_total") {
		t.Errorf("a full run read only %q", got)
	}
	if got := read(map[string]bool{}); got != "" {
		t.Errorf("keeping no file's findings read %q", got)
	}
}

// Rules run in parallel only on large trees (Config.ParallelFrom); every fixture,
// run in parallel, gives what it gives run in turn (and the race detector,
// which the tests run under, watches the parallel runs).
func TestParallelRunMatchesSequential(t *testing.T) {
	for _, p := range fixturePaths(t) {
		tr, err := loader.Load(p, loader.Options{})
		if err != nil {
			continue
		}
		cfg := fixtureConfig(t, tr.Roots[0].Src)
		cfg.ParallelFrom = 1 << 30
		seq := kept(Run(tr, cfg), nil)
		cfg.ParallelFrom = 1
		par := kept(Run(tr, cfg), nil)
		if !slices.Equal(seq, par) {
			t.Errorf("%s: in parallel\n%s\nin turn\n%s", p, strings.Join(par, "\n"), strings.Join(seq, "\n"))
		}
	}
}

// host-somaxconn reports a default backlog once per address, at its first
// listen: when that listen is in a file whose findings are dropped, a later
// listen of the address in a kept file stays unreported, as in a full run.
func TestOnlyKeepsOncePerAddress(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "nginx.conf")
	site := filepath.Join(dir, "site.conf")
	os.WriteFile(root, []byte("events {}\nhttp {\n    server { listen 80; }\n    include site.conf;\n}\n"), 0o644)
	os.WriteFile(site, []byte("server { listen 80; server_name b; }\nserver { listen 8080; }\n"), 0o644)
	tr, err := loader.Load(root, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := host.ParseSpec("somaxconn=128")
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Host: host.Given(f), Disabled: onlyRules("host-somaxconn")}
	only := map[string]bool{site: true}
	want := kept(Run(tr, cfg), only)
	cfg.Only = only
	got := kept(Run(tr, cfg), only)
	if !slices.Equal(want, got) || len(want) != 1 {
		t.Errorf("full run keeps %q, run with Only %q (want one finding, listen 8080)", want, got)
	}
}
