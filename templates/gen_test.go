package templates

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The three hosts every profile is rendered for.
var hosts = []struct{ name, spec string }{
	{"small", "cpus=1 mem=512MiB nofile=1024:524288 somaxconn=128 nr-open=1048576 file-max=100000 port-range=32768-60999 tw-reuse=2"},
	{"medium", "cpus=2 mem=4GiB nofile=1024:524288 somaxconn=4096 nr-open=1048576 file-max=9223372036854775807 port-range=32768-60999 tw-reuse=2"},
	{"large", "cpus=32 mem=128GiB nofile=1048576:1048576 somaxconn=4096 nr-open=1048576 file-max=262144 port-range=32768-60999 tw-reuse=2"},
}

type genCase struct {
	profile, host string
	tls, acme     bool
	version       string
	// variant names a set of options beyond the defaults (variants)
	variant string
}

// variants change the input of a golden case: layouts, a site added to an
// existing tree, and the options of headers, TLS, brotli and redirects.
var variants = map[string]func(*Input){
	"debian": func(in *Input) { in.Layout = Layouts["debian"] },
	"rhel":   func(in *Input) { in.Layout = Layouts["rhel"] },
	"docker": func(in *Input) { in.Layout = Layouts["docker"]; in.Upstreams = []string{"app:3000"} },
	"into": func(in *Input) {
		in.Layout = Layouts["debian"]
		in.Existing = &Existing{Default80: "sites-available/default:2", Connections: 768}
	},
	"options": func(in *Input) {
		in.ServerNames = []string{"example.com"}
		in.TLSProfile, in.HSTSPreload, in.HSTSSubdomains = "modern", true, true
		in.CSP = "default-src 'self'; frame-ancestors 'none'"
		in.WWWRedirect = true
		in.Brotli, in.BrotliStatic, in.BrotliWhy = true, true, "given"
		in.Layout = Layouts["debian"]
	},
}

func (c genCase) name() string {
	s := fmt.Sprintf("%s-%s", c.profile, c.host)
	switch {
	case c.acme:
		s += "-acme"
	case c.tls:
		s += "-tls"
	}
	if c.version != "1.22.1" {
		s += "-" + c.version
	}
	if c.variant != "" {
		s += "-" + c.variant
	}
	return s
}

func cases() []genCase {
	var out []genCase
	for _, p := range Profiles() {
		for _, h := range hosts {
			for _, tls := range []bool{false, true} {
				out = append(out, genCase{profile: p, host: h.name, tls: tls, version: "1.22.1"})
			}
		}
		// the newer syntax and defaults, checked by lint (Debian's nginx is 1.22)
		out = append(out, genCase{profile: p, host: "medium", tls: true, version: "1.30.0"})
	}
	out = append(out, genCase{profile: "proxy", host: "medium", acme: true, version: "1.22.1"})
	out = append(out,
		genCase{profile: "php", host: "medium", tls: true, version: "1.22.1", variant: "debian"},
		genCase{profile: "wordpress", host: "medium", acme: true, version: "1.22.1", variant: "debian"},
		genCase{profile: "proxy", host: "medium", tls: true, version: "1.22.1", variant: "rhel"},
		genCase{profile: "node", host: "medium", version: "1.22.1", variant: "docker"},
		genCase{profile: "wordpress", host: "medium", tls: true, version: "1.22.1", variant: "into"},
		genCase{profile: "static", host: "medium", tls: true, version: "1.22.1", variant: "options"},
		genCase{profile: "static", host: "medium", tls: true, version: "1.30.0", variant: "options"},
	)
	return out
}

// osHalf are the rules whose findings the generated sysctl.d and systemd
// files resolve.
var osHalf = map[string]bool{"host-somaxconn": true, "host-file-max": true, "host-fd-limit": true}

