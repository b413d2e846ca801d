// Package nginxtest runs the real nginx binary's configuration test (nginx -t)
// on files in a temporary prefix, for tests that check nginxtune against
// nginx itself. It never tests against the system's /etc/nginx; it only
// copies nginx's stock data files (mime.types, fastcgi_params) from there.
package nginxtest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
)

// Binary returns the path of nginx, or "" when it is not installed.
func Binary() string { return nginxcheck.Binary() }

// Result is what nginx -t said.
type Result = nginxcheck.Result

// Require skips the test when nginx is missing, unless the environment
// variable CI is set: there the missing binary is a failed install. The
// short tier (go test -short) runs no nginx: it depends on nothing the
// machine has installed.
func Require(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the short tier runs no nginx")
	}
	b := Binary()
	if b == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("nginx is not installed; .ci/run installs nginx-full")
		}
		t.Skip("nginx is not installed")
	}
	return b
}

// Test copies files (relative path -> content) into a new temporary prefix
// and runs nginx -t on main, the relative path of the main file.
func Test(t testing.TB, files map[string][]byte, main string) Result {
	t.Helper()
	bin := Require(t)
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Run(t, bin, dir, filepath.Join(dir, main))
}

// Run runs nginx -t with the given prefix and main file, bounded in time.
// As root it runs sealed (Sealed): nginx -t can then write nothing outside
// the prefix, so a fixture that needs a directory of the host (a cache
// path under /var/cache/nginx, a log in /tmp) fails on every machine, not
// only on one that lacks the directory, and no test leaves files on the
// host. Without root nginx -t runs as it is (it can write little there).
func Run(t testing.TB, bin, prefix, conf string) Result {
	t.Helper()
	r := nginxcheck.RunIn(sealWrap(t, bin, prefix), bin, prefix, conf)
	if r.TimedOut {
		t.Fatalf("nginx -t timed out on %s", conf)
	}
	if strings.Contains(r.Output, sealFailed) {
		if os.Getenv("CI") != "" {
			t.Fatalf("nginx -t could not be sealed: %s", r.Output)
		}
		t.Logf("nginx -t runs unsealed: %s", r.Output)
		r = nginxcheck.Run(bin, prefix, conf)
	}
	return r
}

// sealFailed marks the sealing script's own failure in nginx -t's output.
const sealFailed = "nginxtest: sealing failed"

// sealScript runs its arguments after "--" in a mount namespace of their
// own (unshare gives it; mounts are private to it) where every mount of
// the host but /proc, /sys and /dev is read-only, the prefix (the first
// argument) stays writable, and the directories that follow it get an
// empty tmpfs each: the places nginx -t writes by the build's defaults
// (the pid file, the default access log, the temporary directories).
const sealScript = `fail() { echo "` + sealFailed + `: $*" >&2; exit 97; }
p=$1; shift
mount --bind "$p" "$p" || fail "bind $p"
for m in $(awk '{print $5}' /proc/self/mountinfo); do
	case $m in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|"$p"|*\\*) continue;; esac
	# a mount whose directory another test removed since (its tmpfs
	# unmounted, then its temporary directory deleted) has no path left
	# to write through
	[ -e "$m" ] || continue
	mount -o remount,bind,ro "$m" || fail "read-only $m"
done
while [ "$1" != "--" ]; do
	mount -t tmpfs -o size=16m,mode=0755 nginxtest "$1" || fail "tmpfs $1"
	shift
done
shift
exec "$@"`

// sealWrap returns the command that seals nginx -t (sealScript), or nil
// where it cannot be: not root, or no unshare.
func sealWrap(t testing.TB, bin, prefix string) []string {
	if os.Geteuid() != 0 {
		return nil
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("unshare (util-linux) is needed to run nginx -t sealed")
		}
		return nil
	}
	prefix, err = filepath.EvalSymlinks(prefix)
	if err != nil {
		t.Fatal(err)
	}
	wrap := []string{unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", sealScript, "sh", prefix}
	return append(append(wrap, writeDirs(bin)...), "--")
}

// writeDirsOf holds defaultWriteDirs for each nginx binary: the same for
// every nginx -t a test process runs, worked out once.
var writeDirsOf sync.Map

// writeDirs is defaultWriteDirs(bin), worked out once a process.
func writeDirs(bin string) []string {
	if d, ok := writeDirsOf.Load(bin); ok {
		return d.([]string)
	}
	d := defaultWriteDirs(bin)
	writeDirsOf.Store(bin, d)
	return d
}

