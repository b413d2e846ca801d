package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/testkit/nginxtest"
	"github.com/nginxtune/nginxtune/internal/textdiff"
	"github.com/nginxtune/nginxtune/templates"
)

// Sizing flags never change the syntax: the installed nginx decides the
// version whenever there is one and no --nginx-version or facts file says.
func TestGenUsesInstalledVersion(t *testing.T) {
	bin := nginxtest.Require(t)
	installed := nginxcheck.Version(bin)
	certDir := t.TempDir()
	cert, key := filepath.Join(certDir, "cert.pem"), filepath.Join(certDir, "key.pem")
	os.WriteFile(cert, []byte("x"), 0o644)
	os.WriteFile(key, []byte("x"), 0o600)
	for _, args := range [][]string{
		{"--cpus", "8", "--memory", "4GiB"},
		{"--cpus", "8", "--memory", "4GB"},
		{},
	} {
		out, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "proxy", "--tls", cert + "," + key}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(errOut, "nginx "+installed) || !strings.Contains(out, "for nginx "+installed) {
			t.Errorf("%v: not written for the installed nginx %s:\n%s", args, installed, errOut)
		}
		if strings.HasPrefix(installed, "1.22") && strings.Contains(out, "http2 on;") {
			t.Errorf("%v: http2 on; for nginx %s", args, installed)
		}
	}
}

// Where no systemd runs, a LimitNOFILE drop-in reaches nothing: gen keeps
// worker_rlimit_nofile within the hard limit and the output lints clean
// with the facts it was sized for.
func TestGenWithinHardLimit(t *testing.T) {
	dir := t.TempDir()
	facts := filepath.Join(dir, "facts.yaml")
	os.WriteFile(facts, []byte("cpu_online: 2\nmem_total: 25276063744\nnofile: {soft: 20000, hard: 20000}\nsystemd: false\nfs_nr_open: 1048576\nfs_file_max: 2466174\nnet_core_somaxconn: 4096\n"), 0o644)
	out := filepath.Join(dir, "out")
	_, errOut, code := runCLI(t, "", "gen", "--profile", "php", "--facts", facts, "--nginx-version", "1.22.1", "--out", out)
	if code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errOut)
	}
	conf, _ := os.ReadFile(filepath.Join(out, "nginx.conf"))
	if !strings.Contains(string(conf), "worker_rlimit_nofile 20000;") {
		t.Errorf("want worker_rlimit_nofile 20000 (the hard limit):\n%s", conf)
	}
	if _, err := os.Stat(filepath.Join(out, "systemd")); err == nil {
		t.Error("a systemd drop-in was written for a host without systemd")
	}
	// the connections fit the limit by the model lint's fixes use: a socket
	// and a file per slot, the cache, 64 spare (docs/cost-model.md)
	wc := regexp.MustCompile(`worker_connections (\d+);`).FindStringSubmatch(string(conf))
	cache := regexp.MustCompile(`open_file_cache max=(\d+)`).FindStringSubmatch(string(conf))
	if wc == nil || cache == nil {
		t.Fatalf("no worker_connections or open_file_cache:\n%s", conf)
	}
	w, _ := strconv.Atoi(wc[1])
	c, _ := strconv.Atoi(cache[1])
	if need := 2*w + c + 64; need > 20000 {
		t.Errorf("2 x %d connections + %d cache + 64 = %d descriptors, above the hard limit 20000", w, c, need)
	}
	lo, le, code := runCLI(t, "", "lint", "--no-config", "--nginx-version", "1.22.1", "--facts", facts, filepath.Join(out, "nginx.conf"))
	if code != 0 {
		t.Errorf("lint --facts of gen's own output: exit %d\n%s%s", code, lo, le)
	}
}

