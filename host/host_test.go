package host

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// tree writes a fake machine root: path -> content.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var base = map[string]string{
	"proc/meminfo":                          "MemTotal:        4028440 kB\nMemFree:         1000000 kB\nMemAvailable:    2000000 kB\n",
	"proc/self/status":                      "Name:\tnginxtune\nCpus_allowed_list:\t0-3\n",
	"sys/devices/system/cpu/online":         "0-7\n",
	"proc/sys/fs/file-max":                  "9223372036854775807\n",
	"proc/sys/fs/nr_open":                   "1048576\n",
	"proc/sys/net/core/somaxconn":           "4096\n",
	"proc/sys/net/ipv4/ip_local_port_range": "32768\t60999\n",
	"proc/sys/net/ipv4/tcp_tw_reuse":        "2\n",
	"proc/sys/net/ipv4/tcp_max_syn_backlog": "512\n",
	"proc/sys/kernel/osrelease":             "6.1.0-test\n",
}

func with(extra map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range base {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestCgroupV2Quota(t *testing.T) {
	root := tree(t, with(map[string]string{
		"proc/self/cgroup":                           "0::/kubepods/pod1/ctr\n",
		"sys/fs/cgroup/cgroup.controllers":           "cpu memory\n",
		"sys/fs/cgroup/kubepods/pod1/cpu.max":        "200000 100000\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/cpu.max":    "max 100000\n",
		"sys/fs/cgroup/kubepods/pod1/ctr/memory.max": "536870912\n",
		"sys/fs/cgroup/kubepods/memory.max":          "max\n",
	}))
	f := (&Reader{Root: root}).Read()
	if f.CPUOnline.Value != 8 || f.CPUAffinity.Value != 4 || f.CPUQuota.Value != 2 {
		t.Errorf("cpus: online %v affinity %v quota %v", f.CPUOnline, f.CPUAffinity, f.CPUQuota)
	}
	if !strings.Contains(f.CPUQuota.Source, "kubepods/pod1/cpu.max") {
		t.Errorf("quota source %q", f.CPUQuota.Source)
	}
	if f.UsableCPUs() != 2 {
		t.Errorf("usable %d, want 2", f.UsableCPUs())
	}
	if f.MemTotal.Value != 4028440*1024 || f.MemLimit.Value != 512<<20 || f.Memory() != 512<<20 {
		t.Errorf("memory total %v limit %v", f.MemTotal, f.MemLimit)
	}
	if f.PortRange.Value != (PortRange{32768, 60999}) || f.PortRange.Value.Size() != 28232 {
		t.Errorf("port range %v", f.PortRange)
	}
	if f.Somaxconn.Value != 4096 || f.TCPTwReuse.Value != 2 || f.TCPMaxSynBack.Value != 512 || f.NrOpen.Value != 1048576 {
		t.Errorf("sysctls %v %v %v %v", f.Somaxconn, f.TCPTwReuse, f.TCPMaxSynBack, f.NrOpen)
	}
	// no running nginx, no unit: systemd's default
	if f.NoFile.Value != (Limit{1024, 524288}) || !strings.Contains(f.NoFile.Source, "systemd default") {
		t.Errorf("nofile %v", f.NoFile)
	}
}

func TestCgroupV1Quota(t *testing.T) {
	root := tree(t, with(map[string]string{
		"proc/self/cgroup": "12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n",
		"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":  "150000\n",
		"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
		"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":             "-1\n",
		"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us":            "100000\n",
		"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes":  "1073741824\n",
		"sys/fs/cgroup/memory/memory.limit_in_bytes":             "9223372036854771712\n",
	}))
	f := (&Reader{Root: root}).Read()
	if f.CPUQuota.Value != 1.5 || f.UsableCPUs() != 2 {
		t.Errorf("quota %v usable %d", f.CPUQuota, f.UsableCPUs())
	}
	if f.MemLimit.Value != 1<<30 {
		t.Errorf("mem limit %v", f.MemLimit)
	}
}

func TestNoCgroupNoQuota(t *testing.T) {
	root := tree(t, with(map[string]string{
		"sys/fs/cgroup/cgroup.controllers": "cpu\n",
		"sys/fs/cgroup/cpu.max":            "max 100000\n",
		"proc/self/cgroup":                 "0::/\n",
	}))
	f := (&Reader{Root: root}).Read()
	if !f.CPUQuota.Known() || f.CPUQuota.Value != 0 || f.UsableCPUs() != 4 {
		t.Errorf("quota %v usable %d", f.CPUQuota, f.UsableCPUs())
	}
}

func TestSystemdDropIn(t *testing.T) {
	root := tree(t, with(map[string]string{
		"lib/systemd/system/nginx.service":                   "[Service]\nExecStart=/usr/sbin/nginx\nLimitNOFILE=4096\n",
		"etc/systemd/system/nginx.service.d/10-limits.conf":  "[Service]\nLimitNOFILE=16384:32768\n",
		"etc/systemd/system/nginx.service.d/20-more.conf":    "[Service]\nLimitNOFILE=65536\n",
		"usr/lib/systemd/system/nginx.service.d/05-old.conf": "[Service]\nLimitNOFILE=2048\n",
	}))
	f := (&Reader{Root: root}).Read()
	if f.NoFile.Value != (Limit{65536, 65536}) || !strings.HasSuffix(f.NoFile.Source, "20-more.conf") {
		t.Errorf("nofile %v", f.NoFile)
	}
}

func TestRunningMaster(t *testing.T) {
	root := tree(t, with(map[string]string{
		"run/nginx.pid":                    "4242\n",
		"proc/4242/stat":                   "4242 (nginx) S 1 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 1000 100 0\n",
		"proc/4242/status":                 "Name:\tnginx\n",
		"proc/4242/limits":                 "Limit                     Soft Limit           Hard Limit           Units     \nMax open files            20000                20000                files     \n",
		"lib/systemd/system/nginx.service": "[Service]\nLimitNOFILE=4096\n",
	}))
	f := (&Reader{Root: root}).Read()
	if f.NoFile.Value != (Limit{20000, 20000}) || !strings.Contains(f.NoFile.Source, "running master") {
		t.Errorf("nofile %v", f.NoFile)
	}
}

func TestNoSystemdUsesOwnLimit(t *testing.T) {
	m := with(map[string]string{
		"proc/777/limits": "Limit                     Soft Limit           Hard Limit           Units     \nMax open files            20000                40000                files     \n",
	})
	delete(m, "run/systemd/system/.keep")
	f := (&Reader{Root: tree(t, m), SelfPID: "777"}).Read()
	if f.NoFile.Value != (Limit{20000, 40000}) || !strings.Contains(f.NoFile.Source, "no systemd") {
		t.Errorf("nofile %v", f.NoFile)
	}
}

func TestOpenFilesLimitLine(t *testing.T) {
	header := "Limit                     Soft Limit           Hard Limit           Units     \n"
	root := tree(t, with(map[string]string{
		"proc/1/limits": header + "Max processes             95000                95000                processes \nMax open files            unlimited            unlimited            files     \n",
		"proc/2/limits": header + "Max open files            1024                 x                    files     \n",
		"proc/3/limits": header,
	}))
	r := &Reader{Root: root}
	if lim, ok := r.openFiles(1); !ok || lim != (Limit{math.MaxUint64, math.MaxUint64}) {
		t.Errorf("unlimited read as %v %v", lim, ok)
	}
	for _, pid := range []int{2, 3, 4} {
		if lim, ok := r.openFiles(pid); ok {
			t.Errorf("pid %d: a bad or missing line read as %v", pid, lim)
		}
	}
	// this process's own limits, as the kernel writes them
	var want syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		t.Skip(err)
	}
	if lim, ok := (&Reader{Root: "/"}).openFiles(os.Getpid()); !ok || lim.Soft != want.Cur || lim.Hard != want.Max {
		t.Errorf("own limits %v %v, getrlimit says %d/%d", lim, ok, want.Cur, want.Max)
	}
}

func TestMissingFilesAreSaid(t *testing.T) {
	f := (&Reader{Root: t.TempDir(), Nginx: func() (string, error) { return "", errors.New("not installed") }}).Read()
	probs := strings.Join(f.Problems(), "\n")
	for _, want := range []string{"cpu_online", "mem_total", "net_core_somaxconn", "nginx_version: nginx -V: not installed"} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems do not mention %s:\n%s", want, probs)
		}
	}
	if f.UsableCPUs() != 0 || f.Memory() != 0 {
		t.Error("unknown facts were guessed")
	}
}

