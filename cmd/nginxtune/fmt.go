package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/nginxtune/nginxtune/internal/atomicfile"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/lint"
	"github.com/nginxtune/nginxtune/loader"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/format"
	"github.com/nginxtune/nginxtune/internal/textdiff"
	"github.com/nginxtune/nginxtune/parser"
)

type fmtFlags struct {
	load       loadFlags
	check      bool
	diff       bool
	indent     int
	tabs       bool
	align      bool
	configPath string
	noConfig   bool
	changed    bool
	force      bool
}

func newFmtCmd() *cobra.Command {
	var f fmtFlags
	c := &cobra.Command{
		Use:   "fmt PATH... | fmt -",
		Short: "Rewrite configuration files in one canonical layout",
		Long: `Rewrite nginx configuration files in one canonical layout: one statement per
line, blocks indented as the file already is (tabs or N spaces; 4 spaces when
it shows none), "{" on the statement's line and "}" on its own, at most two
blank lines in a row, comments kept where they are (with the code before them
on their line). Arguments are kept byte for byte (quotes, escapes, multi-line
strings, the spaces that align them). The bodies of map, geo, types,
split_clients, charset_map and *_by_lua_block blocks keep their lines as
written and move as a whole with their block (the lines of a multi-line
string, Lua's long strings and comments, not at all); entries written on the
block's "{" line are laid out one a line. A file already laid out so
(Debian's own) comes out unchanged.

PATH is a main file or a directory (its nginx.conf, or every *.conf below it):
every file it includes that lies inside the same directory is formatted. "-"
reads one file from standard input and writes it to standard output.

Every result is parsed again and compared with the original (statements,
arguments, nesting, comments): a layout that would change what nginx reads is
an internal error (exit 3) and nothing is written. A file nginx would refuse to
read (a syntax error, a missing ";", a block given to a directive that takes
none) is not formatted: each file is judged alone, each refused one is named
with its line, and the others are checked or formatted (exit 2). Files are replaced
atomically, keeping their links, owners and modes, and only after all of them
are staged; a read-only file is left as it is unless --force.

--changed formats the named files only, not the files they include, and
skips (with a notice) a named file that is not nginx configuration at all (a
syntax error, and no nginx directive before it): what the pre-commit hook
nginxtune-fmt runs, on the files of a commit.

--check writes nothing and exits 1 when a file would change, naming it;
--diff prints the change as a unified diff (and, like --check, writes nothing).

Layout settings come from the "fmt" key of .nginxtune.yaml
(fmt: {indent: 2, tabs: false, align: false}); --indent, --tabs and --align
override it. --indent or --tabs sets one step for every file instead of each
file's own. --align lines up the first arguments of consecutive one-line
statements of a block in a column (a blank line, a comment line, a block or a
statement over several lines ends a run).

Exit codes: 0 formatted (or already formatted); 1 with --check or --diff when
something would change; 2 bad arguments, unreadable, broken or read-only files;
3 an internal error; the worst of them when files differ.`,
		Example: `  nginxtune fmt /etc/nginx
  nginxtune fmt --check --diff fixtures/route/basic.conf
  nginxtune fmt - < site.conf > site.formatted.conf`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return runFmt(c, args, &f) },
	}
	f.load.register(c)
	fl := c.Flags()
	fl.BoolVar(&f.check, "check", false, "write nothing; exit 1 and name the files that would change")
	fl.BoolVar(&f.diff, "diff", false, "write nothing; print what would change as a unified diff (exit 1 when something would)")
	fl.IntVar(&f.indent, "indent", 0, "spaces per level, 1 to 8, for every file (default: the settings file's fmt.indent, else each file's own, 4 when it shows none)")
	fl.BoolVar(&f.tabs, "tabs", false, "indent every file with a tab per level")
	fl.BoolVar(&f.align, "align", false, "line up the first arguments of consecutive one-line statements of a block in a column")
	fl.BoolVar(&f.changed, "changed", false, "the PATHs are changed files (as pre-commit passes them): format those only, skip files that are not nginx configuration")
	fl.BoolVar(&f.force, "force", false, "also rewrite read-only files (keeping their mode)")
	fl.StringVar(&f.configPath, "config", "", "settings file (default: .nginxtune.yaml found from PATH upwards)")
	fl.BoolVar(&f.noConfig, "no-config", false, "do not read .nginxtune.yaml")
	return c
}

// fmtOptions merges the settings file and the flags.
func fmtOptions(c *cobra.Command, f *fmtFlags, first string) (format.Options, error) {
	var opt format.Options
	file, err := lint.SettingsFile(c.ErrOrStderr(), f.configPath, f.noConfig, first)
	if err != nil {
		return opt, failf(ExitError, "%v", err)
	}
	if file != nil {
		opt = file.FmtOptions()
	}
	if c.Flags().Changed("indent") {
		if f.indent < 1 || f.indent > 8 {
			return opt, failf(ExitError, "--indent %d: want 1 to 8", f.indent)
		}
		opt.Indent = f.indent
	}
	if c.Flags().Changed("tabs") {
		opt.Tabs = f.tabs
	}
	if c.Flags().Changed("align") {
		opt.Align = f.align
	}
	return opt, nil
}

