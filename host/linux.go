package host

// Reading the facts of a Linux machine below Reader.Root: /proc, /sys (cgroup
// v1 and v2), systemd's unit files and limits.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/boundedread"
)

// Reader reads facts below Root ("/" for this machine).
type Reader struct {
	Root string
	// Nginx runs "nginx -V" and returns its output; nil skips the nginx
	// facts. Tests replace it.
	Nginx func() (string, error)
	// NginxSource names where Nginx's answer comes from ("nginx -V" when
	// empty)
	NginxSource string
	// SelfPID is the process whose affinity is read ("self" by default).
	SelfPID string
}

func (r *Reader) path(p string) string { return filepath.Join(r.Root, p) }

// local reports whether r reads this machine (Root "" or "/"), whose files
// are read by path. Below any other root (a container's file system, a
// copy) every read, look and listing goes through os.Root: a link that
// leaves the root (proc/meminfo -> /dev/zero, an absolute link to the
// host's /proc) is not followed, and ".." in a path the root's own files
// give (proc/self/cgroup) does not climb out.
func (r *Reader) local() bool { return r.Root == "" || filepath.Clean(r.Root) == "/" }

// maxFactFile bounds one file of host facts: /proc/cpuinfo is about 1.5 KB
// a CPU, so a machine of 10,000 CPUs stays well under it, and a file in a
// container's tree (Root) that never ends is cut off.
const maxFactFile = 64 << 20

func (r *Reader) read(p string) (string, string, error) {
	var b []byte
	var err error
	if r.local() {
		b, err = boundedread.Small(r.path(p), maxFactFile)
	} else {
		b, err = r.readInRoot(p)
	}
	if err != nil {
		return "", "", err
	}
	return strings.TrimSpace(string(b)), p, nil
}