func TestNginxV(t *testing.T) {
	out := `nginx version: nginx/1.22.1
built with OpenSSL 3.0.11 19 Sep 2023
TLS SNI support enabled
configure arguments: --with-cc-opt='-g -O2 -ffile-prefix-map=/build=.' --prefix=/usr/share/nginx --with-threads --with-http_v2_module --add-dynamic-module=/build/debian/modules/http-echo
`
	v, args := ParseNginxV(out)
	if v != "1.22.1" || len(args) != 5 || args[0] != "--with-cc-opt=-g -O2 -ffile-prefix-map=/build=." || args[2] != "--with-threads" {
		t.Errorf("version %q args %q", v, args)
	}
}

func TestLoadFileAndSpec(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "prod.yaml")
	os.WriteFile(p, []byte("cpu_online: 16\nmem_total: {value: 68719476736, source: proc/meminfo}\nnofile: {soft: 65536, hard: 65536}\n"), 0o644)
	f, err := LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.CPUOnline.Value != 16 || f.MemTotal.Value != 64<<30 || f.NoFile.Value.Soft != 65536 || !strings.HasPrefix(f.MemTotal.Source, p) {
		t.Errorf("loaded %+v", f)
	}
	os.WriteFile(p, []byte("cpus: 16\n"), 0o644)
	if _, err := LoadFile(p); err == nil || !strings.Contains(err.Error(), "cpus") {
		t.Errorf("unknown key not rejected: %v", err)
	}
	s, err := ParseSpec("cpus=2 mem=512MiB nofile=1024 port-range=1024-65535")
	if err != nil || s.MemTotal.Value != 512<<20 || s.NoFile.Value != (Limit{1024, 1024}) || s.PortRange.Value.Size() != 64512 {
		t.Errorf("spec %+v %v", s, err)
	}
	if _, err := ParseSpec("cpus=two"); err == nil {
		t.Error("bad spec accepted")
	}
}

