// Command nginxtune lints nginx configuration trees against nginx's rules
// and the host they run on, and generates tuned configurations.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/nginxtune/nginxtune"
	_ "github.com/nginxtune/nginxtune/internal/startup" // the runtime set up for a command, first of the initialisation
	"github.com/nginxtune/nginxtune/internal/untrusted"

	"github.com/spf13/cobra"
)

// Exit codes, stated in --help.
const (
	ExitOK       = 0 // nothing at or above the failure threshold
	ExitFindings = 1 // findings at or above the failure threshold
	ExitError    = 2 // could not run: bad flag, unreadable path, broken config
	ExitInternal = 3 // a bug in nginxtune: the message says where; please report it
)

// version is set with -ldflags "-X main.version=..." by make (the
// VERSION file, with ~dev+COMMIT on an untagged commit); otherwise it is the
// VERSION file's.
var version = ""

// buildDetails adds the VCS revision and Go version to versionString; tests
// turn it off to get output that does not change with every commit.
var buildDetails = true

func versionString() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if !buildDetails {
		ok = false
	}
	if v == "" && ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	if v == "" {
		v = nginxtune.Version
	}
	if ok {
		var rev, dirty, date string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			case "vcs.time":
				date = s.Value
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			v += " (" + rev + dirty + " " + date + ")"
		}
		v += " " + info.GoVersion
	}
	return v
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func failf(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// commands are the subcommands, by name.
var commands = []struct {
	name string
	make func() *cobra.Command
}{
	{"parse", newParseCmd}, {"lint", newLintCmd}, {"gen", newGenCmd},
	{"diff", newDiffCmd},
	{"route", newRouteCmd}, {"fmt", newFmtCmd}, {"lsp", newLSPCmd}, {"rules", newRulesCmd}, {"version", newVersionCmd}, {"man", newManCmd}, {"explain", newExplainCmd}, {"facts", newFactsCmd},
}

// newRoot builds the command tree for args. When args start with a
// subcommand's name only that subcommand is built: its flags are all that
// run parses, and building the others' flag sets cost the pre-commit hook
// about 3 % of its run. Help, completion, a mistyped name and man (which
// documents every command) get them all.
func newRoot(stdin io.Reader, stdout, stderr io.Writer, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "nginxtune",
		Short: "Lint nginx configurations against nginx and the host, and generate tuned ones",
		Long: `nginxtune reads a real nginx configuration tree (following include) and reports
what nginx -t would refuse, security holes and lost speed at their file:line with
what to write instead (lint); generates tuned configurations sized to the host
(gen); shows which server and location answer a request (route); writes
configurations in one layout (fmt); and serves editors (lsp).

Exit codes:
  0  nothing found at or above the failure threshold
  1  findings at or above the failure threshold
  2  could not run: bad flag, unreadable path, broken configuration file, a tree past
     nginxtune's bounds (64 MiB, include amplification)
  3  internal error in nginxtune`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// cobra's "Did you mean this?" takes lines of its own: run says it
		// on the error's one line (didYouMean)
		DisableSuggestions:         true,
		SuggestionsMinimumDistance: 2,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: ExitError, err: fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
	})
	for _, c := range commands {
		if len(args) > 0 && args[0] == c.name && c.name != "man" {
			// the command named first is the one that runs: the others,
			// the completion commands and root's --version (the build
			// information read and formatted) are not built for it
			root.AddCommand(c.make())
			root.CompletionOptions.DisableDefaultCmd = true
			return root
		}
	}
	root.Version = versionString()
	for _, c := range commands {
		root.AddCommand(c.make())
	}
	registerFlagValues(root)
	return root
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		// a bug must not look like a broken configuration (exit 2) nor
		// spill a stack trace into a CI log: one line, exit 3
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "nginxtune: internal error: %v (please report it with the command that caused it)\n", untrusted.Escape(fmt.Sprint(r)))
			code = ExitInternal
		}
	}()
	root := newRoot(stdin, stdout, stderr, args)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	err = didYouMean(root, args, err)
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			// one line whatever the message quotes (a file name from the
			// tree, a settings key): its bytes cannot forge another line
			fmt.Fprintln(stderr, "nginxtune:", untrusted.Escape(ee.err.Error()))
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "nginxtune:", untrusted.Escape(err.Error()))
	return ExitError
}

// didYouMean adds to cobra's error for a mistyped command the commands it
// may mean, as cobra would on lines of their own.
func didYouMean(root *cobra.Command, args []string, err error) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") || !strings.HasPrefix(err.Error(), "unknown command ") {
		return err
	}
	if s := root.SuggestionsFor(args[0]); len(s) > 0 {
		last := len(s) - 1
		if last > 0 {
			s = []string{strings.Join(s[:last], ", "), s[last]}
		}
		return fmt.Errorf("%w (did you mean %s?)", err, strings.Join(s, " or "))
	}
	return err
}

func main() {
	os.Exit(profiled(func() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }))
}
