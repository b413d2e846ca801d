package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/diff"
	"github.com/nginxtune/nginxtune/report"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
	"github.com/nginxtune/nginxtune/templates"
)

// formatValues are the output formats each command's --format takes.
var formatValues = map[string]func() []string{
	"lint":  report.Formats,
	"diff":  func() []string { return diff.Formats },
	"facts": func() []string { return []string{"yaml", "json"} },
	"parse": func() []string { return []string{"json", "crossplane"} },
	"route": func() []string { return []string{"text", "json"} },
	"rules": func() []string { return []string{"text", "markdown"} },
}

// flagValues are the values shell completion offers for the flags that
// take one of a list, whatever command has them; a list flag (--disable)
// completes its last comma-separated entry.
var flagValues = map[string]struct {
	values func() []string
	list   bool
}{
	"fail-on":     {values: func() []string { return []string{"error", "warning", "info", "none"} }},
	"color":       {values: func() []string { return []string{"auto", "always", "never"} }},
	"profile":     {values: templates.Profiles},
	"layout":      {values: templates.LayoutNames},
	"tls-profile": {values: func() []string { return []string{"intermediate", "modern"} }},
	"disable":     {values: ruleSelectors, list: true},
	"enable":      {values: ruleSelectors, list: true},
}

// ruleSelectors are what --enable and --disable take: rule ids and
// category:NAME.
func ruleSelectors() []string {
	var out []string
	for _, r := range rules.All {
		out = append(out, r.ID)
	}
	for _, c := range engine.Categories {
		out = append(out, "category:"+string(c))
	}
	return out
}

// registerFlagValues tells shell completion the values of every such flag
// of the command tree below root.
func registerFlagValues(root *cobra.Command) {
	for _, c := range root.Commands() {
		if f := c.Flags().Lookup("format"); f != nil {
			if values, ok := formatValues[c.Name()]; ok {
				c.RegisterFlagCompletionFunc("format", valuesFunc(values, false))
			}
		}
		for name, v := range flagValues {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, valuesFunc(v.values, v.list))
			}
		}
	}
}

func valuesFunc(values func() []string, list bool) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		done := ""
		if list {
			if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
				done, toComplete = toComplete[:i+1], toComplete[i+1:]
			}
		}
		var out []string
		for _, v := range values() {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, done+v)
			}
		}
		d := cobra.ShellCompDirectiveNoFileComp
		if list {
			d |= cobra.ShellCompDirectiveNoSpace
		}
		return out, d
	}
}
