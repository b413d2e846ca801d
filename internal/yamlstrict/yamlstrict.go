// Package yamlstrict holds the rule both of nginxtune's YAML inputs
// (.nginxtune.yaml and a facts file) follow beyond their own fields: a key
// named twice in a mapping, at any depth, is an error at its second line.
// YAML keeps the last value silently, so a setting or a fact written first
// would be dropped without a word.
package yamlstrict

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// NoDuplicateKeys checks every mapping below n; the key named is cut by
// clip (an explicit "? KEY" has no length limit).
func NoDuplicateKeys(n *yaml.Node, path string, clip func(string) string) error {
	if n.Kind == yaml.MappingNode {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if first, dup := seen[k.Value]; dup {
				return fmt.Errorf("%s:%d: %q is set twice (first at line %d); YAML would keep only the last", path, k.Line, clip(k.Value), first)
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := NoDuplicateKeys(c, path, clip); err != nil {
			return err
		}
	}
	return nil
}

// DecodeError makes an error of reading or decoding the file path one
// short line: yaml's first complaint, as path:LINE: and cut by clip, and how
// many more there are. yaml lists every key it does not know with its text,
// so a file that is not what it was given as (a password file as --facts)
// came back whole, a line of the error for each of its lines; and it quotes
// an unknown anchor's name whole.
func DecodeError(path string, err error, clip func(string) string) error {
	msg, more := strings.TrimPrefix(err.Error(), "yaml: "), ""
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
		if len(te.Errors) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(te.Errors)-1)
		}
	}
	where := path
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, m, ok := strings.Cut(rest, ": "); ok {
			where, msg = path+":"+n, m
		}
	}
	return fmt.Errorf("%s: %s%s", where, clip(msg), more)
}
