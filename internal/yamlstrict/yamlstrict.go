// Package yamlstrict holds the rule both of nginxtune's YAML inputs
// (.nginxtune.yaml and a facts file) follow beyond their own fields: a key
// named twice in a mapping, at any depth, is an error at its second line.
// YAML keeps the last value silently, so a setting or a fact written first
// would be dropped without a word.
package yamlstrict

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// NoDuplicateKeys checks every mapping below n.
func NoDuplicateKeys(n *yaml.Node, path string) error {
	if n.Kind == yaml.MappingNode {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if first, dup := seen[k.Value]; dup {
				return fmt.Errorf("%s:%d: %q is set twice (first at line %d); YAML would keep only the last", path, k.Line, k.Value, first)
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := NoDuplicateKeys(c, path); err != nil {
			return err
		}
	}
	return nil
}
