// Package textdiff prints unified diffs of text files, for
// "nginxtune gen --diff" and "nginxtune fmt --diff".
package textdiff

import (
	"fmt"
	"strings"
)

type op struct {
	kind byte // ' ', '-', '+'
	text string
}

// lines splits s into lines without their endings. A last line without
// one keeps a "\n" as its mark (no line of the text holds one): it differs
// from the same text with an ending, and Unified says so as diff does.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	l := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if !strings.HasSuffix(s, "\n") {
		l[len(l)-1] += "\n"
	}
	return l
}

// noEOL is what diff writes after a last line without a line ending.
const noEOL = "\n\\ No newline at end of file"

// first is a hunk's first line as the header writes it: the line before
// an empty range (so an empty file's is 0).
func first(line, n int) int {
	if n == 0 {
		return line - 1
	}
	return line
}

// ops computes a shortest edit script, deletions before insertions within
// each change, in space linear in the texts: Myers' algorithm searching for
// the middle snake from both ends (as GNU diff does), after the lines found
// in one text only, which cannot match, are set aside. A search that costs
// more than maxCost steps splits at its furthest point instead, so time
// stays near linear for texts with nothing in common; the script is then
// still correct, though maybe not the shortest. (A table of the longest
// common subsequence was n×m ints: 3.2 GB for two 20,000-line files.)
func ops(a, b []string) []op {
	ids := map[string]int32{}
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	ia, ib := intern(a), intern(b)
	inA := make([]bool, len(ids))
	inB := make([]bool, len(ids))
	for _, id := range ia {
		inA[id] = true
	}
	for _, id := range ib {
		inB[id] = true
	}
	// the lines each text shares with the other, and where they are
	del, ins := make([]bool, len(a)), make([]bool, len(b))
	keep := func(x []int32, other []bool, changed []bool) (kept []int32, at []int) {
		for i, id := range x {
			if other[id] {
				kept = append(kept, id)
				at = append(at, i)
			} else {
				changed[i] = true
			}
		}
		return kept, at
	}
	ka, atA := keep(ia, inB, del)
	kb, atB := keep(ib, inA, ins)
	d := &differ{a: ka, b: kb, del: make([]bool, len(ka)), ins: make([]bool, len(kb))}
	d.maxCost = max(256, isqrt(len(ka)+len(kb)))
	d.fd = make([]int, len(ka)+len(kb)+3)
	d.bd = make([]int, len(ka)+len(kb)+3)
	d.off = len(kb) + 1
	d.compare(0, len(ka), 0, len(kb))
	for i, c := range d.del {
		del[atA[i]] = c
	}
	for j, c := range d.ins {
		ins[atB[j]] = c
	}
	// of equal lines, the table kept the last of the old text's and the
	// first of the new one's
	budget := 8*(len(a)+len(b)) + 1024
	slideUp(ia, del, &budget)
	slideDown(ib, ins, &budget)
	out := make([]op, 0, max(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) && j < len(b) && !del[i] && !ins[j] {
			out = append(out, op{' ', a[i]})
			i, j = i+1, j+1
			continue
		}
		for ; i < len(a) && del[i]; i++ {
			out = append(out, op{'-', a[i]})
		}
		for ; j < len(b) && ins[j]; j++ {
			out = append(out, op{'+', b[j]})
		}
	}
	return out
}

// slideDown keeps each kept line at its first place: a kept line right
// after a run of changed ones trades places with the first line of the run
// that is the same ("a" then two blank lines, one of them added: the first
// blank line is the kept one). slideUp is the same the other way. The
// scans share a budget of a few times the texts' length, past which the
// script is left as it is (still correct, as short).
func slideDown(x []int32, changed []bool, budget *int) {
	for s := 0; s < len(x); {
		if !changed[s] {
			s++
			continue
		}
		e := s
		for e < len(x) && changed[e] {
			e++
		}
		if e == len(x) {
			return
		}
		k := s
		for k < e && x[k] != x[e] && *budget > 0 {
			k++
			*budget--
		}
		if k == e || *budget == 0 {
			s = e
			continue
		}
		changed[k], changed[e] = false, true
		s = k + 1
	}
}

func slideUp(x []int32, changed []bool, budget *int) {
	for e := len(x); e > 0; {
		if !changed[e-1] {
			e--
			continue
		}
		s := e
		for s > 0 && changed[s-1] {
			s--
		}
		if s == 0 {
			return
		}
		k := e - 1
		for k >= s && x[k] != x[s-1] && *budget > 0 {
			k--
			*budget--
		}
		if k < s || *budget == 0 {
			e = s
			continue
		}
		changed[k], changed[s-1] = false, true
		e = k
	}
}

func isqrt(n int) int {
	r := 1
	for r*r < n {
		r++
	}
	return r
}

// differ holds one comparison: the texts as line numbers, the lines found
// changed, and the furthest points of the forward and backward searches
// by diagonal (k = x-y, at index k+off).
type differ struct {
	a, b     []int32
	del, ins []bool
	fd, bd   []int
	off      int
	maxCost  int
}