// --acme: the configuration nginx starts with before the first certificate
// serves the challenge over HTTP; the HTTPS site is staged for the deploy
// hook to enable. Both phases pass a real nginx -t, and gen says what stood
// in for the certificate.
func TestGenACMEBootstrap(t *testing.T) {
	bin := nginxtest.Require(t)
	out := filepath.Join(t.TempDir(), "nginx")
	_, errOut, code := runCLI(t, "", "gen", "--profile", "proxy", "--acme", "--server-name", "app.example", "--cpus", "2", "--memory", "4GiB",
		"--nofile", "1024:524288", "--nginx-version", "1.22.1", "--out", out)
	if code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errOut)
	}
	if os.Geteuid() == 0 && !strings.Contains(errOut, "before the certificate exists") {
		t.Errorf("the verification line does not say what was checked: %s", errOut)
	}
	staged := filepath.Join(out, "sites/app.example-tls.conf.off")
	if _, err := os.Stat(staged); err != nil {
		t.Fatalf("HTTPS site not staged: %v", err)
	}
	hook, _ := os.ReadFile(filepath.Join(out, "letsencrypt/renewal-hooks/deploy/nginxtune-reload-app.example"))
	if !strings.Contains(string(hook), "app.example-tls.conf") || !strings.Contains(string(hook), "certbot certonly --webroot") {
		t.Errorf("hook:\n%s", hook)
	}
	// phase 1, exactly as written: no certificate anywhere
	prefix := t.TempDir()
	os.CopyFS(prefix, os.DirFS(out))
	nginxcheck.StockFiles(prefix)
	if os.Geteuid() != 0 {
		t.Skip("nginx -t of a configuration with user and /var/log paths needs root")
	}
	if res := nginxtest.Run(t, bin, prefix, filepath.Join(prefix, "nginx.conf")); !res.OK {
		t.Fatalf("nginx -t before the certificate: %s", res.Output)
	}
	// phase 2: the hook's rename, with a certificate in place
	nginxtest.WriteSelfSigned(t, prefix)
	b, _ := os.ReadFile(filepath.Join(prefix, "sites/app.example-tls.conf.off"))
	s := strings.ReplaceAll(string(b), "/etc/letsencrypt/live/app.example/fullchain.pem", filepath.Join(prefix, "cert.pem"))
	s = strings.ReplaceAll(s, "/etc/letsencrypt/live/app.example/privkey.pem", filepath.Join(prefix, "key.pem"))
	os.WriteFile(filepath.Join(prefix, "sites/app.example-tls.conf"), []byte(s), 0o644)
	if res := nginxtest.Run(t, bin, prefix, filepath.Join(prefix, "nginx.conf")); !res.OK {
		t.Fatalf("nginx -t with the HTTPS site enabled: %s", res.Output)
	}
}

