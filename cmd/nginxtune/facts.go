package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/report"
)

// sayProblems tells once which facts could not be read.
func sayProblems(w io.Writer, p []string) {
	if len(p) > 0 {
		fmt.Fprintf(w, "nginxtune: host facts not read (rules that need them skip): %s\n", untrusted.Escape(strings.Join(p, "; ")))
	}
}

func newFactsCmd() *cobra.Command {
	var format, root string
	c := &cobra.Command{
		Use:   "facts",
		Short: "Print the host facts nginxtune sizes and checks against",
		Long: `Print what nginxtune reads about this machine: online and usable CPUs (affinity,
cgroup quota), memory (total and cgroup limit), the open-file limit nginx gets (a
running master's, else nginx.service's LimitNOFILE and drop-ins, else systemd's
default), fs.file-max, fs.nr_open, somaxconn, the local port range, tcp_tw_reuse,
tcp_max_syn_backlog, and nginx -V's version and build options. Each fact says where
it was read from.

Save the output and give it to "nginxtune lint --facts FILE" or "nginxtune gen
--facts FILE" to check or size a configuration for that host from elsewhere (CI).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			f := host.ReadRoot(root)
			sayProblems(c.ErrOrStderr(), f.Problems())
			switch format {
			case "yaml":
				enc := yaml.NewEncoder(c.OutOrStdout())
				enc.SetIndent(2)
				if err := enc.Encode(f); err != nil {
					return failf(ExitError, "%v", err)
				}
				return enc.Close()
			case "json":
				return report.EncodeJSON(c.OutOrStdout(), f)
			}
			return failf(ExitError, "--format %q: want yaml or json", format)
		},
	}
	c.Flags().StringVarP(&format, "format", "f", "yaml", "yaml or json")
	c.Flags().StringVar(&root, "root", "/", "read /proc, /sys and /etc below this directory")
	return c
}
