package main

import (
	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/diff"
)

type diffFlags struct {
	format   string
	requests string
	git      string
	hostname string
}

func newDiffCmd() *cobra.Command {
	var f diffFlags
	c := &cobra.Command{
		Use:   "diff OLD NEW | diff --git REV [PATH]",
		Short: "Show which requests a configuration change answers differently",
		Long: `Compare two configuration trees (directories or main files) by what they do to
traffic: the same requests are routed through both, as nginx routes them (see
"nginxtune route"), and every request whose answer changes is listed with the
old and the new answer — server and location with file:line, status, handler,
the URI sent upstream or the file served, the redirect's target — worst first.
Beside them, the directives in effect at each server and location reached that
change (headers, including one lost through add_header inheritance, body size,
timeouts, caching, access rules, TLS).

The requests are generated from both trees: every server name (wildcards and
regular expressions sampled from their syntax, upper case, a trailing dot, a
port), every location's pattern and the URIs on its edges, normalisation cases,
GET, HEAD and POST, http and https, an unknown name and no Host header; with
--requests FILE also those of the file (one URL a line, or an access log in the
combined format or the tree's own log_format). The count is said.

Where route is not certain of an answer (the disk, the client's address, a
module's variable), a change is listed as one that may happen, with what it
depends on, never guessed. A change that moves no answer (reformatting, a
renamed upstream, reordered prefix locations) prints "no change in behaviour".

--git REV [PATH] compares the working tree's PATH (default ".") with the same
path at revision REV; --git A..B compares two revisions. Revisions are read
with git's plumbing into a private temporary directory; nothing of the trees
runs.

Exit codes: 0 no change in behaviour; 1 answers or directives in effect change;
2 could not run (bad arguments, a configuration nginx would not load).`,
		Example: `  nginxtune diff fixtures/diff/regex-swallows/old fixtures/diff/regex-swallows/new
  nginxtune diff --git main fixtures/diff/hsts-lost/new --format markdown
  nginxtune diff fixtures/diff/proxy-slash/old/nginx.conf fixtures/diff/proxy-slash/new/nginx.conf --format json`,
		Args: cobra.RangeArgs(0, 2),
		RunE: func(c *cobra.Command, args []string) error { return runDiff(c, args, &f) },
	}
	fl := c.Flags()
	fl.StringVarP(&f.format, "format", "f", "text", "output format: text, json, markdown or github")
	fl.StringVar(&f.requests, "requests", "", "also ask the requests of `FILE`: one URL a line, or an access log")
	fl.StringVar(&f.git, "git", "", "compare with revision `REV` (the working tree's PATH against it), or A..B")
	fl.StringVar(&f.hostname, "hostname", "", "the host name of the machine nginx runs on, for server_name $hostname")
	return c
}

func runDiff(c *cobra.Command, args []string, f *diffFlags) error {
	res, err := diff.Run(diff.RunOptions{Args: args, Format: f.format, Requests: f.requests, Git: f.git, Hostname: f.hostname, Out: c.OutOrStdout()})
	if err != nil {
		return failf(ExitError, "%v", err)
	}
	if res.Changed() {
		return &exitError{code: ExitFindings}
	}
	return nil
}
