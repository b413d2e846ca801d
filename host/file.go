package host

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/internal/yamlstrict"

	"github.com/nginxtune/nginxtune/internal/boundedread"

	"go.yaml.in/yaml/v3"
)

// UnmarshalYAML reads a fact written in full ({value: 4, source: ...}) or as
// a bare value (4), which counts as given by the file.
func (f *Fact[T]) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		var aux struct {
			Value  *T     `yaml:"value"`
			Source string `yaml:"source"`
			Error  string `yaml:"error"`
		}
		if err := n.Decode(&aux); err != nil {
			return err
		}
		// A bare mapping for a struct value (nofile: {soft: 1, hard: 2}).
		if aux.Value == nil && aux.Source == "" && aux.Error == "" {
			var v T
			if err := n.Decode(&v); err != nil {
				return err
			}
			f.Value, f.Source = v, "given"
			return nil
		}
		if aux.Value != nil {
			f.Value = *aux.Value
			f.Source = aux.Source
			if f.Source == "" {
				f.Source = "given"
			}
		}
		f.Error = aux.Error
		return nil
	}
	var v T
	if err := n.Decode(&v); err != nil {
		return err
	}
	f.Value, f.Source = v, "given"
	return nil
}

// LoadFile reads facts saved by "nginxtune facts" (YAML or JSON) or written
// by hand. Unknown keys are errors. Each fact's source names the file.
func LoadFile(path string) (*Facts, error) {
	b, err := boundedread.File(path, maxFactsFile, "")
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, yamlstrict.DecodeError(path, err, untrusted.Clip)
	}
	f := &Facts{}
	if len(doc.Content) == 0 {
		return f, nil
	}
	if err := yamlstrict.NoDuplicateKeys(&doc, path, untrusted.Clip); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil {
		return nil, yamlstrict.DecodeError(path, err, untrusted.Clip)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f.each(func(_ string, src, _ *string) {
		if *src != "" {
			*src = path + ": " + clip(*src)
		}
	})
	return f, nil
}

// maxFactsFile bounds a facts file: what "nginxtune facts" writes is a
// couple of KiB.
const maxFactsFile = 1 << 20

// maxText bounds a fact's text (a source, a kernel or nginx version, one
// configure argument) as it is quoted in findings.
const maxText = 256

// clip makes a fact's text from a file safe to quote: at most maxText
// bytes, and no control character or line separator, which would end the
// comment gen quotes it in and start a directive of the file's choosing.
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if untrusted.Control(r) || r == 0x2028 || r == 0x2029 {
			return '?'
		}
		return r
	}, s)
	return untrusted.CutAt(s, maxText)
}

// check range-checks facts read from a file: a value no host can have is
// an error naming the fact, not a number rules compute with.
func (f *Facts) check() error {
	const maxInt = 1 << 31
	type bound struct {
		name     string
		known    bool
		v        float64
		min, max float64
	}
	for _, b := range []bound{
		{"cpu_online", f.CPUOnline.Known(), float64(f.CPUOnline.Value), 1, 1 << 16},
		{"cpu_affinity", f.CPUAffinity.Known(), float64(f.CPUAffinity.Value), 1, 1 << 16},
		{"cpu_quota", f.CPUQuota.Known(), f.CPUQuota.Value, 0, 1 << 16},
		{"mem_total", f.MemTotal.Known(), float64(f.MemTotal.Value), 1 << 20, 1 << 60},
		{"mem_limit", f.MemLimit.Known(), float64(f.MemLimit.Value), 0, 1 << 63},
		{"fs_file_max", f.FileMax.Known(), float64(f.FileMax.Value), 1, 1 << 63},
		{"fs_nr_open", f.NrOpen.Known(), float64(f.NrOpen.Value), 1, maxInt},
		{"net_core_somaxconn", f.Somaxconn.Known(), float64(f.Somaxconn.Value), 1, maxInt - 1},
		{"net_ipv4_tcp_tw_reuse", f.TCPTwReuse.Known(), float64(f.TCPTwReuse.Value), 0, 2},
		{"net_ipv4_tcp_max_syn_backlog", f.TCPMaxSynBack.Known(), float64(f.TCPMaxSynBack.Value), 1, maxInt - 1},
		{"nofile.soft", f.NoFile.Known(), float64(f.NoFile.Value.Soft), 1, float64(^uint64(0))}, // unlimited is 2^64-1
		{"nofile.hard", f.NoFile.Known(), float64(f.NoFile.Value.Hard), 1, float64(^uint64(0))},
		{"net_ipv4_ip_local_port_range.low", f.PortRange.Known(), float64(f.PortRange.Value.Low), 1, 65535},
		{"net_ipv4_ip_local_port_range.high", f.PortRange.Known(), float64(f.PortRange.Value.High), 1, 65535},
	} {
		if b.known && (b.v < b.min || b.v > b.max || b.v != b.v) {
			return fmt.Errorf("%s: %v is not a value a host can have (%v to %v)", b.name, b.v, b.min, b.max)
		}
	}
	if f.NoFile.Known() && f.NoFile.Value.Soft > f.NoFile.Value.Hard {
		return fmt.Errorf("nofile: soft limit %d above the hard limit %d", f.NoFile.Value.Soft, f.NoFile.Value.Hard)
	}
	if f.PortRange.Known() && f.PortRange.Value.Low > f.PortRange.Value.High {
		return fmt.Errorf("net_ipv4_ip_local_port_range: low %d above high %d", f.PortRange.Value.Low, f.PortRange.Value.High)
	}
	if len(f.NginxConfigure.Value) > 1000 {
		return fmt.Errorf("nginx_configure: %d arguments, more than nginx -V prints", len(f.NginxConfigure.Value))
	}
	f.Kernel.Value = clip(f.Kernel.Value)
	f.NginxVersion.Value = clip(f.NginxVersion.Value)
	f.NginxOpenSSL.Value = clip(f.NginxOpenSSL.Value)
	for i, a := range f.NginxConfigure.Value {
		f.NginxConfigure.Value[i] = clip(a)
	}
	for _, e := range []*string{&f.CPUOnline.Error, &f.CPUAffinity.Error, &f.CPUQuota.Error, &f.MemTotal.Error, &f.MemLimit.Error,
		&f.NoFile.Error, &f.FileMax.Error, &f.NrOpen.Error, &f.Somaxconn.Error, &f.PortRange.Error, &f.TCPTwReuse.Error,
		&f.TCPMaxSynBack.Error, &f.Kernel.Error, &f.NginxVersion.Error, &f.NginxConfigure.Error, &f.NginxOpenSSL.Error, &f.Systemd.Error} {
		*e = clip(*e)
	}
	return nil
}