// readInRoot reads p below r.Root: a regular file (no device, FIFO or
// directory) of at most maxFactFile bytes, read no further than that.
func (r *Reader) readInRoot(p string) ([]byte, error) {
	root, err := os.OpenRoot(r.Root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := openRegular(root, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxFactFile {
		return nil, fmt.Errorf("%s: larger than %d bytes; not read", p, maxFactFile)
	}
	// (a kernel file says 0 for its size: the read is bounded all the same)
	b, err := io.ReadAll(io.LimitReader(f, maxFactFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFactFile {
		return nil, fmt.Errorf("%s: larger than %d bytes; not read", p, maxFactFile)
	}
	return b, nil
}

// openRegular opens p below root (no link out of it) without waiting (a
// FIFO does not block a non-blocking open), and keeps it only if it is a
// regular file.
func openRegular(root *os.Root, p string) (*os.File, error) {
	f, err := root.OpenFile(p, os.O_RDONLY|boundedread.ONonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file; not read", p)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// exists reports whether p exists below the root (for a directory that
// marks systemd or a cgroup version).
func (r *Reader) exists(p string) bool {
	if r.local() {
		_, err := os.Stat(r.path(p))
		return err == nil
	}
	root, err := os.OpenRoot(r.Root)
	if err != nil {
		return false
	}
	defer root.Close()
	_, err = root.Stat(p)
	return err == nil
}

// glob lists the files below the root that match pattern (relative to
// the root), as paths relative to it.
func (r *Reader) glob(pattern string) []string {
	if !r.local() {
		root, err := os.OpenRoot(r.Root)
		if err != nil {
			return nil
		}
		defer root.Close()
		out, _ := fs.Glob(root.FS(), pattern)
		return out
	}
	full, _ := filepath.Glob(r.path(pattern))
	out := make([]string, 0, len(full))
	for _, f := range full {
		rel, _ := filepath.Rel(r.Root, f)
		out = append(out, rel)
	}
	return out
}

// Read gathers every fact.
func (r *Reader) Read() *Facts {
	f := &Facts{}
	for g := range groups {
		r.readGroup(g, f)
	}
	return f
}

// group is a set of facts read together (see Source).
type group int

const (
	groupCPU     group = iota // CPUOnline, CPUAffinity, CPUQuota
	groupMemory               // MemTotal, MemLimit
	groupFiles                // NoFile, FileMax, NrOpen, Systemd
	groupBacklog              // Somaxconn, TCPMaxSynBack
	groupPorts                // PortRange, TCPTwReuse
	groupKernel               // Kernel
	groupNginx                // NginxVersion, NginxConfigure
	groups
)

// readGroup fills one group of facts in f.
func (r *Reader) readGroup(g group, f *Facts) {
	switch g {
	case groupCPU:
		f.CPUOnline = r.cpuOnline()
		f.CPUAffinity = r.cpuAffinity()
		f.CPUQuota = r.cpuQuota()
	case groupMemory:
		f.MemTotal = r.memTotal()
		f.MemLimit = r.memLimit()
	case groupFiles:
		f.NoFile = r.noFile()
		f.FileMax = readUint(r, "proc/sys/fs/file-max")
		f.NrOpen = readUint(r, "proc/sys/fs/nr_open")
		if r.exists("run/systemd/system") {
			f.Systemd = known(true, "run/systemd/system exists")
		} else {
			f.Systemd = known(false, "no run/systemd/system")
		}
	case groupBacklog:
		f.Somaxconn = readInt(r, "proc/sys/net/core/somaxconn")
		f.TCPMaxSynBack = readInt(r, "proc/sys/net/ipv4/tcp_max_syn_backlog")
	case groupPorts:
		f.TCPTwReuse = readInt(r, "proc/sys/net/ipv4/tcp_tw_reuse")
		f.PortRange = r.portRange()
	case groupKernel:
		if s, src, err := r.read("proc/sys/kernel/osrelease"); err == nil {
			f.Kernel = known(s, src)
		} else {
			f.Kernel = unknown[string](err)
		}
	case groupNginx:
		r.readNginx(f)
	}
}

// readNginx runs the Nginx function (nginx -V) when there is one.
func (r *Reader) readNginx(f *Facts) {
	if r.Nginx != nil {
		src := r.NginxSource
		if src == "" {
			src = "nginx -V"
		}
		out, err := r.Nginx()
		if err != nil {
			f.NginxVersion = unknown[string](fmt.Errorf("%s: %w", src, err))
		} else {
			v, args := ParseNginxV(out)
			if v == "" {
				f.NginxVersion = unknown[string](fmt.Errorf("%s: no version", src))
			} else {
				f.NginxVersion = known(v, src)
				f.NginxConfigure = known(args, src)
				if ssl := OpenSSLFromV(out); ssl != "" {
					f.NginxOpenSSL = known(ssl, src)
				}
			}
		}
	}
}

func readUint(r *Reader, p string) Fact[uint64] {
	s, src, err := r.read(p)
	if err != nil {
		return unknown[uint64](err)
	}
	v, err := strconv.ParseUint(strings.Fields(s + " ")[0], 10, 64)
	if err != nil {
		return unknown[uint64](fmt.Errorf("%s: %v", p, err))
	}
	return known(v, src)
}

func readInt(r *Reader, p string) Fact[int] {
	s, src, err := r.read(p)
	if err != nil {
		return unknown[int](err)
	}
	v, err := strconv.Atoi(strings.Fields(s + " ")[0])
	if err != nil {
		return unknown[int](fmt.Errorf("%s: %v", p, err))
	}
	return known(v, src)
}

func (r *Reader) portRange() Fact[PortRange] {
	s, src, err := r.read("proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return unknown[PortRange](err)
	}
	f := strings.Fields(s)
	if len(f) != 2 {
		return unknown[PortRange](fmt.Errorf("%s: %q", src, s))
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || hi < lo {
		return unknown[PortRange](fmt.Errorf("%s: %q", src, s))
	}
	return known(PortRange{lo, hi}, src)
}

// cpuList counts the CPUs of a list such as "0-3,8,10-11".
func cpuList(s string) (int, error) {
	n := 0
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0, fmt.Errorf("cpu list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, fmt.Errorf("cpu list %q", s)
			}
		}
		n += b - a + 1
	}
	if n == 0 {
		return 0, fmt.Errorf("empty cpu list")
	}
	return n, nil
}

// cpuOnline counts the online CPUs as sysconf(_SC_NPROCESSORS_ONLN) does,
// which is what nginx's "worker_processes auto" uses; counting the
// processors in /proc/cpuinfo is the fallback.
func (r *Reader) cpuOnline() Fact[int] {
	if s, src, err := r.read("sys/devices/system/cpu/online"); err == nil {
		if n, err := cpuList(s); err == nil {
			return known(n, src)
		}
	}
	if s, _, err := r.read("proc/cpuinfo"); err == nil {
		n := 0
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "processor") {
				n++
			}
		}
		if n > 0 {
			return known(n, "proc/cpuinfo")
		}
	}
	return unknown[int](fmt.Errorf("neither sys/devices/system/cpu/online nor proc/cpuinfo could be read"))
}

func (r *Reader) cpuAffinity() Fact[int] {
	pid := r.SelfPID
	if pid == "" {
		pid = "self"
	}
	s, src, err := r.read("proc/" + pid + "/status")
	if err != nil {
		return unknown[int](err)
	}
	for _, l := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			n, err := cpuList(v)
			if err != nil {
				return unknown[int](err)
			}
			return known(n, src+" Cpus_allowed_list")
		}
	}
	return unknown[int](fmt.Errorf("%s has no Cpus_allowed_list", src))
}

// cgroupPaths returns the cgroup v2 path of the process and its v1 paths by
// controller, from proc/self/cgroup.
func (r *Reader) cgroupPaths() (v2 string, v1 map[string]string) {
	v1 = map[string]string{}
	s, _, err := r.read("proc/self/cgroup")
	if err != nil {
		return "/", v1
	}
	v2 = ""
	for _, l := range strings.Split(s, "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			v1[c] = parts[2]
		}
	}
	return v2, v1
}

