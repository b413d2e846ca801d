package main

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// TestListFlagMatchesPflag holds listFlag to pflag's StringSlice and
// StringArray: the same values after the same sequence of flags, the same
// errors, the same text (but "" for an empty list), the same type names.
func TestListFlagMatchesPflag(t *testing.T) {
	values := []string{"", "a", "a,b", "a,,b", ",", " a", "a ", `"a,b",c`, `"x""y"`, `a"b`, "a\nb", "\"a\nb\"", "a\r\nb",
		`\.`, "é,ü", "\u3000a", "\ta", `"unterminated`, `""`, "a,b,"}
	defs := [][]string{nil, {"text"}, {"a,b", " c"}}
	var seqs [][]string
	for _, a := range values {
		seqs = append(seqs, []string{a})
		for _, b := range []string{"x", `"q,r"`, ""} {
			seqs = append(seqs, []string{a, b})
		}
	}
	seqs = append(seqs, nil)
	for _, split := range []bool{false, true} {
		for _, def := range defs {
			for _, seq := range seqs {
				theirs := pflag.NewFlagSet("t", pflag.ContinueOnError)
				var want []string
				if split {
					theirs.StringSliceVar(&want, "v", def, "")
				} else {
					theirs.StringArrayVar(&want, "v", def, "")
				}
				ours := pflag.NewFlagSet("o", pflag.ContinueOnError)
				var got []string
				listVar(ours, &got, "v", "", def, split, "")
				tf, of := theirs.Lookup("v"), ours.Lookup("v")
				if tf.Value.Type() != of.Value.Type() {
					t.Fatalf("type %q, pflag's %q", of.Value.Type(), tf.Value.Type())
				}
				if tf.DefValue != of.DefValue && !(tf.DefValue == "[]" && of.DefValue == "") {
					t.Errorf("split %v, default %q: DefValue %q, pflag's %q", split, def, of.DefValue, tf.DefValue)
				}
				for _, v := range seq {
					terr, oerr := tf.Value.Set(v), of.Value.Set(v)
					if (terr == nil) != (oerr == nil) {
						t.Errorf("split %v, default %q, %q: error %v, pflag's %v", split, def, seq, oerr, terr)
					}
				}
				if !slices.Equal(got, want) || (got == nil) != (want == nil) && len(got) > 0 {
					t.Errorf("split %v, default %q, %q: %q, pflag's %q", split, def, seq, got, want)
				}
				ts, os := tf.Value.String(), of.Value.String()
				if ts != os && !(ts == "[]" && os == "") {
					t.Errorf("split %v, default %q, %q: String %q, pflag's %q", split, def, seq, os, ts)
				}
				tg := tf.Value.(pflag.SliceValue).GetSlice()
				og := of.Value.(pflag.SliceValue).GetSlice()
				if !slices.Equal(tg, og) {
					t.Errorf("GetSlice %q, pflag's %q", og, tg)
				}
			}
		}
	}
}

// TestListFlagSliceValue: Append and Replace, as shell completion uses them.
func TestListFlagSliceValue(t *testing.T) {
	fs := pflag.NewFlagSet("o", pflag.ContinueOnError)
	var got []string
	listVar(fs, &got, "v", "", []string{"text"}, false, "")
	sv := fs.Lookup("v").Value.(pflag.SliceValue)
	sv.Append("json")
	if !slices.Equal(got, []string{"text", "json"}) {
		t.Fatalf("after Append: %q", got)
	}
	in := []string{"a", "b"}
	sv.Replace(in)
	in[0] = "changed"
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("after Replace: %q (must not share the caller's slice)", got)
	}
}
