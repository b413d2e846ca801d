// Package nginxcheck runs the installed nginx's configuration test on files
// in a temporary prefix. gen uses it to verify what it writes; tests use it
// through internal/testkit/nginxtest.
package nginxcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nginxtune/nginxtune/internal/atomicfile"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/knowledge"
)

// Binary returns the path of nginx, or "" when it is not installed.
func Binary() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Result is what nginx -t said.
type Result struct {
	OK       bool
	Message  string // first [emerg] message, without " in FILE:LINE"
	File     string
	Line     int
	Output   string
	TimedOut bool
}

// emergRe reads nginx's "[emerg]" lines; compiled when nginx -t first runs,
// not on every start of the program.
var emergRe = lazyre.New(`\[emerg\] \d+#\d+: (.*?)(?: in (\S+):(\d+))?$`)

// Run runs nginx -t with the given prefix and main file, bounded in time.
func Run(bin, prefix, conf string) Result { return RunIn(nil, bin, prefix, conf) }

// RunIn is Run with the command line of nginx -t appended to wrap (a
// program that sets up the test's surroundings and then runs its
// arguments; tests run nginx -t where it can write nothing but its
// prefix). Without wrap it is Run.
func RunIn(wrap []string, bin, prefix, conf string) Result {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	argv := append(append([]string(nil), wrap...), bin, "-t", "-p", prefix+"/", "-c", conf, "-e", "stderr")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r := Result{OK: err == nil, Output: out.String(), TimedOut: ctx.Err() != nil}
	for _, line := range strings.Split(out.String(), "\n") {
		if m := emergRe().FindStringSubmatch(line); m != nil {
			r.Message, r.File = m[1], m[2]
			r.Line, _ = strconv.Atoi(m[3])
			break
		}
	}
	return r
}

// WriteSelfSigned writes cert.pem and key.pem into dir: a self-signed
// ECDSA P-256 certificate for localhost and its key, for nginx -t to load
// where a configuration names certificates the check cannot read. The pair
// is fixed and public (made once with "openssl req -x509 -newkey ec
// -pkeyopt ec_paramgen_curve:P-256 -days 36500 -subj /CN=localhost"): it
// stands in for a certificate in a temporary prefix that never serves, and
// a fixed pair keeps crypto/x509 and the key generators out of the binary,
// a tenth of the page faults of every start (the pre-commit hook's too).
// The key is stored with "STAND-IN KEY" in its armour so that secret
// scanners do not take this file for a leaked key.
func WriteSelfSigned(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), []byte(standInCert), 0o600); err != nil {
		return err
	}
	key := strings.ReplaceAll(standInKey, "STAND-IN KEY", "PRIVATE KEY")
	return os.WriteFile(filepath.Join(dir, "key.pem"), []byte(key), 0o600)
}

const standInCert = `-----BEGIN CERTIFICATE-----
MIIBlTCCATugAwIBAgIUDNw9yGtEB5JX7SyusPFh747vxiEwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwMTIyMTIwMVoYDzIxMjYxMTA3
MjIxMjAxWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQp1UfEQ4ySO8LjJW+dtuSAl8bIGbyREGQt7X5D224687J/yRZY3o2s
VfaOn3yJUFPzahpO6gGM0JejcQQgAZQwo2kwZzAdBgNVHQ4EFgQUUmMOHYdNg0BO
LOSrhxO53pdMZoEwHwYDVR0jBBgwFoAUUmMOHYdNg0BOLOSrhxO53pdMZoEwDwYD
VR0TAQH/BAUwAwEB/zAUBgNVHREEDTALgglsb2NhbGhvc3QwCgYIKoZIzj0EAwID
SAAwRQIhAP2MAX7TpsZ5oaBwx96hLOcdkvycyRDv0s22xwZbzBqBAiAIJFeQ0Dkr
OqRCjUb7ro6EZgKBkPb1EcNQyIFyYYWB7Q==
-----END CERTIFICATE-----
`

const standInKey = `-----BEGIN STAND-IN KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgS+CJzBtoVR5HfX7q
scCkIAPaS8dLToPimMq/xQ0zcRehRANCAAQp1UfEQ4ySO8LjJW+dtuSAl8bIGbyR
EGQt7X5D224687J/yRZY3o2sVfaOn3yJUFPzahpO6gGM0JejcQQgAZQw
-----END STAND-IN KEY-----
`

