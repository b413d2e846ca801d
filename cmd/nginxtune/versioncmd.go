package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/knowledge"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print nginxtune's version, commit, Go version and the nginx versions it knows",
		Long: `Print nginxtune's version and the commit it was built from, the Go version, and
the nginx versions and third-party modules whose source the directive table was
generated from (lint checks directives against those; see docs/directives.md).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w := c.OutOrStdout()
			fmt.Fprintf(w, "nginxtune %s\n", versionString())
			fmt.Fprintf(w, "go: %s\n", runtime.Version())
			fmt.Fprintf(w, "nginx versions in the directive table: %s\n", strings.Join(knowledge.CoreVersions(), ", "))
			fmt.Fprintf(w, "third-party modules in the directive table: %s\n", strings.Join(knowledge.Modules(), ", "))
			return nil
		},
	}
}
