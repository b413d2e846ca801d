package templates

import (
	"strconv"

	"github.com/nginxtune/nginxtune/host"
)

// WithOS (for tests that judge a generated tree on the host it prepares)
// returns the facts of the host once the generated OS half is
// installed: the sysctl.d settings applied and nginx.service started with
// LimitNOFILE from the drop-in.
func WithOS(f *host.Facts, pl Plan) *host.Facts {
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
