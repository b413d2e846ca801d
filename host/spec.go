package host

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSpec reads facts written as key=value words, for tests, rule
// examples and quick what-ifs:
//
//	cpus=4 affinity=4 quota=2 mem=4GiB mem-limit=1GiB nofile=1024:524288
//	nr-open=1048576 file-max=100000 somaxconn=4096 port-range=32768-60999
//	tw-reuse=2 syn-backlog=512 nginx=1.22.1 configure=--with-http_v2_module,--with-threads
//	systemd=no
//
// Words are separated by spaces; facts not named stay unknown.
func ParseSpec(spec string) (*Facts, error) {
	f := &Facts{}
	const src = "given"
	for _, w := range strings.Fields(spec) {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return nil, fmt.Errorf("fact %q: want KEY=VALUE", w)
		}
		var err error
		atoi := func() int {
			n, e := strconv.Atoi(v)
			if e != nil {
				err = fmt.Errorf("fact %s: %q is not a number", k, v)
			}
			return n
		}
		atou := func() uint64 {
			n, e := strconv.ParseUint(v, 10, 64)
			if e != nil {
				err = fmt.Errorf("fact %s: %q is not a number", k, v)
			}
			return n
		}
		switch k {
		case "cpus":
			f.CPUOnline = known(atoi(), src)
		case "affinity":
			f.CPUAffinity = known(atoi(), src)
		case "quota":
			q, e := strconv.ParseFloat(v, 64)
			if e != nil {
				err = fmt.Errorf("fact quota: %q is not a number", v)
			}
			f.CPUQuota = known(q, src)
		case "mem":
			b, e := ParseBytes(v)
			err = e
			f.MemTotal = known(b, src)
		case "mem-limit":
			b, e := ParseBytes(v)
			err = e
			f.MemLimit = known(b, src)
		case "nofile":
			l, ok := parseLimit(v)
			if !ok {
				err = fmt.Errorf("fact nofile: %q: want N or SOFT:HARD", v)
			}
			f.NoFile = known(l, src)
		case "nr-open":
			f.NrOpen = known(atou(), src)
		case "file-max":
			f.FileMax = known(atou(), src)
		case "somaxconn":
			f.Somaxconn = known(atoi(), src)
		case "tw-reuse":
			f.TCPTwReuse = known(atoi(), src)
		case "syn-backlog":
			f.TCPMaxSynBack = known(atoi(), src)
		case "port-range":
			lo, hi, ok := strings.Cut(v, "-")
			a, e1 := strconv.Atoi(lo)
			b, e2 := strconv.Atoi(hi)
			if !ok || e1 != nil || e2 != nil || b < a {
				err = fmt.Errorf("fact port-range: %q: want LOW-HIGH", v)
			}
			f.PortRange = known(PortRange{a, b}, src)
		case "nginx":
			f.NginxVersion = known(v, src)
		case "systemd":
			switch v {
			case "yes", "true", "1":
				f.Systemd = known(true, src)
			case "no", "false", "0":
				f.Systemd = known(false, src)
			default:
				err = fmt.Errorf("fact systemd: %q: want yes or no", v)
			}
		case "openssl":
			f.NginxOpenSSL = known(v, src)
		case "configure":
			f.NginxConfigure = known(strings.Split(v, ","), src)
		default:
			return nil, fmt.Errorf("unknown fact %q", k)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}

// ParseBytes reads sizes such as 512MiB, 4GiB, 4G (binary units), 4GB
// (decimal, as disk and cloud vendors write them) or 1048576.
func ParseBytes(s string) (uint64, error) {
	units := []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || !(v >= 0) || v*float64(u.mult) >= 1<<63 { // NaN, Inf, or more than a host has
				return 0, fmt.Errorf("size %q: want a number with KiB, MiB, GiB, TiB (binary) or KB, MB, GB, TB (decimal)", s)
			}
			return uint64(v * float64(u.mult)), nil
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: want a number with KiB, MiB, GiB, TiB (binary) or KB, MB, GB, TB (decimal)", s)
	}
	return v, nil
}