// On this machine the facts are read from the real /proc and /sys.
func TestThisMachine(t *testing.T) {
	f := (&Reader{Root: "/"}).Read()
	if !f.CPUOnline.Known() || f.CPUOnline.Value < 1 || !f.MemTotal.Known() || f.MemTotal.Value == 0 {
		t.Errorf("this machine: %+v", f)
	}
}

// facts --root reads the nginx of the filesystem it is given, never this
// machine's and never by running it: the version and configure arguments
// are strings in the binary; without a binary the version is unknown.
func TestNginxVFromBinary(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "usr/sbin"), 0o755)
	bin := []byte("\x7fELF junk\x00nginx/1.27.3\x00more\x00configure arguments: --prefix=/etc/nginx --with-http_ssl_module\x00tail")
	os.WriteFile(filepath.Join(root, "usr/sbin/nginx"), bin, 0o755)
	out, err := NginxVFromBinary(root)
	v, args := ParseNginxV(out)
	if err != nil || v != "1.27.3" || len(args) != 2 || args[1] != "--with-http_ssl_module" {
		t.Errorf("got %q %v %v", v, args, err)
	}
	// a link out of the root is not followed
	other := t.TempDir()
	os.MkdirAll(filepath.Join(other, "usr/sbin"), 0o755)
	os.Symlink("/usr/sbin/nginx", filepath.Join(other, "usr/sbin/nginx"))
	if out, err := NginxVFromBinary(other); err == nil {
		t.Errorf("followed a link out of the root: %q", out)
	}
	f := (&Reader{Root: other, Nginx: func() (string, error) { return NginxVFromBinary(other) }, NginxSource: "binary"}).Read()
	if f.NginxVersion.Known() {
		t.Errorf("version known without a binary: %v", f.NginxVersion)
	}
}

// Every fact is in Problems and marked with the facts file's name: both
// read the one list each derives from Facts.
func TestEveryFactCounted(t *testing.T) {
	var f Facts
	n := 0
	f.each(func(name string, source, err *string) {
		n++
		*err = "unreadable"
	})
	if got := len(f.Problems()); got != n || n != reflect.TypeOf(f).NumField() {
		t.Errorf("Problems names %d facts; Facts has %d fields, each saw %d", got, reflect.TypeOf(f).NumField(), n)
	}
}

// each's list is Facts' fields, in order, each under its YAML key with
// its own Source and Error: what reading the struct by reflection gives,
// as each did before it was written out.
func TestEachListsEveryFact(t *testing.T) {
	var f Facts
	v := reflect.ValueOf(&f).Elem()
	i := 0
	f.each(func(name string, source, err *string) {
		if i >= v.NumField() {
			t.Fatalf("each lists %s past Facts' %d fields", name, v.NumField())
		}
		field := v.Type().Field(i)
		key, _, _ := strings.Cut(field.Tag.Get("yaml"), ",")
		fv := v.Field(i)
		if name != key || source != fv.FieldByName("Source").Addr().Interface().(*string) || err != fv.FieldByName("Error").Addr().Interface().(*string) {
			t.Errorf("each's fact %d is %s, want %s (%s) with its own Source and Error", i, name, key, field.Name)
		}
		i++
	})
	if i != v.NumField() {
		t.Errorf("each lists %d facts; Facts has %d fields", i, v.NumField())
	}
}