// walkUp calls fn for dir and each parent up to the cgroup root.
func walkUp(dir string, fn func(string) bool) {
	for {
		if !fn(dir) {
			return
		}
		if dir == "/" || dir == "." || dir == "" {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// cpuQuota reads the cgroup CPU quota: cpu.max (v2) or cpu.cfs_quota_us /
// cpu.cfs_period_us (v1), the smallest along the path to the root.
func (r *Reader) cpuQuota() Fact[float64] {
	v2, v1 := r.cgroupPaths()
	if r.exists("sys/fs/cgroup/cgroup.controllers") {
		best, src := 0.0, ""
		walkUp(v2, func(dir string) bool {
			p := filepath.Join("sys/fs/cgroup", dir, "cpu.max")
			s, _, err := r.read(p)
			if err != nil {
				return true
			}
			f := strings.Fields(s)
			if len(f) == 2 && f[0] != "max" {
				q, err1 := strconv.ParseFloat(f[0], 64)
				per, err2 := strconv.ParseFloat(f[1], 64)
				if err1 == nil && err2 == nil && per > 0 && (best == 0 || q/per < best) {
					best, src = q/per, p
				}
			}
			return true
		})
		if src == "" {
			return known(0.0, "sys/fs/cgroup (cgroup v2, no cpu.max quota)")
		}
		return known(best, src)
	}
	for _, ctl := range []string{"cpu,cpuacct", "cpu", "cpuacct,cpu"} {
		base := filepath.Join("sys/fs/cgroup", ctl)
		if !r.exists(base) {
			continue
		}
		best, src := 0.0, ""
		walkUp(v1["cpu"], func(dir string) bool {
			qs, _, err1 := r.read(filepath.Join(base, dir, "cpu.cfs_quota_us"))
			ps, _, err2 := r.read(filepath.Join(base, dir, "cpu.cfs_period_us"))
			if err1 == nil && err2 == nil {
				q, _ := strconv.ParseFloat(qs, 64)
				p, _ := strconv.ParseFloat(ps, 64)
				if q > 0 && p > 0 && (best == 0 || q/p < best) {
					best, src = q/p, filepath.Join(base, dir, "cpu.cfs_quota_us")
				}
			}
			return true
		})
		if src == "" {
			return known(0.0, base+" (cgroup v1, no CPU quota)")
		}
		return known(best, src)
	}
	return unknown[float64](fmt.Errorf("no cgroup file system under sys/fs/cgroup"))
}

// memTotal reads MemTotal of proc/meminfo (in KiB), as free(1) and
// sysinfo(2) report it.
func (r *Reader) memTotal() Fact[uint64] {
	s, src, err := r.read("proc/meminfo")
	if err != nil {
		return unknown[uint64](err)
	}
	for _, l := range strings.Split(s, "\n") {
		rest, ok := strings.CutPrefix(l, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 2 && f[1] == "kB" {
			if v, err := strconv.ParseUint(f[0], 10, 64); err == nil && v < math.MaxUint64/1024 {
				return known(v*1024, src+" MemTotal")
			}
		}
		return unknown[uint64](fmt.Errorf("%s: MemTotal %q", src, strings.TrimSpace(rest)))
	}
	return unknown[uint64](fmt.Errorf("%s has no MemTotal", src))
}

// unlimitedV1 is the value cgroup v1 reports for no memory limit (a page
// count near 2^63).
const unlimitedV1 = 1 << 60

func (r *Reader) memLimit() Fact[uint64] {
	v2, v1 := r.cgroupPaths()
	if r.exists("sys/fs/cgroup/cgroup.controllers") {
		var best uint64
		src := ""
		var bad error
		walkUp(v2, func(dir string) bool {
			p := filepath.Join("sys/fs/cgroup", dir, "memory.max")
			s, _, err := r.read(p)
			switch {
			case errors.Is(err, fs.ErrNotExist) || err == nil && s == "max":
			case err != nil:
				bad = err
			default:
				if v, err := strconv.ParseUint(s, 10, 64); err != nil {
					bad = fmt.Errorf("%s: %q is no limit", p, s)
				} else if best == 0 || v < best {
					best, src = v, p
				}
			}
			return true
		})
		if bad != nil {
			// a limit that cannot be read is unknown, not "no limit"
			return unknown[uint64](bad)
		}
		if src == "" {
			return known[uint64](0, "sys/fs/cgroup (cgroup v2, memory.max is max)")
		}
		return known(best, src)
	}
	base := "sys/fs/cgroup/memory"
	if !r.exists(base) {
		return unknown[uint64](fmt.Errorf("no cgroup file system under sys/fs/cgroup"))
	}
	var best uint64
	src := ""
	var bad error
	walkUp(v1["memory"], func(dir string) bool {
		p := filepath.Join(base, dir, "memory.limit_in_bytes")
		s, _, err := r.read(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			bad = err
		default:
			if v, err := strconv.ParseUint(s, 10, 64); err != nil {
				bad = fmt.Errorf("%s: %q is no limit", p, s)
			} else if v < unlimitedV1 && (best == 0 || v < best) {
				best, src = v, p
			}
		}
		return true
	})
	if bad != nil {
		return unknown[uint64](bad)
	}
	if src == "" {
		return known[uint64](0, base+" (cgroup v1, no limit)")
	}
	return known(best, src)
}

// systemd's limits for services since v240 when nothing sets LimitNOFILE.
var systemdDefault = Limit{Soft: 1024, Hard: 524288}

// noFile finds the open-file limit nginx's master runs with: from a running
// master, else from the systemd unit and its drop-ins, else systemd's
// default.
func (r *Reader) noFile() Fact[Limit] {
	for _, pidFile := range []string{"run/nginx.pid", "var/run/nginx.pid", "usr/local/nginx/logs/nginx.pid"} {
		s, src, err := r.read(pidFile)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(s)
		if err != nil {
			continue
		}
		if lim, ok := r.openFiles(pid); ok {
			return known(lim, fmt.Sprintf("proc/%d/limits (running master, pid from %s)", pid, src))
		}
	}
	if lim, src, ok := r.systemdNoFile(); ok {
		return known(lim, src)
	}
	if !r.exists("run/systemd/system") {
		// No systemd on this machine: nginx started from here inherits
		// this process's limit.
		pid := os.Getpid()
		if r.SelfPID != "" {
			if n, err := strconv.Atoi(r.SelfPID); err == nil {
				pid = n
			}
		}
		if lim, ok := r.openFiles(pid); ok {
			return known(lim, fmt.Sprintf("proc/%d/limits (no systemd running: nginx started from here inherits this limit)", pid))
		}
	}
	return known(systemdDefault, "systemd default for services (1024 soft, 524288 hard; no running nginx, no LimitNOFILE in nginx.service)")
}

// openFiles reads the "Max open files" line of <root>/proc/PID/limits:
// the name, the soft and hard limits ("unlimited" or a number), the unit.
// (Read here rather than through gopsutil's process package, whose
// package initialisation reads /proc/stat twice on every run.)
func (r *Reader) openFiles(pid int) (Limit, bool) {
	s, _, err := r.read(filepath.Join("proc", strconv.Itoa(pid), "limits"))
	if err != nil {
		return Limit{}, false
	}
	for _, line := range strings.Split(s, "\n") {
		rest, ok := strings.CutPrefix(line, "Max open files")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			return Limit{}, false
		}
		soft, ok1 := rlimitValue(f[0])
		hard, ok2 := rlimitValue(f[1])
		return Limit{Soft: soft, Hard: hard}, ok1 && ok2
	}
	return Limit{}, false
}

// rlimitValue reads one limit of /proc/PID/limits; "unlimited" is the
// largest value, as the kernel's RLIM_INFINITY.
func rlimitValue(s string) (uint64, bool) {
	if s == "unlimited" {
		return math.MaxUint64, true
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// systemdNoFile reads LimitNOFILE from nginx.service, its drop-ins (later
// ones win, as systemd applies them) and systemd's DefaultLimitNOFILE.
func (r *Reader) systemdNoFile() (Limit, string, bool) {
	var lim Limit
	src := ""
	apply := func(file string) {
		s, _, err := r.read(file)
		if err != nil {
			return
		}
		for _, l := range strings.Split(s, "\n") {
			l = strings.TrimSpace(l)
			key, val, ok := strings.Cut(l, "=")
			if !ok || (strings.TrimSpace(key) != "LimitNOFILE" && strings.TrimSpace(key) != "DefaultLimitNOFILE") {
				continue
			}
			if v, ok := parseLimit(strings.TrimSpace(val)); ok {
				lim, src = v, file
			}
		}
	}
	for _, f := range []string{"etc/systemd/system.conf"} {
		apply(f)
	}
	confd := r.glob("etc/systemd/system.conf.d/*.conf")
	sort.Strings(confd)
	for _, f := range confd {
		apply(f)
	}
	for _, dir := range []string{"usr/lib/systemd/system", "lib/systemd/system", "etc/systemd/system", "run/systemd/system"} {
		apply(filepath.Join(dir, "nginx.service"))
	}
	// drop-ins: sorted by file name across directories, /etc over /run over /usr
	byName := map[string]string{}
	for _, dir := range []string{"usr/lib/systemd/system", "lib/systemd/system", "run/systemd/system", "etc/systemd/system"} {
		for _, f := range r.glob(filepath.Join(dir, "nginx.service.d", "*.conf")) {
			byName[filepath.Base(f)] = f
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		apply(byName[n])
	}
	return lim, src, src != ""
}

// parseLimit reads systemd's "N", "SOFT:HARD" or "infinity".
func parseLimit(s string) (Limit, bool) {
	one := func(v string) (uint64, bool) {
		if v == "infinity" {
			return 0, true
		}
		n, err := strconv.ParseUint(v, 10, 64)
		return n, err == nil
	}
	soft, hard, pair := strings.Cut(s, ":")
	a, ok := one(soft)
	if !ok {
		return Limit{}, false
	}
	if !pair {
		return Limit{Soft: a, Hard: a}, true
	}
	b, ok := one(hard)
	return Limit{Soft: a, Hard: b}, ok
}
