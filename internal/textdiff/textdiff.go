// Package textdiff prints unified diffs of small text files, for
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

// ops computes an edit script by longest common subsequence.
func ops(a, b []string) []op {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, op{' ', a[i]})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, op{'-', a[i]})
			i++
		default:
			out = append(out, op{'+', b[j]})
			j++
		}
	}
	return out
}

// Unified returns the diff from old to new with three lines of context, or
// "" when they are equal: a patch that git apply and patch take.
func Unified(oldName, newName, old, new string) string {
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
