package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/startup"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/lint"
	"github.com/nginxtune/nginxtune/lsp"
)

func newLSPCmd() *cobra.Command {
	var f lintFlags
	c := &cobra.Command{
		Use:   "lsp",
		Short: "Serve editors over the Language Server Protocol (standard input and output)",
		Long: `Run nginxtune as a language server for an editor, over standard input and
output (see docs/editors.md for Neovim, VS Code, Helix and Emacs).

Diagnostics: each open file is linted as part of the nginx.conf that includes it
(the nearest one above it, not above the workspace folder), with the unsaved
buffers of the other open files read in place of theirs, on open, change and
save; settings come from .nginxtune.yaml as for lint. Hover: what a directive
does in one line, its contexts, arguments, values, default (per version where
versions differ), module, the nginx versions that have it and its
documentation link; where a variable is set, or that nginx defines it; the
Why and Fix of a finding on the line. Completion: directives allowed at the
cursor for the nginx version linted for, each with its one-line summary,
on/off and the values of enumerations, variables of the tree and nginx's,
upstream names after proxy_pass, named locations after try_files and
error_page. Go to definition (include targets,
upstreams, variables, named locations, certificate files), references (of an
upstream or a variable, across the tree), an outline, quick fixes (the edits
lint --fix makes) and formatting (nginxtune fmt).

--nginx-version and --facts are lint's, for every file the server lints (the
VS Code extension passes its nginxtune.nginxVersion and nginxtune.facts
settings so).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			// a server runs for long: the runtime follows the CPU limits
			// again, as startup's setting of the processors stopped it
			_, set := os.LookupEnv("GOMAXPROCS")
			startup.FollowCPULimits(set)
			// a bad version or facts file stops the server at its start,
			// not at every file it lints
			if f.nginxVersion != "" {
				if _, err := knowledge.ParseVersion(f.nginxVersion); err != nil {
					return failf(ExitError, "--nginx-version: %v", err)
				}
			}
			if f.factsFile != "" {
				if _, err := host.LoadFile(f.factsFile); err != nil {
					return failf(ExitError, "--facts: %v", err)
				}
			}
			opt := lsp.Options{Log: c.ErrOrStderr(), Lint: lint.Options{NginxVersion: f.nginxVersion, FactsFile: f.factsFile}}
			if err := lsp.Serve(context.Background(), c.InOrStdin(), c.OutOrStdout(), opt); err != nil {
				return failf(ExitError, "lsp: %v", err)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.nginxVersion, "nginx-version", "", "nginx version to lint and complete for, e.g. 1.22.1 (default: from the config file)")
	fl.StringVar(&f.factsFile, "facts", "", "check against the host facts in FILE (saved with nginxtune facts)")
	return c
}
