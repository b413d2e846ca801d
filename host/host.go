// Package host reads the facts about a machine that decide how nginx should
// be sized: CPUs (online, affinity, cgroup quota), memory (total and cgroup
// limit), the open-file limit nginx really gets, kernel settings and the
// installed nginx's version and modules.
//
// Every fact records where it was read from. Facts are read below Root, so
// tests can supply a fake tree with proc/, sys/ and etc/. Of nginxtune it
// imports only internal/nginxcheck, the one way to find nginx and ask it.
package host

import "math"

// Fact is one value with where it came from. A fact that could not be read
// has an empty Source and the reason in Error.
type Fact[T any] struct {
	Value  T      `json:"value" yaml:"value"`
	Source string `json:"source,omitempty" yaml:"source,omitempty"`
	Error  string `json:"error,omitempty" yaml:"error,omitempty"`
}

// Known reports whether the fact was read (or given).
func (f Fact[T]) Known() bool { return f.Source != "" }

func known[T any](v T, src string) Fact[T] { return Fact[T]{Value: v, Source: src} }

func unknown[T any](err error) Fact[T] { return Fact[T]{Error: err.Error()} }

// Limit is a soft and hard resource limit; 0 means unlimited.
type Limit struct {
	Soft uint64 `json:"soft" yaml:"soft"`
	Hard uint64 `json:"hard" yaml:"hard"`
}

// PortRange is net.ipv4.ip_local_port_range.
type PortRange struct {
	Low  int `json:"low" yaml:"low"`
	High int `json:"high" yaml:"high"`
}

// Size is the number of ports in the range.
func (r PortRange) Size() int { return r.High - r.Low + 1 }

// Facts about a host.
type Facts struct {
	CPUOnline      Fact[int]       `json:"cpu_online" yaml:"cpu_online"`
	CPUAffinity    Fact[int]       `json:"cpu_affinity" yaml:"cpu_affinity"`
	CPUQuota       Fact[float64]   `json:"cpu_quota" yaml:"cpu_quota"` // CPUs the cgroup quota allows; 0 = no quota
	MemTotal       Fact[uint64]    `json:"mem_total" yaml:"mem_total"`
	MemLimit       Fact[uint64]    `json:"mem_limit" yaml:"mem_limit"` // cgroup limit; 0 = none
	NoFile         Fact[Limit]     `json:"nofile" yaml:"nofile"`       // what nginx's master gets
	FileMax        Fact[uint64]    `json:"fs_file_max" yaml:"fs_file_max"`
	NrOpen         Fact[uint64]    `json:"fs_nr_open" yaml:"fs_nr_open"`
	Somaxconn      Fact[int]       `json:"net_core_somaxconn" yaml:"net_core_somaxconn"`
	PortRange      Fact[PortRange] `json:"net_ipv4_ip_local_port_range" yaml:"net_ipv4_ip_local_port_range"`
	TCPTwReuse     Fact[int]       `json:"net_ipv4_tcp_tw_reuse" yaml:"net_ipv4_tcp_tw_reuse"`
	TCPMaxSynBack  Fact[int]       `json:"net_ipv4_tcp_max_syn_backlog" yaml:"net_ipv4_tcp_max_syn_backlog"`
	Kernel         Fact[string]    `json:"kernel" yaml:"kernel"`
	NginxVersion   Fact[string]    `json:"nginx_version" yaml:"nginx_version"`
	NginxConfigure Fact[[]string]  `json:"nginx_configure" yaml:"nginx_configure"` // nginx -V configure arguments
	// NginxOpenSSL is the OpenSSL nginx runs with (nginx -V's "running
	// with", else "built with"): which TLS groups it can offer.
	NginxOpenSSL Fact[string] `json:"nginx_openssl,omitempty" yaml:"nginx_openssl,omitempty"`
	// Systemd is whether systemd manages services here (run/systemd/system
	// exists): only then does a LimitNOFILE drop-in reach nginx.
	Systemd Fact[bool] `json:"systemd" yaml:"systemd"`
}

// UsableCPUs is the number of CPUs nginx's workers can really use: the
// smallest of the online CPUs, the affinity mask and the cgroup quota
// (rounded up). It is 0 when no CPU fact is known.
func (f *Facts) UsableCPUs() int {
	n := 0
	pick := func(v int) {
		if v > 0 && (n == 0 || v < n) {
			n = v
		}
	}
	if f.CPUOnline.Known() {
		pick(f.CPUOnline.Value)
	}
	if f.CPUAffinity.Known() {
		pick(f.CPUAffinity.Value)
	}
	if f.CPUQuota.Known() && f.CPUQuota.Value > 0 {
		pick(int(math.Ceil(f.CPUQuota.Value)))
	}
	return n
}

// Memory is the memory available to nginx: the cgroup limit when there is
// one, else the total. 0 when unknown.
func (f *Facts) Memory() uint64 {
	if f.MemLimit.Known() && f.MemLimit.Value > 0 && (!f.MemTotal.Known() || f.MemLimit.Value < f.MemTotal.Value) {
		return f.MemLimit.Value
	}
	if f.MemTotal.Known() {
		return f.MemTotal.Value
	}
	return 0
}

// Problems lists the facts that could not be read.
func (f *Facts) Problems() []string {
	var out []string
	f.each(func(name string, source, err *string) {
		if *err != "" {
			out = append(out, name+": "+*err)
		}
	})
	return out
}

// each calls fn with the name (its YAML key), source and error of every
// fact of f, in the order Facts declares them: one list of the facts,
// which Problems, the facts file and their tests all read. Written out, not
// found by reflection (which took a pre-commit hook 50,000 instructions to
// list the facts it had no problem with); TestEachListsEveryFact holds the
// list to Facts' fields and their tags.
func (f *Facts) each(fn func(name string, source, err *string)) {
	for _, x := range [...]struct {
		name        string
		source, err *string
	}{
		{"cpu_online", &f.CPUOnline.Source, &f.CPUOnline.Error},
		{"cpu_affinity", &f.CPUAffinity.Source, &f.CPUAffinity.Error},
		{"cpu_quota", &f.CPUQuota.Source, &f.CPUQuota.Error},
		{"mem_total", &f.MemTotal.Source, &f.MemTotal.Error},
		{"mem_limit", &f.MemLimit.Source, &f.MemLimit.Error},
		{"nofile", &f.NoFile.Source, &f.NoFile.Error},
		{"fs_file_max", &f.FileMax.Source, &f.FileMax.Error},
		{"fs_nr_open", &f.NrOpen.Source, &f.NrOpen.Error},
		{"net_core_somaxconn", &f.Somaxconn.Source, &f.Somaxconn.Error},
		{"net_ipv4_ip_local_port_range", &f.PortRange.Source, &f.PortRange.Error},
		{"net_ipv4_tcp_tw_reuse", &f.TCPTwReuse.Source, &f.TCPTwReuse.Error},
		{"net_ipv4_tcp_max_syn_backlog", &f.TCPMaxSynBack.Source, &f.TCPMaxSynBack.Error},
		{"kernel", &f.Kernel.Source, &f.Kernel.Error},
		{"nginx_version", &f.NginxVersion.Source, &f.NginxVersion.Error},
		{"nginx_configure", &f.NginxConfigure.Source, &f.NginxConfigure.Error},
		{"nginx_openssl", &f.NginxOpenSSL.Source, &f.NginxOpenSSL.Error},
		{"systemd", &f.Systemd.Source, &f.Systemd.Error},
	} {
		fn(x.name, x.source, x.err)
	}
}
