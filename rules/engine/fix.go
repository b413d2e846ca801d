package engine

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/nginxtune/nginxtune/finding"
)

// Applying fixes: which of the findings' fixes go together, and what a file
// becomes. The command writes the result (atomically, keeping owners and
// links); the fixture harness compares it with a ".fixed" golden file.

// FixSet is the fixes chosen from one run's findings, by file.
type FixSet struct {
	Edits map[string][]finding.Edit // sorted by Start, not overlapping
	Fixes int                       // findings whose fix was taken
	// Outside names files a fix would have written that are not part of
	// the linted tree; those fixes are left out.
	Outside []string
}

// SelectFixes takes the fixes of diags in order, leaving out a fix whose
// edits overlap one already taken, one that creates what another already
// creates (the same Key), and one that would write a file inTree refuses.
// Linear in the edits of a file after sorting, so fixing a 20,000-server
// file is not quadratic.
func SelectFixes(diags []finding.Diagnostic, inTree func(file string) bool) FixSet {
	type span struct{ start, end int }
	taken := map[string][]span{} // sorted by start, not overlapping
	overlaps := func(e finding.Edit) bool {
		sp := taken[e.File]
		i := sort.Search(len(sp), func(i int) bool { return sp[i].end > e.Start || sp[i].end == e.Start && sp[i].start == sp[i].end })
		for ; i < len(sp) && sp[i].start <= e.End; i++ {
			s := sp[i]
			if e.Start < s.end && s.start < e.End || e.Start == s.start && (e.Start == e.End || s.start == s.end) {
				return true
			}
		}
		return false
	}
	take := func(e finding.Edit) {
		sp := taken[e.File]
		i := sort.Search(len(sp), func(i int) bool { return sp[i].start > e.Start })
		sp = append(sp, span{})
		copy(sp[i+1:], sp[i:])
		sp[i] = span{e.Start, e.End}
		taken[e.File] = sp
	}
	set := FixSet{Edits: map[string][]finding.Edit{}}
	keys, warned := map[string]bool{}, map[string]bool{}
	for _, d := range diags {
		if d.Fix == nil || (d.Fix.Key != "" && keys[d.Fix.Key]) {
			continue
		}
		ok := true
		for _, e := range d.Fix.Edits {
			if !inTree(e.File) {
				ok = false
				if !warned[e.File] {
					warned[e.File] = true
					set.Outside = append(set.Outside, e.File)
				}
			}
			if overlaps(e) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, e := range d.Fix.Edits {
			take(e)
			set.Edits[e.File] = append(set.Edits[e.File], e)
		}
		if d.Fix.Key != "" {
			keys[d.Fix.Key] = true
		}
		set.Fixes++
	}
	for _, edits := range set.Edits {
		sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	}
	return set
}

// ApplyEdits returns src with edits (sorted by Start, not overlapping)
// applied.
func ApplyEdits(src []byte, edits []finding.Edit) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(src) + 64*len(edits))
	at := 0
	for _, e := range edits {
		if e.End > len(src) || e.Start > e.End || e.Start < at {
			return nil, fmt.Errorf("overlapping or out-of-range edits")
		}
		out.Write(src[at:e.Start])
		out.WriteString(e.New)
		at = e.End
	}
	out.Write(src[at:])
	return out.Bytes(), nil
}