func TestFactsFileDuplicateKey(t *testing.T) {
	p := filepath.Join(t.TempDir(), "facts.yaml")
	os.WriteFile(p, []byte("cpu_online:\n  value: 4\n  source: nproc\ncpu_online:\n  value: 64\n  source: nproc\n"), 0o644)
	if _, err := LoadFile(p); err == nil || !strings.Contains(err.Error(), "facts.yaml:4: \"cpu_online\" is set twice (first at line 1)") {
		t.Errorf("a fact given twice: %v", err)
	}
}

// The attack: facts --root followed links out of ROOT (a link named
// proc/sys/kernel/osrelease printed the host's file) and read without
// bound (proc/meminfo -> /dev/zero reached 3.6 GB). Below a root, no
// link out of it is followed, for a read, a look (run/systemd/system) or a
// listing (system.conf.d), nor ".." from a path the root's files give
// (proc/self/cgroup); a device or a FIFO inside it is not read, nor a file
// past the size bound, and what is read is bounded: the whole Read
// allocates a few MiB, not the 1 GiB file's worth. Links inside the root
// are read.
func TestRootReadsStayInside(t *testing.T) {
	const marker = "4242"
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "osrelease"), []byte("6.6.6-HOST-"+marker+"\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "meminfo"), []byte("MemTotal: "+marker+"000 kB\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "nginx.service"), []byte("[Service]\nLimitNOFILE="+marker+"\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "memory.max"), []byte(marker+"0000\n"), 0o644)
	os.MkdirAll(filepath.Join(outside, "confd"), 0o755)
	os.WriteFile(filepath.Join(outside, "confd", "x.conf"), []byte("[Manager]\nDefaultLimitNOFILE="+marker+"\n"), 0o644)
	os.MkdirAll(filepath.Join(outside, "systemd"), 0o755)

	files := with(map[string]string{
		"proc/self/cgroup":                          "0::/../../../../" + filepath.Base(outside) + "\n",
		"sys/fs/cgroup/cgroup.controllers":          "cpu memory\n",
		"proc/sys/fs/file-max.real":                 "1234\n",
		"etc/systemd/system/nginx.service.d/a.conf": "[Service]\n",
	})
	delete(files, "proc/sys/kernel/osrelease")
	delete(files, "proc/meminfo")
	delete(files, "sys/devices/system/cpu/online")
	delete(files, "proc/sys/fs/file-max")
	root := tree(t, files)
	link := func(target, name string) {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(outside, "osrelease"), "proc/sys/kernel/osrelease")
	link(filepath.Join(outside, "meminfo"), "proc/meminfo")
	link("/dev/zero", "proc/cpuinfo")
	link(filepath.Join(outside, "nginx.service"), "etc/systemd/system/nginx.service")
	link(filepath.Join(outside, "confd"), "etc/systemd/system.conf.d")
	link(filepath.Join(outside, "systemd"), "run/systemd/system")
	link("file-max.real", "proc/sys/fs/file-max") // inside: read
	// a file past the bound (sparse: no disk), and a device, inside
	big := filepath.Join(root, "proc/sys/net/core/somaxconn")
	os.Truncate(big, 1<<30)
	dev := filepath.Join(root, "proc/sys/fs/nr_open")
	os.Remove(dev)
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o644, 1<<8|5); err != nil { // /dev/zero's numbers
		t.Log("no device node here (not root): that case is not tried:", err)
	}

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f := (&Reader{Root: root, SelfPID: "self"}).Read()
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("Read allocated %d MiB: a read is not bounded", alloc>>20)
	}
	out, _ := json.Marshal(f)
	if strings.Contains(string(out), marker) {
		t.Errorf("a fact from outside the root:\n%s", out)
	}
	if f.Kernel.Known() || f.MemTotal.Known() || f.Somaxconn.Known() || f.NrOpen.Known() || f.CPUOnline.Known() || f.Systemd.Value {
		t.Errorf("kernel %+v, memory %+v, somaxconn %+v, nr_open %+v, cpus %+v, systemd %+v", f.Kernel, f.MemTotal, f.Somaxconn, f.NrOpen, f.CPUOnline, f.Systemd)
	}
	// a memory.max that cannot be read is no limit nobody set: unknown
	if f.MemLimit.Known() {
		t.Errorf("memory limit %+v from a cgroup path that leads out of the root", f.MemLimit)
	}
	if f.FileMax.Value != 1234 || f.CPUAffinity.Value != 4 {
		t.Errorf("files inside the root were not read: file-max %+v, affinity %+v", f.FileMax, f.CPUAffinity)
	}
}
