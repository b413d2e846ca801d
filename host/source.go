package host

import "sync"

// Source hands out the facts of one machine to the rules. Facts given whole
// (a --facts file, a test) are handed out as they are; facts of a live
// machine are read a group at a time (the CPUs; the memory; open-file
// limits; the listen backlog sysctls; the local port range; the kernel;
// nginx -V), the first time a rule asks for one of the group. A run that
// asks for nothing reads nothing: the pre-commit hook on a site file reads
// the sysctls its listen lines are checked against (and nginx -V, cached,
// for the version), not the twenty-odd files of every fact.
//
// Each group is read once (sync.Once), so the rules, which run in
// parallel, all see the same values; a fact read late is read from the same
// files a full Read would have read, so what the rules conclude does not
// depend on when they ask.
type Source struct {
	r    *Reader // nil when the facts were given whole
	f    Facts
	once [groups]sync.Once
	// mu is held while a group is read into f, so that Problems, which
	// reads every fact, never meets one half written (a fact not read yet
	// has no error and is not listed); groups are read in turn, so the
	// first nginx -V of a cold cache delays a sysctl read by its run
	mu sync.Mutex
}

// Given hands out facts known in advance.
func Given(f *Facts) *Source {
	if f == nil {
		return nil
	}
	return &Source{f: *f}
}

// Lazily reads the facts of the machine below r.Root as they are asked for.
func Lazily(r *Reader) *Source { return &Source{r: r} }

func (s *Source) get(g group) *Facts {
	if s.r != nil {
		s.once[g].Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.r.readGroup(g, &s.f)
		})
	}
	return &s.f
}

// CPUOnline is the number of online CPUs.
func (s *Source) CPUOnline() Fact[int] { return s.get(groupCPU).CPUOnline }

// UsableCPUs is Facts.UsableCPUs.
func (s *Source) UsableCPUs() int { return s.get(groupCPU).UsableCPUs() }

// CPUs returns the facts with the CPU group filled in, for messages that
// name where each number came from.
func (s *Source) CPUs() *Facts { return s.get(groupCPU) }

// Memory is Facts.Memory.
func (s *Source) Memory() uint64 { return s.get(groupMemory).Memory() }

// MemoryFacts returns the facts with the memory group filled in.
func (s *Source) MemoryFacts() *Facts { return s.get(groupMemory) }

// NoFile is the open-file limit nginx's master runs with.
func (s *Source) NoFile() Fact[Limit] { return s.get(groupFiles).NoFile }

// FileMax is fs.file-max.
func (s *Source) FileMax() Fact[uint64] { return s.get(groupFiles).FileMax }

// NrOpen is fs.nr_open.
func (s *Source) NrOpen() Fact[uint64] { return s.get(groupFiles).NrOpen }

// Systemd is whether systemd manages services here.
func (s *Source) Systemd() Fact[bool] { return s.get(groupFiles).Systemd }

// Somaxconn is net.core.somaxconn.
func (s *Source) Somaxconn() Fact[int] { return s.get(groupBacklog).Somaxconn }

// PortRange is net.ipv4.ip_local_port_range.
func (s *Source) PortRange() Fact[PortRange] { return s.get(groupPorts).PortRange }

// TCPTwReuse is net.ipv4.tcp_tw_reuse.
func (s *Source) TCPTwReuse() Fact[int] { return s.get(groupPorts).TCPTwReuse }

// NginxVersion is the version nginx -V printed.
func (s *Source) NginxVersion() Fact[string] { return s.get(groupNginx).NginxVersion }

// NginxConfigure is the configure arguments nginx -V printed.
func (s *Source) NginxConfigure() Fact[[]string] { return s.get(groupNginx).NginxConfigure }

// Problems lists the facts that could not be read, among those read so far
// (or all of them, when given).
func (s *Source) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Problems()
}