func facts(t *testing.T, name string) *host.Facts {
	for _, h := range hosts {
		if h.name == name {
			f, err := host.ParseSpec(h.spec)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no host %s", name)
	return nil
}

func render(t *testing.T, c genCase, cert, key string) []File {
	files, _ := renderPlan(t, c, cert, key)
	return files
}

func renderPlan(t *testing.T, c genCase, cert, key string) ([]File, Plan) {
	t.Helper()
	p, err := LoadProfile(c.profile)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{ServerNames: []string{"example.com", "www.example.com"}}
	if c.tls || c.acme {
		in.TLS = &TLS{Cert: cert, Key: key}
	}
	in.ACME = c.acme
	if c.variant != "" {
		variants[c.variant](&in)
	}
	files, plan, err := Render(p, facts(t, c.host), knowledge.MustVersion(c.version), in)
	if err != nil {
		t.Fatal(err)
	}
	return files, plan
}

func joined(files []File) string {
	var b strings.Builder
	for _, f := range files {
		if f.Link != "" {
			fmt.Fprintf(&b, "# ==> %s -> %s <==\n\n", f.Path, f.Link)
			continue
		}
		if f.Stock {
			// the same in every tree: testdata/stock-NAME.golden (TestStockFiles)
			fmt.Fprintf(&b, "# ==> %s (mode %o, stock) <==\n\n", f.Path, f.Mode)
			continue
		}
		fmt.Fprintf(&b, "# ==> %s (mode %o) <==\n%s\n", f.Path, f.Mode, f.Content)
	}
	return b.String()
}

func write(t *testing.T, dir string, files []File) {
	for _, f := range files {
		p := filepath.Join(dir, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if f.Link != "" {
			if err := os.Symlink(f.Link, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every profile x host x TLS renders to its golden file, passes a real
// nginx -t (the 1.22.1 ones, with Debian's nginx) and lints clean of
// warnings with the same host facts.
func TestGolden(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name(), func(t *testing.T) {
			files, plan := renderPlan(t, c, "/etc/ssl/example.com/fullchain.pem", "/etc/ssl/example.com/privkey.pem")
			got := joined(files)
			golden := filepath.Join("testdata", c.name()+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if want, err := os.ReadFile(golden); err != nil || string(want) != got {
				t.Fatalf("%s differs from the output (go test ./templates -update to accept):\n%s", golden, got)
			}

			dir := t.TempDir()
			write(t, dir, files)
			if c.variant == "into" {
				// the tree the site was added to
				os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("user www-data;\nworker_processes auto;\nevents {\n    worker_connections 768;\n}\n"+
					"http {\n    include /etc/nginx/mime.types;\n    include /etc/nginx/conf.d/*.conf;\n    include /etc/nginx/sites-enabled/*;\n}\n"), 0o644)
				os.WriteFile(filepath.Join(dir, "mime.types"), []byte("types {\n    text/html html;\n}\n"), 0o644)
			}
			tr, err := loader.Load(filepath.Join(dir, "nginx.conf"), loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// With the OS half installed, nothing at warning or above.
			cfg := engine.Config{Version: knowledge.MustVersion(c.version), Host: host.Given(withOS(facts(t, c.host), plan))}
			for _, d := range rules.Run(tr, cfg) {
				if d.Severity >= finding.Warning {
					t.Errorf("lint: %s:%d: %s [%s]", filepath.Base(d.File), d.Line, d.Message, d.Rule)
				}
			}
			// On the host as it is, only what the OS half changes is reported.
			cfg.Host = host.Given(facts(t, c.host))
			for _, d := range rules.Run(tr, cfg) {
				if d.Severity >= finding.Warning && !osHalf[d.Rule] {
					t.Errorf("lint without the OS half: %s:%d: %s [%s]", filepath.Base(d.File), d.Line, d.Message, d.Rule)
				}
			}

			// nginx -t of the layouts whose absolute paths name this
			// machine's /etc/nginx runs in the cmd tests, through gen's own
			// verification
			if c.version != "1.22.1" || c.variant != "" {
				return
			}
			vdir := t.TempDir()
			nginxtest.WriteSelfSigned(t, vdir)
			write(t, vdir, render(t, c, filepath.Join(vdir, "cert.pem"), filepath.Join(vdir, "key.pem")))
			if res := nginxtest.CheckTree(t, vdir); !res.OK {
				t.Errorf("nginx -t: %s", res.Output)
			}
		})
	}
}

func TestProfileErrors(t *testing.T) {
	if _, err := ParseProfile([]byte("name: x\nkind: static\nroot: /a\nindex: [i]\ntry_files: a\nkeepalive_timeout: 1s\nclient_max_body_size: 1m\ngzip_types: [text/css, image/png]\n"), "mine.yaml"); err == nil || !strings.Contains(err.Error(), "image/png") {
		t.Errorf("a profile that gzips PNG: %v", err)
	}
	if _, err := ParseProfile([]byte("name: x\nkind: static\nroot: /a\nindex: [i]\ntry_files: a\nkeepalive_timeout: 1s\nclient_max_body_size: 1m\ngzip_types: [text/css]\ncolour: blue\n"), "mine.yaml"); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := ParseProfile([]byte("name: x\nkind: cgi\n"), "mine.yaml"); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("bad kind: %v", err)
	}
	if _, err := LoadProfile("nope"); err == nil || !strings.Contains(err.Error(), "static") {
		t.Errorf("unknown profile: %v", err)
	}
}

// Sizing follows the host: a CPU quota gives a number instead of auto, and
// the file-descriptor budget is the one lint checks.
func TestSizing(t *testing.T) {
	p, _ := LoadProfile("proxy")
	f, _ := host.ParseSpec("cpus=64 quota=2 mem=2GiB")
	pl := Size(p, f, knowledge.MustVersion("1.30.0"), Input{Upstreams: []string{"a:1", "b:1", "c:1"}})
	if pl.Workers != "2" || !strings.Contains(pl.WorkersWhy, "quota") {
		t.Errorf("workers %q (%s)", pl.Workers, pl.WorkersWhy)
	}
	if pl.RlimitNofile != knowledge.FDsNeeded(pl.WorkerConnections, 0) {
		t.Errorf("rlimit %d for %d connections", pl.RlimitNofile, pl.WorkerConnections)
	}
	if pl.UpstreamKeepalive != 32 || pl.KeepaliveHeaders || !pl.HTTP2Directive {
		t.Errorf("plan %+v", pl)
	}
	old := Size(p, f, knowledge.MustVersion("1.22.1"), Input{})
	if !old.KeepaliveHeaders || old.HTTP2Directive || !old.SessionTicketsOff {
		t.Errorf("1.22 plan %+v", old)
	}
	// the pool follows the requests expected in flight, per worker
	busy := Size(p, f, knowledge.MustVersion("1.22.1"), Input{Concurrency: 400})
	if busy.UpstreamKeepalive != 200 || !strings.Contains(busy.KeepaliveWhy, "--concurrency 400") {
		t.Errorf("pool for 400 in flight on 2 workers: %d (%s)", busy.UpstreamKeepalive, busy.KeepaliveWhy)
	}
	if few := Size(p, f, knowledge.MustVersion("1.22.1"), Input{Concurrency: 3, Upstreams: []string{"a:1", "b:1", "c:1"}}); few.UpstreamKeepalive != 6 {
		t.Errorf("pool for 3 in flight, 3 servers: %d, want 6 (two per server)", few.UpstreamKeepalive)
	}
	if huge := Size(p, f, knowledge.MustVersion("1.22.1"), Input{Concurrency: 10_000_000}); huge.UpstreamKeepalive > huge.WorkerConnections/2 {
		t.Errorf("pool %d above half of %d slots", huge.UpstreamKeepalive, huge.WorkerConnections)
	}
}

// pcre_jit: on where nginx -V says --with-pcre-jit or the version links
// PCRE2 (1.21.5), not for an older nginx without it (it would only warn).
func TestPCREJIT(t *testing.T) {
	p, _ := LoadProfile("static")
	f, _ := host.ParseSpec("cpus=2 mem=2GiB")
	if pl := Size(p, f, knowledge.MustVersion("1.20.2"), Input{}); pl.PCREJIT {
		t.Errorf("1.20.2 without --with-pcre-jit: pcre_jit on (%s)", pl.PCREJITWhy)
	}
	if pl := Size(p, f, knowledge.MustVersion("1.22.1"), Input{}); !pl.PCREJIT || !strings.Contains(pl.PCREJITWhy, "PCRE2") {
		t.Errorf("1.22.1: %v (%s)", pl.PCREJIT, pl.PCREJITWhy)
	}
	g, err := host.ParseSpec("cpus=2 mem=2GiB configure=--with-http_ssl_module,--with-pcre-jit")
	if err != nil {
		t.Fatal(err)
	}
	if pl := Size(p, g, knowledge.MustVersion("1.20.2"), Input{}); !pl.PCREJIT || !strings.Contains(pl.PCREJITWhy, "--with-pcre-jit") {
		t.Errorf("1.20.2 --with-pcre-jit: %v (%s)", pl.PCREJIT, pl.PCREJITWhy)
	}
}

// A fact's source may name a process (proc/1234/limits of a running
// master); the output never carries the id, so two runs give the same bytes.
func TestNoProcessIDInOutput(t *testing.T) {
	f, err := host.ParseSpec("cpus=2 mem=4GiB nofile=1024:4096 systemd=no")
	if err != nil {
		t.Fatal(err)
	}
	f.NoFile.Source = "proc/4321/limits (running master, pid from /run/nginx.pid)"
	p, err := LoadProfile("static")
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := Render(p, f, knowledge.MustVersion("1.22.1"), Input{})
	if err != nil {
		t.Fatal(err)
	}
	all := joined(files)
	if strings.Contains(all, "4321") || !strings.Contains(all, "proc/PID/limits") {
		t.Errorf("the process id in the output, or the source dropped:\n%s", all)
	}
}

// Text gen quotes from files (the tree's file names, a pool file's name, a
// module's path) is escaped in the comments it is quoted in: a line break
// in it starts no directive, and no control character reaches a terminal
// that shows the files.
func TestRenderEscapesQuotedText(t *testing.T) {
	const evil = "x\nserver { listen 8081; return 200 INJECTED; }\n\x1b[31m#"
	f, _ := host.ParseSpec("cpus=2 mem=4GiB")
	for _, name := range []string{"node", "php"} {
		p, err := LoadProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, into := range []bool{false, true} {
			in := Input{ServerNames: []string{"app.example"}, FPMWhy: evil, BrotliWhy: evil, Brotli: true, StaplingWhy: evil,
				Stapling: []string{"127.0.0.1"}, TLS: &TLS{Cert: "/c.pem", Key: "/k.pem"}, FPMMaxChildren: 64}
			if into {
				in.Layout = Layouts["debian"]
				in.Existing = &Existing{UpgradeMap: evil, Default80: evil, Default443: evil}
			}
			files, _, err := Render(p, f, knowledge.MustVersion("1.22.1"), in)
			if err != nil {
				t.Fatal(err)
			}
			all := joined(files)
			if !strings.Contains(all, "INJECTED") {
				t.Errorf("%s into=%v: the text is not quoted anywhere (the test shows nothing)", name, into)
			}
			for _, line := range strings.Split(all, "\n") {
				if strings.Contains(line, "INJECTED") && !strings.HasPrefix(strings.TrimSpace(line), "#") || strings.Contains(line, "\x1b") {
					t.Errorf("%s into=%v: a line from quoted text: %q", name, into, line)
				}
			}
		}
	}
}

// A profile without asset_expires sets no expiry for assets: no
// "expires ;", which nginx refuses.
func TestNoAssetExpires(t *testing.T) {
	p, err := ParseProfile([]byte("name: x\nkind: static\nroot: /srv\nindex: [index.html]\ntry_files: $uri =404\ngzip_types: [text/css]\nclient_max_body_size: 1m\nkeepalive_timeout: 30s\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := host.ParseSpec("cpus=2 mem=4GiB")
	files, _, err := Render(p, f, knowledge.MustVersion("1.22.1"), Input{})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		for _, line := range strings.Split(file.Content, "\n") {
			if fields := strings.Fields(line); len(fields) > 0 && fields[0] == "expires" && len(fields) < 2 || strings.Contains(line, "expires ;") {
				t.Errorf("%s: %q", file.Path, line)
			}
		}
	}
}

// withOS returns the facts of the host once the generated OS half is
// installed: the sysctl.d settings applied and nginx.service started with
// LimitNOFILE from the drop-in.
func withOS(f *host.Facts, pl Plan) *host.Facts {
	g := *f
	lim := uint64(pl.RlimitNofile)
	if !pl.LimitNOFILE {
		lim = max(lim, f.NoFile.Value.Soft)
		g.NoFile = host.Fact[host.Limit]{Value: host.Limit{Soft: lim, Hard: f.NoFile.Value.Hard}, Source: "worker_rlimit_nofile within the hard limit"}
		return withSysctls(&g, pl)
	}
	g.NoFile = host.Fact[host.Limit]{Value: host.Limit{Soft: max(lim, pl.LimitSoft), Hard: max(lim, pl.LimitHard)}, Source: "systemd/nginx.service.d/nginxtune.conf"}
	return withSysctls(&g, pl)
}

func withSysctls(g *host.Facts, pl Plan) *host.Facts {
	for _, s := range pl.Sysctls {
		src := "sysctl.d/60-nginxtune.conf"
		switch s.Key {
		case "net.core.somaxconn":
			n, _ := strconv.Atoi(s.Value)
			g.Somaxconn = host.Fact[int]{Value: n, Source: src}
		case "fs.file-max":
			n, _ := strconv.ParseUint(s.Value, 10, 64)
			g.FileMax = host.Fact[uint64]{Value: n, Source: src}
		case "fs.nr_open":
			n, _ := strconv.ParseUint(s.Value, 10, 64)
			g.NrOpen = host.Fact[uint64]{Value: n, Source: src}
		}
	}
	return g
}