// Two gen runs into one directory make one working tree: upstreams are
// named after their sites, the websocket map and the catch-all server are
// files every run writes the same, and each run is verified with the sites
// already there.
func TestGenTwoSitesOneTree(t *testing.T) {
	bin := nginxtest.Require(t)
	out := filepath.Join(t.TempDir(), "nginx")
	for i, name := range []string{"one.example", "two.example"} {
		_, errOut, code := runCLI(t, "", "gen", "--profile", "proxy", "--server-name", name, "--upstream", fmt.Sprintf("127.0.0.1:%d", 8081+i),
			"--cpus", "2", "--memory", "4GiB", "--nofile", "1024:524288", "--nginx-version", "1.22.1", "--out", out)
		if code != 0 {
			t.Fatalf("gen %s: exit %d: %s", name, code, errOut)
		}
	}
	for _, want := range []string{"upstream backend_one_example", "upstream backend_two_example"} {
		found := false
		for _, f := range []string{"sites/one.example.conf", "sites/two.example.conf"} {
			b, _ := os.ReadFile(filepath.Join(out, f))
			found = found || strings.Contains(string(b), want)
		}
		if !found {
			t.Errorf("no %q", want)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("nginx -t of a configuration with user and /var/log paths needs root")
	}
	prefix := t.TempDir()
	os.CopyFS(prefix, os.DirFS(out))
	nginxcheck.StockFiles(prefix)
	if res := nginxtest.Run(t, bin, prefix, filepath.Join(prefix, "nginx.conf")); !res.OK {
		t.Errorf("nginx -t of the directory both runs wrote: %s", res.Output)
	}
}

// Same inputs, same bytes: gen sized for this machine prints the same
// output twice (no process id or time in a comment), so --diff shows only
// real changes.
func TestGenReproducible(t *testing.T) {
	for _, profile := range templates.Profiles() {
		var outs []string
		for i := 0; i < 2; i++ {
			out, errOut, code := runCLI(t, "", "gen", "--profile", profile, "--server-name", "app.example", "--verify=false", "--nginx-version", "1.22.1", "--upstream", "127.0.0.1:9000")
			if profile == "static" || profile == "spa" {
				out, errOut, code = runCLI(t, "", "gen", "--profile", profile, "--server-name", "app.example", "--verify=false", "--nginx-version", "1.22.1")
			}
			if code != 0 {
				t.Fatalf("gen %s: exit %d: %s", profile, code, errOut)
			}
			outs = append(outs, out)
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: two runs differ:\n%s", profile, textdiffOf(outs[0], outs[1]))
		}
		if regexp.MustCompile(`proc/[0-9]+/`).MatchString(outs[0]) {
			t.Errorf("%s: a process id in the output", profile)
		}
	}
}

func textdiffOf(a, b string) string { return textdiff.Unified("first", "second", a, b) }

// Sizing flags say what they mean: --cpus is the CPUs nginx may use (a
// number is written; auto would count the online CPUs of the machine it
// runs on), and the systemd drop-in never lowers the limit given.
func TestGenSizingFlags(t *testing.T) {
	gen := func(args ...string) string {
		out, errOut, code := runCLI(t, "", append([]string{"gen", "--profile", "static", "--verify=false", "--nginx-version", "1.22.1", "--memory", "4GiB"}, args...)...)
		if code != 0 {
			t.Fatalf("gen %v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	if out := gen("--cpus", "2", "--nofile", "1024:524288"); !strings.Contains(out, "\nworker_processes 2;") {
		t.Errorf("--cpus 2 did not write worker_processes 2:\n%s", out)
	}
	if out := gen("--cpus", "2", "--nofile", "1048576"); strings.Contains(out, "LimitNOFILE=") {
		t.Errorf("--nofile 1048576 covers what nginx needs, yet a drop-in is written (it would lower the limit):\n%s", out)
	}
	out := gen("--cpus", "2", "--nofile", "1024:1048576")
	m := regexp.MustCompile(`LimitNOFILE=(\d+):(\d+)`).FindStringSubmatch(out)
	if m == nil || m[2] != "1048576" {
		t.Errorf("the drop-in lowers the hard limit 1048576:\n%s", out)
	}
}

// An upstream named by a host that resolves only inside a container
// network does not fail verification: nginx -t checks the configuration with
// 127.0.0.1 standing in, says so, and the files are written.
func TestGenVerifiesContainerNames(t *testing.T) {
	nginxtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("verification runs as root")
	}
	out := filepath.Join(t.TempDir(), "nginx")
	_, errOut, code := runCLI(t, "", "gen", "--profile", "proxy", "--upstream", "app-nginxtune-test.invalid:3000", "--server-name", "app.example",
		"--cpus", "2", "--memory", "4GiB", "--nofile", "1024:524288", "--nginx-version", "1.22.1", "--out", out)
	if code != 0 || !strings.Contains(errOut, "127.0.0.1 standing in") || !strings.Contains(errOut, "verified with nginx -t") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "sites/app.example.conf")); !strings.Contains(string(b), "server app-nginxtune-test.invalid:3000;") {
		t.Errorf("the written file does not name the real backend:\n%s", b)
	}
}

