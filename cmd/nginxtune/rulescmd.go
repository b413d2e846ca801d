package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/rules"
)

func newRulesCmd() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "rules",
		Short: "List the rules",
		Long:  "List every rule with its default severity. --format markdown prints docs/rules.md.",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			switch format {
			case "text":
				w := tabwriter.NewWriter(c.OutOrStdout(), 2, 8, 2, ' ', 0)
				fmt.Fprintln(w, "RULE\tCATEGORY\tSEVERITY\tTITLE")
				for _, r := range rules.All {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.ID, r.Category, r.Severity, r.Title)
				}
				return w.Flush()
			case "markdown":
				_, err := fmt.Fprint(c.OutOrStdout(), rules.DocsMarkdown())
				return err
			}
			return failf(ExitError, "--format %q: want text or markdown", format)
		},
	}
	c.Flags().StringVarP(&format, "format", "f", "text", "text or markdown")
	return c
}

func newExplainCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "explain RULE",
		Short: "Explain a rule: why it matters, how to fix it, examples",
		Args:  cobra.ExactArgs(1),
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			var ids []string
			for _, r := range rules.All {
				if strings.HasPrefix(r.ID, toComplete) {
					ids = append(ids, r.ID)
				}
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			r := rules.ByID(args[0])
			if r == nil {
				return failf(ExitError, "%q is not a rule (see nginxtune rules)", args[0])
			}
			_, err := fmt.Fprint(c.OutOrStdout(), r.Explain())
			return err
		},
	}
}