// compare marks the changes between a[xoff:xlim] and b[yoff:ylim].
func (d *differ) compare(xoff, xlim, yoff, ylim int) {
	for {
		for xoff < xlim && yoff < ylim && d.a[xoff] == d.b[yoff] {
			xoff, yoff = xoff+1, yoff+1
		}
		for xoff < xlim && yoff < ylim && d.a[xlim-1] == d.b[ylim-1] {
			xlim, ylim = xlim-1, ylim-1
		}
		switch {
		case xoff == xlim:
			for y := yoff; y < ylim; y++ {
				d.ins[y] = true
			}
			return
		case yoff == ylim:
			for x := xoff; x < xlim; x++ {
				d.del[x] = true
			}
			return
		}
		x, y := d.split(xoff, xlim, yoff, ylim)
		if x == xoff && y == yoff || x == xlim && y == ylim {
			// no progress (not expected): all of it changed
			for i := xoff; i < xlim; i++ {
				d.del[i] = true
			}
			for j := yoff; j < ylim; j++ {
				d.ins[j] = true
			}
			return
		}
		// the smaller half by recursion, the larger by the loop: the
		// stack stays logarithmic
		if x-xoff+y-yoff < xlim-x+ylim-y {
			d.compare(xoff, x, yoff, y)
			xoff, yoff = x, y
		} else {
			d.compare(x, xlim, y, ylim)
			xlim, ylim = x, y
		}
	}
}

// split returns a point on a shortest path from (xoff, yoff) to (xlim,
// ylim), where the forward and backward searches meet (both ends differ,
// the common prefix and suffix being taken off first), or past maxCost
// steps the furthest point either search reached.
func (d *differ) split(xoff, xlim, yoff, ylim int) (int, int) {
	a, b, fd, bd, off := d.a, d.b, d.fd, d.bd, d.off
	dmin, dmax := xoff-ylim, xlim-yoff
	fmid, bmid := xoff-yoff, xlim-ylim
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fd[fmid+off], bd[bmid+off] = xoff, xlim
	const far = int(^uint(0) >> 1)
	for c := 1; ; c++ {
		if fmin > dmin {
			fmin--
			fd[fmin-1+off] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[fmax+1+off] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := fd[k-1+off], fd[k+1+off]
			x := hi
			if lo >= hi {
				x = lo + 1
			}
			y := x - k
			for x < xlim && y < ylim && a[x] == b[y] {
				x, y = x+1, y+1
			}
			fd[k+off] = x
			if odd && bmin <= k && k <= bmax && bd[k+off] <= x {
				return x, y
			}
		}
		if bmin > dmin {
			bmin--
			bd[bmin-1+off] = far
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[bmax+1+off] = far
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := bd[k-1+off], bd[k+1+off]
			x := hi - 1
			if lo < hi {
				x = lo
			}
			y := x - k
			for x > xoff && y > yoff && a[x-1] == b[y-1] {
				x, y = x-1, y-1
			}
			bd[k+off] = x
			if !odd && fmin <= k && k <= fmax && x <= fd[k+off] {
				return x, y
			}
		}
		if c < d.maxCost {
			continue
		}
		// too costly: the point either search took furthest
		fbest, fx := -1, 0
		for k := fmax; k >= fmin; k -= 2 {
			x := min(fd[k+off], xlim)
			y := x - k
			if y > ylim {
				x, y = ylim+k, ylim
			}
			if x+y > fbest {
				fbest, fx = x+y, x
			}
		}
		bbest, bx := far, 0
		for k := bmax; k >= bmin; k -= 2 {
			x := max(xoff, bd[k+off])
			y := x - k
			if y < yoff {
				x, y = yoff+k, yoff
			}
			if x+y < bbest {
				bbest, bx = x+y, x
			}
		}
		if xlim+ylim-bbest < fbest-(xoff+yoff) {
			return fx, fbest - fx
		}
		return bx, bbest - bx
	}
}

// Unified returns the diff from old to new with three lines of context, or
// "" when they are equal: a patch that git apply and patch take.
func Unified(oldName, newName, old, new string) string {
	return unifiedWith(ops, oldName, newName, old, new)
}

// unifiedWith is Unified by a given way to compute the script.
func unifiedWith(ops func(a, b []string) []op, oldName, newName, old, new string) string {
	if old == new {
		return ""
	}
	script := ops(lines(old), lines(new))
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
	const ctx = 3
	for start := 0; start < len(script); {
		// find the next change
		for start < len(script) && script[start].kind == ' ' {
			start++
		}
		if start == len(script) {
			break
		}
		lo := max(0, start-ctx)
		end := start
		for end < len(script) {
			if script[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(script) && script[run].kind == ' ' {
				run++
			}
			if run == len(script) || run-end > 2*ctx {
				break
			}
			end = run
		}
		hi := min(len(script), end+ctx)
		oldStart, newStart := 1, 1
		for _, o := range script[:lo] {
			if o.kind != '+' {
				oldStart++
			}
			if o.kind != '-' {
				newStart++
			}
		}
		oldLen, newLen := 0, 0
		for _, o := range script[lo:hi] {
			if o.kind != '+' {
				oldLen++
			}
			if o.kind != '-' {
				newLen++
			}
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", first(oldStart, oldLen), oldLen, first(newStart, newLen), newLen)
		for _, o := range script[lo:hi] {
			b.WriteByte(o.kind)
			if text, ok := strings.CutSuffix(o.text, "\n"); ok {
				b.WriteString(text + noEOL)
			} else {
				b.WriteString(o.text)
			}
			b.WriteByte('\n')
		}
		start = hi
	}
	return b.String()
}

// Changed returns the 1-based numbers of the lines of old the new text
// drops and of the lines of new the old text lacks: the lines of a change.
func Changed(old, new string) (removed, added []int) {
	if old == new {
		return nil, nil
	}
	o, n := 1, 1
	for _, x := range ops(lines(old), lines(new)) {
		switch x.kind {
		case '-':
			removed = append(removed, o)
			o++
		case '+':
			added = append(added, n)
			n++
		default:
			o++
			n++
		}
	}
	return removed, added
}