// The workers' account: --user (else the one this machine's packages use,
// TestDefaultUser); a value that is not an account name is refused.
func TestGenUser(t *testing.T) {
	out, errOut, code := runCLI(t, "", "gen", "--profile", "static", "--user", "nginx", "--verify=false", "--cpus", "2", "--memory", "2GiB")
	if code != 0 || !strings.Contains(out, "\nuser nginx;\n") {
		t.Errorf("--user nginx: exit %d %s\n%s", code, errOut, out)
	}
	if _, _, code := runCLI(t, "", "gen", "--profile", "static", "--user", "nginx; load_module /x.so", "--verify=false", "--cpus", "2", "--memory", "2GiB"); code != ExitError {
		t.Errorf("an injected --user was accepted: exit %d", code)
	}
}

// gen never replaces a distribution's nginx.conf (one that includes
// modules-enabled, sites-enabled, conf.d or default.d), even with --force:
// its own would drop the modules and sites those directories load. Its own
// earlier output it replaces as before.
func TestGenKeepsDistributionConf(t *testing.T) {
	out := t.TempDir()
	debian := "user www-data;\ninclude /etc/nginx/modules-enabled/*.conf;\nevents {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n    include /etc/nginx/sites-enabled/*;\n}\n"
	conf := filepath.Join(out, "nginx.conf")
	os.WriteFile(conf, []byte(debian), 0o644)
	args := []string{"gen", "--profile", "static", "--server-name", "app.example", "--verify=false", "--cpus", "2", "--memory", "2GiB", "--out", out}
	for _, extra := range [][]string{nil, {"--force"}} {
		_, errOut, code := runCLI(t, "", append(args, extra...)...)
		if code != ExitError || !strings.Contains(errOut, "modules-enabled") {
			t.Errorf("%v: exit %d: %s", extra, code, errOut)
		}
		if b, _ := os.ReadFile(conf); string(b) != debian {
			t.Fatalf("%v: the distribution's nginx.conf was replaced", extra)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 1 {
			t.Errorf("%v: files written: %v", extra, entries)
		}
	}
	// gen's own output is replaced with --force, as before
	os.Remove(conf)
	if _, errOut, code := runCLI(t, "", args...); code != 0 {
		t.Fatalf("fresh: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "", append(args, "--force", "--cpus", "4")...); code != 0 {
		t.Errorf("gen's own nginx.conf with --force: exit %d: %s", code, errOut)
	}
}

// A facts file's text (a source, an error, a version) reaches comments in
// what gen writes: a line break in it cannot end the comment and add a
// directive.
func TestGenFactsTextCannotInject(t *testing.T) {
	dir := t.TempDir()
	facts := filepath.Join(dir, "facts.yaml")
	os.WriteFile(facts, []byte("cpu_online: 2\nmem_total: 4294967296\nsystemd: false\n"+
		"nofile: {value: {soft: 1024, hard: 2048}, source: \"x\\nload_module /tmp/evil.so;\\n#\"}\n"+
		"kernel: {value: \"6.1\\nload_module /tmp/evil.so;\", source: \"y\\r\\nload_module /tmp/evil.so;\"}\n"), 0o644)
	out, errOut, code := runCLI(t, "", "gen", "--profile", "static", "--facts", facts, "--verify=false", "--nginx-version", "1.22.1")
	if code != 0 {
		t.Fatalf("gen: exit %d: %s", code, errOut)
	}
	for _, line := range strings.Split(out+errOut, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "load_module") {
			t.Errorf("a directive from the facts file's text: %q", line)
		}
	}
}

// gen --diff prints the file already in --out, which anybody may have
// written: its bytes reach the terminal escaped.
func TestGenDiffEscapes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte("events {}\n# \x1b[31mred\x1b]0;title\x07\n"), 0o644)
	out, errOut, code := runCLI(t, "", "gen", "--profile", "static", "--server-name", "a.example", "--cpus", "2", "--memory", "1GiB", "--out", dir, "--diff")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `-# \x1b[31mred`) {
		t.Errorf("gen --diff printed the file's bytes raw:\n%q", out)
	}
}