func runFmt(c *cobra.Command, args []string, f *fmtFlags) error {
	opt, err := fmtOptions(c, f, args[0])
	if err != nil {
		return err
	}
	out := c.OutOrStdout()
	if len(args) == 1 && args[0] == "-" {
		return fmtStdin(c, f, opt)
	}
	for _, p := range args {
		if p == "-" {
			return failf(ExitError, `"-" reads standard input and cannot be combined with paths`)
		}
	}
	// each file is judged alone: one that cannot be formatted is said
	// once (exit 2), and the others are still checked or formatted
	var refused fmtRefusals
	batch := format.Batch{Options: opt, RootsOnly: f.changed, Foreign: fileLooksForeign, Name: relPath}
	for _, p := range args {
		t, err := f.load.load(c, p)
		if err != nil {
			refused.add(err)
			continue
		}
		if t.Dump {
			refused.add(failf(ExitError, "%s: nginx -T output; fmt formats the files themselves", relPath(p)))
			continue
		}
		batch.Add(p, t)
	}
	for _, p := range batch.Skipped {
		fmt.Fprintf(c.ErrOrStderr(), "nginxtune: skipped %s: not an nginx configuration (no nginx directive before the first error)\n", untrusted.Escape(relPath(p)))
	}
	for _, s := range batch.Outside {
		fmt.Fprintf(c.ErrOrStderr(), "nginxtune: %s\n", untrusted.Escape(s))
	}
	for _, err := range batch.Problems {
		refused.add(fmtProblem(err))
	}
	jobs := batch.Jobs
	if f.check || f.diff {
		for _, j := range jobs {
			if f.diff {
				a, b := j.Name, j.Name
				if !filepath.IsAbs(j.Name) {
					a, b = "a/"+j.Name, "b/"+j.Name
				}
				// the names escaped as one line (a tab would end them for
				// patch), the lines as a patch's
				io.WriteString(out, untrusted.EscapeLines(textdiff.Unified(untrusted.Escape(a), untrusted.Escape(b), string(j.File.Src), string(j.Data))))
			} else {
				fmt.Fprintf(out, "%s: would reformat\n", untrusted.Escape(j.Name))
			}
		}
		if len(jobs) > 0 {
			refused.worst = max(refused.worst, ExitFindings)
		}
		return refused.result(c.ErrOrStderr())
	}
	// a read-only file is left as it is unless --force, as lint --fix does
	kept := jobs[:0]
	for _, j := range jobs {
		if atomicfile.ReadOnly(j.File.Path) && !f.force {
			refused.add(failf(ExitError, "not formatted: %s is read-only (--force rewrites it, keeping its mode)", j.Name))
			continue
		}
		kept = append(kept, j)
	}
	// stage every file, then put them in place: a failure leaves every
	// file as it was (a file rewritten in place too: atomicfile.Commit)
	changes := make([]atomicfile.Change, len(kept))
	for i, j := range kept {
		changes[i] = atomicfile.Change{Path: j.File.Path, Name: j.Name, Key: atomicfile.Key{Dev: j.File.Dev, Ino: j.File.Ino}, Old: j.File.Src, New: j.Data}
	}
	err = atomicfile.WriteAll(changes, func(i int) {
		fmt.Fprintf(c.ErrOrStderr(), "formatted %s\n", untrusted.Escape(kept[i].Name))
	})
	if err != nil {
		refused.add(failf(ExitError, "%v", err))
	}
	return refused.result(c.ErrOrStderr())
}

// fileLooksForeign reports whether a main file that does not read whole is
// another program's: no nginx directive before its first error.
func fileLooksForeign(path string, f *parser.File) bool { return !lint.LooksLikeNginx(path, f) }

// fmtProblem gives a file format could not lay out its exit code: a result
// that would not read as the original is a bug of nginxtune (exit 3),
// anything else exit 2.
func fmtProblem(err error) error {
	var changed *format.ErrChanged
	if errors.As(err, &changed) {
		return failf(ExitInternal, "%v", err)
	}
	return failf(ExitError, "%v", err)
}

// fmtRefusals gathers what fmt could not do, one line each, and the worst
// exit code of the run.
type fmtRefusals struct {
	errs  []error
	worst int
}

func (r *fmtRefusals) add(err error) {
	r.errs = append(r.errs, err)
	code := ExitError
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	r.worst = max(r.worst, code)
}

// result says every refusal but the last on w and returns the last (main
// says it) with the worst exit code.
func (r *fmtRefusals) result(w io.Writer) error {
	if r.worst == ExitOK {
		return nil
	}
	var last error
	for i, err := range r.errs {
		if i == len(r.errs)-1 {
			last = err
			break
		}
		fmt.Fprintln(w, "nginxtune:", untrusted.Escape(err.Error()))
	}
	return &exitError{code: r.worst, err: last}
}

// fmtStdin formats one file read from standard input.
func fmtStdin(c *cobra.Command, f *fmtFlags, opt format.Options) error {
	src, err := io.ReadAll(io.LimitReader(c.InOrStdin(), loader.MaxTreeBytes+1))
	if err != nil {
		return failf(ExitError, "reading standard input: %v", err)
	}
	if len(src) > loader.MaxTreeBytes {
		return failf(ExitError, "standard input: %v", loader.ErrTooLarge)
	}
	file, d := parser.Parse("<stdin>", src)
	if d != nil {
		return failf(ExitError, "<stdin>:%d:%d: %s", d.Line, d.Col, d.Message)
	}
	data, err := format.Source(file, opt)
	if err != nil {
		return fmtProblem(format.Explain(err, relPath))
	}
	out := c.OutOrStdout()
	switch {
	case f.diff:
		io.WriteString(out, untrusted.EscapeLines(textdiff.Unified("a/<stdin>", "b/<stdin>", string(src), string(data))))
	case f.check:
		if !bytes.Equal(src, data) {
			fmt.Fprintln(out, "<stdin>: would reformat")
		}
	default:
		_, err = out.Write(data)
		if err != nil {
			return failf(ExitError, "writing output: %v", err)
		}
		return nil
	}
	if !bytes.Equal(src, data) {
		return &exitError{code: ExitFindings}
	}
	return nil
}
