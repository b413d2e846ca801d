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

// Walk calls fn for every directive reachable from the roots, following
// includes in place. A file included from several places is visited once
// per place. Returning false from fn skips the directive's block (and, for
// include, the included files). The Context passed to fn is reused; copy
// what you keep.
func (t *Tree) Walk(fn func(d *Directive, c *Context) bool) {
	for _, r := range t.Roots {
		c := &Context{Names: append([]string(nil), r.Context...), Root: r}
		walk(r.Directives, c, fn)
	}
}

func walk(dirs []*Directive, c *Context, fn func(*Directive, *Context) bool) {
	for _, d := range dirs {
		if !fn(d, c) {
			continue
		}
		for _, inc := range d.Includes {
			walk(inc.Directives, c, fn)
		}
		if d.Block != nil && !IsDataBlock(d.Name) {
			c.Blocks = append(c.Blocks, d)
			c.Names = append(c.Names, d.Name)
			walk(d.Block, c, fn)
			c.Blocks = c.Blocks[:len(c.Blocks)-1]
			c.Names = c.Names[:len(c.Names)-1]
		}
	}
}

// Copy returns a snapshot of the context that stays valid after the walk.
func (c *Context) Copy() *Context {
	return &Context{
		Blocks: append([]*Directive(nil), c.Blocks...),
		Names:  append([]string(nil), c.Names...),
		Root:   c.Root,
	}
}
