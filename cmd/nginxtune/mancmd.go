package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nginxtune/nginxtune/internal/atomicfile"
)

// newManCmd writes the manual pages, one per command, from the commands'
// own help: what --help says and what man says cannot drift apart. Hidden:
// packaging runs it (make deb). It documents the tree it is part of, which
// newRoot builds whole for it.
func newManCmd() *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:    "man",
		Short:  "Write the manual pages (nginxtune.1, nginxtune-lint.1, ...) into a directory",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if dir == "" {
				return failf(ExitError, "--dir is required")
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return failf(ExitError, "%v", err)
			}
			root := c.Root()
			date := time.Now().UTC()
			if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
				if n, err := strconv.ParseInt(s, 10, 64); err == nil {
					date = time.Unix(n, 0).UTC()
				}
			}
			var pages []*cobra.Command
			var walk func(*cobra.Command)
			walk = func(cmd *cobra.Command) {
				if cmd.Hidden || cmd.Name() == "help" || cmd.Name() == "completion" && cmd != root {
					return
				}
				pages = append(pages, cmd)
				for _, sub := range cmd.Commands() {
					walk(sub)
				}
			}
			walk(root)
			for _, cmd := range pages {
				name := strings.ReplaceAll(cmd.CommandPath(), " ", "-")
				page := manPage(cmd, pages, date)
				err := atomicfile.Write(filepath.Join(dir, name+".1"), 0o644, func(w io.Writer) error {
					_, err := io.WriteString(w, page)
					return err
				})
				if err != nil {
					return failf(ExitError, "%v", err)
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "the directory to write the pages into")
	return c
}

// roff escapes text for a man page: backslashes, and a line that would
// start with a control character.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			b.WriteString(`\&`)
		}
		b.WriteString(l)
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func manPage(cmd *cobra.Command, pages []*cobra.Command, date time.Time) string {
	var b strings.Builder
	name := strings.ReplaceAll(cmd.CommandPath(), " ", "-")
	fmt.Fprintf(&b, ".TH %s 1 %q %q \"nginxtune manual\"\n", roff(strings.ToUpper(name)), date.Format("2006-01-02"), "nginxtune "+versionString())
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff(name), roff(cmd.Short))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.B %s\n%s\n", roff(cmd.CommandPath()), roff(strings.TrimSpace(strings.TrimPrefix(cmd.UseLine(), cmd.CommandPath()))))
	long := cmd.Long
	if long == "" {
		long = cmd.Short
	}
	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString(manText(long))
	var flags []*pflag.Flag
	cmd.NonInheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			flags = append(flags, f)
		}
	})
	if len(flags) > 0 {
		b.WriteString(".SH OPTIONS\n")
		for _, f := range flags {
			b.WriteString(".TP\n")
			if f.Shorthand != "" {
				fmt.Fprintf(&b, "\\fB\\-%s\\fR, ", roff(f.Shorthand))
			}
			fmt.Fprintf(&b, "\\fB\\-\\-%s\\fR", roff(f.Name))
			if vn, usage := pflag.UnquoteUsage(f); vn != "" {
				fmt.Fprintf(&b, " \\fI%s\\fR\n%s", roff(vn), roff(usage))
			} else {
				fmt.Fprintf(&b, "\n%s", roff(usage))
			}
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
				fmt.Fprintf(&b, " (default %s)", roff(f.DefValue))
			}
			b.WriteString("\n")
		}
	}
	if cmd.Example != "" {
		fmt.Fprintf(&b, ".SH EXAMPLES\n.nf\n%s\n.fi\n", roff(cmd.Example))
	}
	var see []string
	for _, p := range pages {
		if p != cmd {
			see = append(see, fmt.Sprintf("\\fB%s\\fR(1)", roff(strings.ReplaceAll(p.CommandPath(), " ", "-"))))
		}
	}
	fmt.Fprintf(&b, ".SH SEE ALSO\n%s\n.PP\nThe documentation in /usr/share/doc/nginxtune.\n", strings.Join(see, ", "))
	return b.String()
}

// manText turns help text into paragraphs: a blank line starts a new one,
// and indented lines (lists, tables, examples) are kept as they are.
func manText(s string) string {
	var b strings.Builder
	for _, para := range strings.Split(strings.TrimSpace(s), "\n\n") {
		lines := strings.Split(para, "\n")
		indented := false
		for _, l := range lines {
			if strings.HasPrefix(l, " ") {
				indented = true
			}
		}
		b.WriteString(".PP\n")
		if indented {
			fmt.Fprintf(&b, ".nf\n%s\n.fi\n", roff(para))
			continue
		}
		b.WriteString(roff(para) + "\n")
	}
	return b.String()
}