// defaultWriteDirs lists the existing directories where the nginx at bin
// writes by its build's defaults (nginx -V: the pid and lock files, the
// access and error logs, the temporary paths, which nginx -t creates),
// links resolved, none below another.
func defaultWriteDirs(bin string) []string {
	v, _ := nginxcheck.V(bin)
	var dirs []string
	for _, f := range strings.Fields(v) {
		name, val, ok := strings.Cut(f, "=")
		if !ok || !strings.HasPrefix(val, "/") || !strings.HasPrefix(name, "--") ||
			!(strings.HasSuffix(name, "-temp-path") || strings.HasSuffix(name, "-log-path") || name == "--pid-path" || name == "--lock-path") {
			continue
		}
		d, err := filepath.EvalSymlinks(filepath.Dir(val))
		if err != nil || d == "/" {
			continue
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	var out []string
	for _, d := range dirs {
		if n := len(out); n > 0 && boundedread.Within(d, out[n-1]) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// WriteSelfSigned writes cert.pem and key.pem into dir.
func WriteSelfSigned(t testing.TB, dir string) {
	t.Helper()
	if err := nginxcheck.WriteSelfSigned(dir); err != nil {
		t.Fatal(err)
	}
}

// CheckTree copies a configuration (a file, which becomes nginx.conf, or a
// directory with nginx.conf) into a temporary prefix next to a self-signed
// cert.pem and key.pem, and runs nginx -t on it.
func CheckTree(t testing.TB, path string) Result {
	t.Helper()
	bin := Require(t)
	dir := t.TempDir()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.IsDir() {
		if err := os.CopyFS(dir, os.DirFS(path)); err != nil {
			t.Fatal(err)
		}
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	WriteSelfSigned(t, dir)
	nginxcheck.StockFiles(dir)
	return Run(t, bin, dir, filepath.Join(dir, "nginx.conf"))
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Backend serves h on a loopback port until the test ends and counts the
// TCP connections it accepts: a keepalive pool in front of it shows as
// fewer connections than requests. It returns the address and the count.
func Backend(t testing.TB, h http.Handler) (string, *atomic.Int64) {
	t.Helper()
	accepted := new(atomic.Int64)
	srv := &http.Server{Handler: h, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String(), accepted
}

// Serve starts a real nginx (as root: workers run as root, so the temporary
// prefix needs no other permissions) with the prefix dir and main file conf,
// waits until it accepts connections on addr, and stops it when the test
// ends. The configuration must not set pid, error_log or user: they come
// from the command line.
func Serve(t testing.TB, dir, conf, addr string) {
	t.Helper()
	bin := Require(t)
	if os.Geteuid() != 0 {
		t.Skip("serving with nginx needs root")
	}
	g := fmt.Sprintf("daemon off; user root; pid %s; error_log %s info;",
		filepath.Join(dir, "nginx.pid"), filepath.Join(dir, "error.log"))
	cmd := exec.Command(bin, "-p", dir, "-c", conf, "-g", g)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := StartGroup(t, cmd)
	// a bound for a hang, not a measure: nginx listens in milliseconds
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited: %s %s", out.String(), log)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nginx did not listen on %s within 30 s", addr)
}

// Get fetches url with a 30-second bound (a hang guard) and returns the status and body.
func Get(t testing.TB, url string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second} // a hang guard
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// StartGroup starts cmd as the leader of a process group of its own and,
// when the test ends, stops the whole group: SIGQUIT (a graceful stop for
// nginx and php-fpm, whose workers then exit), SIGKILL to every member after
// 5 s, and a test failure if any process of the group is still there. The
// returned channel closes when cmd has exited.
func StartGroup(t testing.TB, cmd *exec.Cmd) <-chan struct{} {
	t.Helper()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-pgid, syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-done
		}
		// the workers leave after their master: wait for the group to empty
		for i := 0; i < 100 && syscall.Kill(-pgid, 0) == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if syscall.Kill(-pgid, 0) == nil {
			syscall.Kill(-pgid, syscall.SIGKILL)
			t.Errorf("%s: processes of its group were still running 5 s after it stopped (killed)", filepath.Base(cmd.Path))
		}
	})
	return done
}

// RequireCorpus skips a test in the short tier, which reads nothing
// outside the repository, and when the shared corpus is not beside the
// repository, except in CI (the environment variable CI set), where the
// corpus is installed and its absence is a failure, not a pass.
func RequireCorpus(t testing.TB, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("the short tier reads nothing outside the repository")
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the corpus must be there in CI: %v", err)
		}
		t.Skipf("corpus not available: %v", err)
	}
}

// Verdict is one row of the corpus's nginx-t-verdicts.tsv: what Debian's
// nginx -t said of a file, read in the context Wrap names when it is a
// fragment.
type Verdict struct {
	Path  string
	OK    bool
	Wrap  string
	Error string
}

// CorpusVerdicts reads the corpus's verdicts (RequireCorpus first), one row
// a line, its fields as written.
func CorpusVerdicts(t testing.TB, dir string) []Verdict {
	t.Helper()
	p := filepath.Join(dir, "nginx-t-verdicts.tsv")
	RequireCorpus(t, p)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []Verdict
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) < 3 {
			continue
		}
		v := Verdict{Path: f[0], OK: f[1] == "1", Wrap: f[2]}
		if len(f) > 3 {
			v.Error = f[3]
		}
		out = append(out, v)
	}
	return out
}

// FakeNginx puts an "nginx" first on PATH that answers -V as nginx does (on
// standard error: the version, then configure arguments) and counts its
// runs, and points the cache of nginx -V at a temporary directory (on).
// It returns the fake's directory and its count of runs so far.
func FakeNginx(t testing.TB, version string) (dir string, runs func() int) {
	t.Helper()
	dir = t.TempDir()
	count := filepath.Join(dir, "runs")
	script := "#!/bin/sh\necho run >> " + count + "\necho 'nginx version: nginx/" + version + "' >&2\necho 'configure arguments: --with-http_ssl_module' >&2\n"
	if err := os.WriteFile(filepath.Join(dir, "nginx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("NGINXTUNE_NO_CACHE", "")
	return dir, func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "run")
	}
}
