package main

import (
	"encoding/csv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// listFlag is a repeatable string flag, as pflag's StringSliceVar
// (split: each value is a comma-separated list, read as one CSV record) or
// StringArrayVar (each value taken whole), with the same types in --help.
// pflag's own values format their default with a CSV writer when the flag
// is defined, a 4 KiB buffer each: every command's flags are defined on
// every run, the pre-commit hook's too, and those buffers were a tenth of
// the memory a hook run touches.
type listFlag struct {
	p       *[]string
	split   bool
	changed bool
}

// listVar defines a list flag on fs; def is its value until the flag is
// given (the first value given replaces it, later ones are added).
func listVar(fs *pflag.FlagSet, p *[]string, name, short string, def []string, split bool, usage string) {
	*p = def
	fs.VarP(&listFlag{p: p, split: split}, name, short, usage)
}

func (v *listFlag) Set(s string) error {
	vals := []string{s}
	if v.split {
		var err error
		if vals, err = readList(s); err != nil {
			return err
		}
	}
	if !v.changed {
		*v.p = vals
		v.changed = true
	} else {
		*v.p = append(*v.p, vals...)
	}
	return nil
}

// readList reads a comma-separated value as pflag's StringSlice does (a CSV
// record): a value without quotes or line breaks is split at its commas.
func readList(s string) ([]string, error) {
	if s == "" {
		return []string{}, nil
	}
	if !strings.ContainsAny(s, "\"\r\n") {
		return strings.Split(s, ","), nil
	}
	return csv.NewReader(strings.NewReader(s)).Read()
}

func (v *listFlag) Type() string {
	if v.split {
		return "stringSlice"
	}
	return "stringArray"
}

// String is pflag's "[a,b]" for a list that has values (each quoted as CSV
// quotes it), and "" for an empty one: --help then shows no default, as it
// does for pflag's empty lists, which it recognises by their types.
func (v *listFlag) String() string {
	if v.p == nil || len(*v.p) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range *v.p {
		if i > 0 {
			b.WriteByte(',')
		}
		if !csvNeedsQuotes(s) {
			b.WriteString(s)
			continue
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(s, `"`, `""`))
		b.WriteByte('"')
	}
	b.WriteByte(']')
	return b.String()
}

// csvNeedsQuotes is when encoding/csv's writer quotes a field: a comma, a
// quote or a line break in it, a leading white space, or the field `\.`.
func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` || strings.ContainsAny(s, ",\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// The pflag.SliceValue methods, for shell completion.

func (v *listFlag) Append(s string) error {
	*v.p = append(*v.p, s)
	return nil
}

func (v *listFlag) Replace(vals []string) error {
	*v.p = append([]string(nil), vals...)
	return nil
}

func (v *listFlag) GetSlice() []string {
	return append([]string(nil), *v.p...)
}
