package diff

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// RunOptions are the command's arguments.
type RunOptions struct {
	// Args are OLD NEW, or with Git the optional PATH.
	Args     []string
	Format   string
	Requests string // a requests file, "" for none
	Git      string // REV or A..B
	Hostname string
	Out      io.Writer
}

// Run loads the trees the options name, compares them and writes the
// report. The error is one line (file:line where a file is at fault);
// nothing is written then.
func Run(o RunOptions) (*Report, error) {
	if !slices.Contains(Formats, o.Format) {
		return nil, fmt.Errorf("--format %q: want one of %s", o.Format, strings.Join(Formats, ", "))
	}
	var old, new *Tree
	var err error
	if o.Git != "" {
		if len(o.Args) > 1 {
			return nil, fmt.Errorf("--git takes at most one PATH, got %d arguments", len(o.Args))
		}
		path := "."
		if len(o.Args) == 1 {
			path = o.Args[0]
		}
		var cleanup func()
		old, new, cleanup, err = gitTrees(o.Git, path)
		if cleanup != nil {
			defer cleanup()
		}
	} else {
		if len(o.Args) != 2 {
			return nil, fmt.Errorf("want OLD and NEW (two trees), or --git REV [PATH]; got %d arguments", len(o.Args))
		}
		old, new, err = loadPair(o.Args[0], o.Args[1])
	}
	if err != nil {
		return nil, err
	}
	opt := Options{Hostname: o.Hostname}
	if o.Requests != "" {
		f, err := os.Open(o.Requests)
		if err != nil {
			return nil, fmt.Errorf("--requests: %v", err)
		}
		defer f.Close()
		if opt.Requests, err = ReadRequests(o.Requests, f, old, new); err != nil {
			return nil, err
		}
	}
	rep, err := CompareBounded(old, new, opt)
	if err != nil {
		return nil, err
	}
	if err := Write(o.Out, o.Format, rep); err != nil {
		return nil, fmt.Errorf("writing output: %v", err)
	}
	return rep, nil
}

func loadPair(oldPath, newPath string) (*Tree, *Tree, error) {
	old, err := Load(oldPath)
	if err != nil {
		return nil, nil, err
	}
	new, err := Load(newPath)
	if err != nil {
		return nil, nil, err
	}
	return old, new, nil
}