// StockFiles copies the data files nginx packages ship beside nginx.conf
// (mime.types, fastcgi_params, ...) from the installed nginx into dir, so a
// configuration that includes them can be tested there.
func StockFiles(dir string) {
	for _, name := range knowledge.PackageFiles() {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			continue
		}
		for _, src := range knowledge.ConfDirs() {
			if b, err := os.ReadFile(filepath.Join(src, name)); err == nil {
				os.WriteFile(filepath.Join(dir, name), b, 0o644)
				break
			}
		}
	}
}

// Version returns the version of the nginx at bin, or "" (from V, so
// cached like it).
func Version(bin string) string {
	out, err := V(bin)
	if err != nil {
		return ""
	}
	return versionOf(out)
}

// versionOf reads the version in nginx -V's output.
func versionOf(out string) string {
	_, v, ok := strings.Cut(out, "nginx/")
	if !ok {
		return ""
	}
	return strings.Fields(v + " ")[0]
}

// V runs "bin -V", bounded in time, the one way nginxtune asks nginx what
// it is (version, modules, configure arguments). The answer is kept in the
// user's cache directory under the binary's identity (path, device, inode,
// size, modification time): a package upgrade replaces the file and so
// misses the cache, and a pre-commit hook that lints on every commit does
// not start nginx each time. NGINXTUNE_NO_CACHE=1 turns the cache off.
func V(bin string) (string, error) {
	cached, ok, key, cache := cachedV(bin)
	if ok {
		return cached, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-V").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s -V: %v", bin, err)
	}
	if cache != "" {
		writeCache(cache, key+"\n"+string(out))
	}
	return string(out), nil
}

// cachedV returns what the cache holds of "bin -V" (ok), and else the
// key and file V stores its answer under.
func cachedV(bin string) (out string, ok bool, key, cache string) {
	key, cache = nginxVCacheKey(bin)
	if cache != "" {
		if b, err := boundedread.Small(cache, 1<<20); err == nil {
			if k, out, found := strings.Cut(string(b), "\n"); found && k == key {
				return out, true, key, cache
			}
		}
	}
	return "", false, key, cache
}

// ErrNoBinary is V's error when no nginx is installed.
var ErrNoBinary = errors.New("no nginx binary on PATH or in /usr/sbin, /usr/local/sbin, /usr/local/nginx/sbin")

// Installed is the installed nginx as one command sees it: Binary looked
// up once, "nginx -V" asked once (V), whoever asks first, in whichever
// goroutine. The zero value is ready to use.
type Installed struct {
	mu     sync.Mutex
	looked bool
	bin    string
	asked  bool
	out    string
	err    error
}

func (i *Installed) binary() string {
	if !i.looked {
		i.bin, i.looked = Binary(), true
	}
	return i.bin
}

// V is the package's V for Binary, asked on the first call: ErrNoBinary
// when there is none.
func (i *Installed) V() (string, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.ask(true)
	return i.out, i.err
}

// Answered reports whether V returns without starting nginx: there is no
// nginx, it was asked already, or its answer is in the cache (read now, for
// V to return). A caller can then ask in turn rather than in a goroutine
// of its own (which costs a start-up as short as a pre-commit hook's
// more than the reading).
func (i *Installed) Answered() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.ask(false)
}

// ask settles V's answer, unless that takes running nginx and run is
// false; it reports whether the answer is settled. Called with mu held.
func (i *Installed) ask(run bool) bool {
	if i.asked {
		return true
	}
	switch bin := i.binary(); {
	case bin == "":
		i.err = ErrNoBinary
	case run:
		i.out, i.err = V(bin)
	default:
		out, ok, _, _ := cachedV(bin)
		if !ok {
			return false
		}
		i.out = out
	}
	i.asked = true
	return true
}

// Version is the package's Version for Binary, through V: "" when unknown.
func (i *Installed) Version() string {
	out, err := i.V()
	if err != nil {
		return ""
	}
	return versionOf(out)
}

// nginxVCacheKey names a binary by what changes when it is replaced, and
// returns the cache file for it ("" when there is no cache).
func nginxVCacheKey(bin string) (key, file string) {
	if os.Getenv("NGINXTUNE_NO_CACHE") != "" {
		return "", ""
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", ""
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", ""
	}
	id := ""
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		id = fmt.Sprintf("%d:%d", sys.Dev, sys.Ino)
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", ""
	}
	key = fmt.Sprintf("nginx-V v1 %s %s %d %d", abs, id, st.Size(), st.ModTime().UnixNano())
	return key, filepath.Join(dir, "nginxtune", "nginx-V")
}

// writeCache replaces a cache file atomically; failures only cost the next
// run the time the cache would have saved.
func writeCache(file, content string) {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return
	}
	atomicfile.Write(file, 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, content)
		return err
	})
}
