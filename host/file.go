package host

import (
	"bytes"
	"fmt"
	"os"

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
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f := &Facts{}
	if len(doc.Content) == 0 {
		return f, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	mark := func(src *string) {
		if *src != "" {
			*src = path + ": " + *src
		}
	}
	mark(&f.CPUOnline.Source)
	mark(&f.CPUAffinity.Source)
	mark(&f.CPUQuota.Source)
	mark(&f.MemTotal.Source)
	mark(&f.MemLimit.Source)
	mark(&f.NoFile.Source)
	mark(&f.FileMax.Source)
	mark(&f.NrOpen.Source)
	mark(&f.Somaxconn.Source)
	mark(&f.PortRange.Source)
	mark(&f.TCPTwReuse.Source)
	mark(&f.TCPMaxSynBack.Source)
	mark(&f.Kernel.Source)
	mark(&f.NginxVersion.Source)
	mark(&f.NginxConfigure.Source)
	return f, nil
}
