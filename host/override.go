package host

import (
	"fmt"
	"strings"
)

// Override sets the numbers gen is given (--cpus, --memory, --nofile) over
// f, each fact's source naming the flag it came from. cpusSet says cpus
// was given, even as 0 (which is refused). An empty memory or nofile, and a
// cpus of 0 not given, leave f's own.
func (f *Facts) Override(cpus int, cpusSet bool, memory, nofile string) error {
	var spec []string
	if cpus < 0 || cpus > 65536 || (cpus == 0 && cpusSet) {
		return fmt.Errorf("--cpus %d: want 1 to 65536", cpus)
	}
	if cpus > 0 {
		spec = append(spec, fmt.Sprintf("cpus=%d", cpus))
	}
	if memory != "" {
		spec = append(spec, "mem="+memory)
	}
	if nofile != "" {
		spec = append(spec, "nofile="+nofile)
	}
	if len(spec) == 0 {
		return nil
	}
	over, err := ParseSpec(strings.Join(spec, " "))
	if err != nil {
		return err
	}
	if over.CPUOnline.Known() {
		f.CPUOnline, f.CPUAffinity, f.CPUQuota = over.CPUOnline, over.CPUOnline, Fact[float64]{}
		f.CPUOnline.Source, f.CPUAffinity.Source = "--cpus", "--cpus"
	}
	if over.MemTotal.Known() {
		f.MemTotal, f.MemLimit = over.MemTotal, Fact[uint64]{}
		f.MemTotal.Source = "--memory"
	}
	if over.NoFile.Known() {
		f.NoFile = over.NoFile
		f.NoFile.Source = "--nofile"
	}
	return nil
}
