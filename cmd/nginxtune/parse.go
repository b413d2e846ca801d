package main

import (
	"fmt"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/report"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/lint"
)

// loadFlags are the flags every command that reads a configuration shares.
type loadFlags struct {
	prefix string
	maps   []string
}

func (lf *loadFlags) register(c *cobra.Command) {
	c.Flags().StringVarP(&lf.prefix, "prefix", "p", "", "directory that relative include paths are resolved against (default: the directory of the main file)")
	listVar(c.Flags(), &lf.maps, "map", "", nil, false, "read files under an absolute directory from a local one, `FROM=TO` (e.g. /etc/nginx=./deploy/nginx); repeatable")
}

func (lf *loadFlags) load(c *cobra.Command, path string) (*loader.Tree, error) {
	// the live configuration is read as lint reads it: as nginx does,
	// including what its includes reach outside (Debian's modules-enabled
	// links to /usr/share/nginx/modules-available)
	opt := loader.Options{Prefix: lf.prefix, Stdin: c.InOrStdin(), Live: path != "-" && lint.IsLive(path)}
	for _, m := range lf.maps {
		pm, err := loader.ParsePathMap(m)
		if err != nil {
			return nil, failf(ExitError, "--map: %v", err)
		}
		opt.Maps = append(opt.Maps, pm)
	}
	t, err := loader.Load(path, opt)
	if err != nil {
		return nil, failf(ExitError, "%v", err)
	}
	return t, nil
}

// relPath shows a path relative to the working directory when it is below
// it (lint.RelPath).
func relPath(p string) string { return lint.RelPath(p) }

// relPathIn is relPath for a working directory read once (lint.RelPathIn).
func relPathIn(wd string) func(string) string { return lint.RelPathIn(wd) }

func newParseCmd() *cobra.Command {
	var lf loadFlags
	var format string
	c := &cobra.Command{
		Use:   "parse PATH",
		Short: "Print the configuration tree as JSON",
		Long: `Parse an nginx configuration and print its tree as JSON.

PATH is a main file (nginx.conf), a directory (its nginx.conf, or else every
*.conf below it), a file holding the output of "nginx -T", or "-" to read a
file or "nginx -T" output from standard input.

--format json prints every file with each directive's line, column and byte
range, comments, the context each root is read in, and the problems found.
--format crossplane prints the payload of "crossplane parse".

Syntax errors are printed to standard error as file:line:col: message and the
command exits 2.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			t, err := lf.load(c, args[0])
			if err != nil {
				return err
			}
			switch format {
			case "json":
				err = report.WriteTreeJSON(c.OutOrStdout(), t) // streamed, file by file
			case "crossplane":
				err = report.EncodeJSON(c.OutOrStdout(), report.Crossplane(t))
			default:
				return failf(ExitError, "--format %q: want json or crossplane", format)
			}
			if err != nil {
				return failf(ExitError, "writing output: %v", err)
			}
			code := ExitOK
			for _, d := range t.Diagnostics {
				fmt.Fprintf(c.ErrOrStderr(), "%s:%d:%d: %s: %s [%s]\n", untrusted.Escape(relPath(d.File)), d.Line, d.Col, d.Severity, untrusted.Escape(d.Message), d.Rule)
				if d.Severity == finding.Error {
					code = ExitError
				}
			}
			if code != ExitOK {
				return &exitError{code: code}
			}
			return nil
		},
	}
	lf.register(c)
	c.Flags().StringVarP(&format, "format", "f", "json", "output format: json or crossplane")
	return c
}
