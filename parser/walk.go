package parser

// Context is where a directive stands during a walk: the block directives
// around it (across include boundaries) and the names of the contexts.
type Context struct {
	// Blocks are the enclosing block directives, outermost first.
	Blocks []*Directive
	// Names is the context stack, e.g. ["main", "http", "server"]. For a
	// snippet root it starts with the inferred or declared context.
	Names []string
	// Root is the root file the walk started from.
	Root *File

	// claimed is set once a nested block has extended Blocks and Names
	// in place; its siblings then copy.
	claimed bool
}

// In reports the innermost context name.
func (c *Context) In() string { return c.Names[len(c.Names)-1] }

// Has reports whether name is anywhere in the context stack.
func (c *Context) Has(name string) bool {
	for _, n := range c.Names {
		if n == name {
			return true
		}
	}
	return false
}

// Enclosing returns the innermost enclosing block directive named name, or
// nil.
func (c *Context) Enclosing(name string) *Directive {
	for i := len(c.Blocks) - 1; i >= 0; i-- {
		if c.Blocks[i].Name == name {
			return c.Blocks[i]
		}
	}
	return nil
}

// Walk calls fn for every directive reachable from the roots (files whose
// includes a loader resolved), following includes in place, in the order
// nginx reads them. A file included from several places is visited once
// per place. Returning false from fn skips the directive's block (and, for
// include, the included files).
//
// The directives of one block share one Context, which stays valid after
// the walk: keep it, but do not modify it. The first block inside a context
// extends the context's slices in place (a chain of nested blocks shares one
// array) and its siblings copy, so a chain of 10,000 nested locations costs
// linear memory, not quadratic; a block with no block inside gets slices of
// its size.
func Walk(roots []*File, fn func(d *Directive, c *Context) bool) {
	var m walkMem
	for _, r := range roots {
		c := m.context()
		c.Names, c.Root = append([]string(nil), r.Context...), r
		m.walk(r.Directives, c, fn)
	}
}

// walkMem hands out a walk's contexts and their slices from slabs (a
// large tree's walk then makes a few hundred allocations, not three for
// every block). A piece has the capacity asked for, no more, so that
// extending a context's slices in place never reaches the next piece.
type walkMem struct {
	ctxs   slab[Context]
	blocks slab[*Directive]
	names  slab[string]
}

func (m *walkMem) context() *Context { return &m.ctxs.take(1)[0] }

func (m *walkMem) walk(dirs []*Directive, c *Context, fn func(*Directive, *Context) bool) {
	for _, d := range dirs {
		if !fn(d, c) {
			continue
		}
		for _, inc := range d.Includes() {
			m.walk(inc.Directives, c, fn)
		}
		if d.Block == nil || IsDataBlock(d.Name) {
			continue
		}
		var blocks []*Directive
		var names []string
		if !c.claimed && cap(c.Blocks) > len(c.Blocks) && cap(c.Names) > len(c.Names) {
			c.claimed = true
			blocks, names = append(c.Blocks, d), append(c.Names, d.Name)
		} else {
			n, k := len(c.Blocks)+1, len(c.Names)+1
			if holdsBlocks(d) {
				n, k = 2*n, 2*k
			}
			blocks = append(append(m.blocks.take(n)[:0], c.Blocks...), d)
			names = append(append(m.names.take(k)[:0], c.Names...), d.Name)
		}
		in := m.context()
		in.Blocks, in.Names, in.Root = blocks, names, c.Root
		m.walk(d.Block, in, fn)
	}
}

// holdsBlocks reports whether a block may hold blocks: one of its own, or
// an include (whose files may).
func holdsBlocks(d *Directive) bool {
	for _, x := range d.Block {
		if x.Block != nil || x.Name == "include" {
			return true
		}
	}
	return false
}

// Level returns the statements of one block level with each include
// replaced by the statements of the files it read, in the order nginx
// reads them. A level without such includes is returned as it is (its
// capacity clipped, so that an append by the caller copies); callers read
// it and never write to it.
func Level(dirs []*Directive) []*Directive {
	i := 0
	for i < len(dirs) && !ReadsFiles(dirs[i]) {
		i++
	}
	if i == len(dirs) {
		return dirs[:len(dirs):len(dirs)]
	}
	out := append([]*Directive(nil), dirs[:i]...)
	for _, d := range dirs[i:] {
		if ReadsFiles(d) {
			for _, f := range d.Includes() {
				out = append(out, Level(f.Directives)...)
			}
			continue
		}
		out = append(out, d)
	}
	return out
}

// ReadsFiles reports whether d is an include that read files, whose
// statements stand at d's level.
func ReadsFiles(d *Directive) bool { return d.Name == "include" && len(d.Includes()) > 0 }

// WalkFile visits every directive of one file, not following includes and
// not entering data blocks.
func WalkFile(dirs []*Directive, fn func(*Directive)) {
	for _, d := range dirs {
		fn(d)
		if d.Block != nil && !IsDataBlock(d.Name) {
			WalkFile(d.Block, fn)
		}
	}
}
