package diff

import (
	"sort"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/textdiff"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/route"
)

// maxCauseLines bounds the lines a change cites.
const maxCauseLines = 8

// edits are the changed lines of each file, by its name in the tree, on
// one side.
type edits map[string][]int

// changedLines compares the files of the two trees by their names inside
// them: the lines the new tree drops, and those it adds.
func changedLines(old, new *Tree) (removed, added edits) {
	removed, added = edits{}, edits{}
	byName := func(t *Tree) map[string]*parser.File {
		m := map[string]*parser.File{}
		for _, f := range t.Tree.Files {
			m[t.name(f)] = f
		}
		return m
	}
	o, n := byName(old), byName(new)
	for name, of := range o {
		nf := n[name]
		if nf == nil {
			removed[name] = allLines(of)
			continue
		}
		if string(of.Src) == string(nf.Src) {
			continue
		}
		removed[name], added[name] = textdiff.Changed(string(of.Src), string(nf.Src))
	}
	for name, nf := range n {
		if o[name] == nil {
			added[name] = allLines(nf)
		}
	}
	return removed, added
}

func allLines(f *parser.File) []int {
	n := strings.Count(string(f.Src), "\n")
	if len(f.Src) > 0 && !strings.HasSuffix(string(f.Src), "\n") {
		n++
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// within are the changed lines inside a block.
func (e edits) within(t *Tree, d *parser.Directive) (string, []int) {
	if d == nil || d.File == nil {
		return "", nil
	}
	name := t.name(d.File)
	end, _ := d.File.Position(int(d.End))
	var out []int
	for _, l := range e[name] {
		if l >= int(d.Line) && l <= end {
			out = append(out, l)
		}
	}
	return name, out
}

// cause names the changed lines that make a request's answer differ: those
// inside the blocks that answer (the location, then the server), else
// every changed line outside any server (the http level, an upstream).
func (c *causes) cause(ro, rn *route.Result) []string {
	var out []string
	add := func(side string, t *Tree, e edits, d *parser.Directive) {
		if name, ls := e.within(t, d); len(ls) > 0 {
			out = append(out, side+" "+ranges(name, ls))
		}
	}
	for _, blocks := range [][2]*parser.Directive{{locDir(ro), locDir(rn)}, {srvDir(ro), srvDir(rn)}} {
		add("old", c.old, c.removed, blocks[0])
		add("new", c.new, c.added, blocks[1])
		if len(out) > 0 {
			return out
		}
	}
	for _, side := range []struct {
		name string
		e    edits
	}{{"old", c.removed}, {"new", c.added}} {
		var names []string
		for n := range side.e {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if len(side.e[n]) > 0 {
				out = append(out, side.name+" "+ranges(n, side.e[n]))
			}
		}
	}
	return out
}

type causes struct {
	old, new       *Tree
	removed, added edits
}

func locDir(r *route.Result) *parser.Directive {
	if r == nil || r.Location == nil {
		return nil
	}
	return r.Location.Dir
}

func srvDir(r *route.Result) *parser.Directive {
	if r == nil || r.Server == nil {
		return nil
	}
	return r.Server.Dir
}

// ranges writes lines as "file:3-5,9", at most maxCauseLines of them.
func ranges(name string, ls []int) string {
	var b strings.Builder
	b.WriteString(name + ":")
	shown := 0
	for i := 0; i < len(ls); {
		j := i
		for j+1 < len(ls) && ls[j+1] == ls[j]+1 {
			j++
		}
		if shown > 0 {
			b.WriteString(",")
		}
		b.WriteString(strconv.Itoa(ls[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ls[j]))
		}
		shown += j - i + 1
		i = j + 1
		if shown >= maxCauseLines && i < len(ls) {
			b.WriteString(",...")
			break
		}
	}
	return b.String()
}
