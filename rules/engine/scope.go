package engine

import (
	"slices"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// Helpers that model how nginx applies directives: a directive set in http
// or server reaches every block below unless the block sets it again, and
// array-like directives (proxy_set_header, add_header, ...) are replaced as
// a whole by any occurrence in an inner block.

// smallLevel is the size up to which a block level is searched directly:
// a map per level costs more to build than a few string comparisons.
const smallLevel = 16

// levelIndex caches, per block level, its statements by name: the http
// level of a large tree is looked up once per server and location. Levels
// of at most smallLevel statements without includes (most servers and
// locations) are searched directly and not cached.
type levelIndex struct {
	m map[*parser.Directive]map[string][]*parser.Directive
}

func (ix *levelIndex) find(dirs []*parser.Directive, name string) []*parser.Directive {
	if len(dirs) == 0 {
		return nil
	}
	if ix == nil {
		return FindIn(dirs, name)
	}
	if len(dirs) <= smallLevel {
		if out, ok := findFlat(dirs, name); ok {
			return out
		}
	}
	if ix.m == nil {
		ix.m = map[*parser.Directive]map[string][]*parser.Directive{}
	}
	key := dirs[0] // a statement belongs to one block level
	byName, ok := ix.m[key]
	if !ok {
		byName = map[string][]*parser.Directive{}
		for _, d := range parser.Level(dirs) {
			byName[d.Name] = append(byName[d.Name], d)
		}
		ix.m[key] = byName
	}
	return byName[name]
}

// Find returns the directives of one block level with the name, includes
// read (Level), from an index kept per worker of a run.
func (p *Pass) Find(dirs []*parser.Directive, name string) []*parser.Directive {
	if p.index == nil {
		p.index = &levelIndex{}
	}
	return p.index.find(dirs, name)
}

// findFlat returns the directives named name at a level, and false when
// the level has an include that read files (the caller then expands it).
func findFlat(dirs []*parser.Directive, name string) ([]*parser.Directive, bool) {
	// the matches as a piece of dirs while they stand together (one, or
	// a run of lines: most levels), copied only when another statement
	// stands between two of them; callers read it and never write to it
	var out []*parser.Directive
	from, to := -1, -1
	for i, d := range dirs {
		if parser.ReadsFiles(d) {
			return nil, false
		}
		if d.Name != name {
			continue
		}
		switch {
		case out != nil:
			out = append(out, d)
		case from < 0:
			from, to = i, i+1
		case to == i:
			to++
		default:
			out = append(append(make([]*parser.Directive, 0, to-from+2), dirs[from:to]...), d)
		}
	}
	if out == nil && from >= 0 {
		return dirs[from:to:to], true
	}
	return out, true
}

// FindIn returns the directives named name at one block level.
func FindIn(dirs []*parser.Directive, name string) []*parser.Directive {
	var out []*parser.Directive
	for _, d := range parser.Level(dirs) {
		if d.Name == name {
			out = append(out, d)
		}
	}
	return out
}

// Setting is the value of a directive in effect somewhere.
type Setting struct {
	// Dirs are the occurrences at the innermost level that sets the
	// directive (one for plain directives; all of them for array-like ones).
	Dirs []*parser.Directive
	// Level is the block that holds them; nil for the top of the root file.
	Level *parser.Directive
	// Complete is false when nothing was found but the root is a snippet,
	// so an enclosing file nginxtune has not seen may set it.
	Complete bool
}

// Found reports whether the directive is set anywhere in scope.
func (s Setting) Found() bool { return len(s.Dirs) > 0 }

// Last returns the occurrence nginx uses for a plain directive.
func (s Setting) Last() *parser.Directive {
	if len(s.Dirs) == 0 {
		return nil
	}
	return s.Dirs[len(s.Dirs)-1]
}

// Effective returns the setting of name that applies inside the innermost
// block of blocks (which may be empty: the top of the root file).
func (p *Pass) Effective(blocks []*parser.Directive, root *parser.File, name string) Setting {
	return p.effective(blocks, nil, root, name)
}

// effective is Effective inside last (when not nil) within blocks: the
// chain is not copied to add last to it.
func (p *Pass) effective(blocks []*parser.Directive, last *parser.Directive, root *parser.File, name string) Setting {
	// the levels: the top of the root file (when there is one), then
	// blocks, then last
	top := 0
	if root != nil {
		top = 1
	}
	n := top + len(blocks)
	if last != nil {
		n++
	}
	level := func(i int) *parser.Directive {
		if i -= top; i < len(blocks) {
			return blocks[i]
		}
		return last
	}
	ds, i := parser.InEffect(n, name, func(i int) []*parser.Directive {
		if i < top {
			return p.index.find(root.Directives, name)
		}
		return p.index.find(level(i).Block, name)
	})
	if i >= top {
		return Setting{Dirs: ds, Level: level(i), Complete: true}
	} else if i >= 0 {
		return Setting{Dirs: ds, Complete: true}
	}
	complete := root == nil || root.ContextSource == "root"
	// an include nginxtune did not read (outside the tree, missing from a
	// copy) at any level in scope may set it, where it may stand: no claim
	// that it is unset
	if complete && p.Tree != nil && p.Tree.HasUnread() {
		if last != nil {
			blocks = append(append([]*parser.Directive(nil), blocks...), last)
		}
		names := LevelNames(root, blocks)
		for i := len(blocks) - 1; i >= 0 && complete; i-- {
			complete = !p.UnreadMayHold(blocks[i].Block, names[:len(names)-len(blocks)+i+1], name)
		}
		if complete && root != nil {
			complete = !p.UnreadMayHold(root.Directives, names[:len(names)-len(blocks)], name)
		}
	}
	return Setting{Complete: complete}
}

// LevelNames is the context stack of the innermost of blocks: the root's
// context (main for a whole nginx.conf), then the blocks' names.
func LevelNames(root *parser.File, blocks []*parser.Directive) []string {
	names := []string{parser.CtxMain}
	if root != nil && len(root.Context) > 0 {
		names = root.Context
	}
	out := make([]string, 0, len(names)+len(blocks))
	out = append(out, names...)
	for _, b := range blocks {
		out = append(out, b.Name)
	}
	return out
}

// UnreadInclude reports whether a block level holds an include that left
// something unread (a file outside the tree or missing from a copy; not a
// pattern that matched nothing, which nginx reads as nothing too).
func (p *Pass) UnreadInclude(dirs []*parser.Directive) bool {
	if p.Tree == nil || !p.Tree.HasUnread() {
		return false
	}
	for _, inc := range p.index.find(dirs, "include") {
		if p.Tree.NotRead(inc) {
			return true
		}
	}
	return false
}

// UnreadMayHold reports whether an include the level left unread may set
// one of the directives: only where nginx accepts them. What an include of
// the main context holds (Debian's modules-enabled/*.conf, RHEL's
// /usr/share/nginx/modules/*.conf: load_module lines) is main-context
// text, which cannot set autoindex, allow or proxy_http_version; a second
// http block there is refused as a duplicate. names is the level's context
// stack; an unknown directive or a block nginxtune cannot place may be set
// anywhere.
func (p *Pass) UnreadMayHold(dirs []*parser.Directive, names []string, directives ...string) bool {
	if !p.UnreadInclude(dirs) {
		return false
	}
	key := knowledge.ContextKey(names)
	if key == "" {
		return true
	}
	for _, name := range directives {
		if ctxs, ok := knowledge.PlusContexts(name); ok {
			if slices.Contains(ctxs, key) {
				return true
			}
			continue
		}
		ds := knowledge.Lookup(name)
		if len(ds) == 0 {
			return true
		}
		for _, d := range ds {
			if d.Allows(key) {
				return true
			}
		}
	}
	return false
}

// EffectiveIn is Effective for a context captured during a walk, including
// the block of d itself when d is a block directive.
func (p *Pass) EffectiveIn(c *parser.Context, d *parser.Directive, name string) Setting {
	if d != nil && d.Block != nil {
		return p.effective(c.Blocks, d, c.Root, name)
	}
	return p.effective(c.Blocks, nil, c.Root, name)
}

// locations returns the location blocks of a server, nested ones included,
// through includes.
func locations(dirs []*parser.Directive) []*parser.Directive {
	return appendLocations(nil, dirs)
}

// appendLocations appends to one list: a list per level, copied into the
// level above, made nesting n deep cost n² (137 MB for 4,000 nested locations).
func appendLocations(out, dirs []*parser.Directive) []*parser.Directive {
	for _, d := range parser.Level(dirs) {
		if d.Name == "location" && d.Block != nil {
			out = append(out, d)
			out = appendLocations(out, d.Block)
		}
	}
	return out
}

// hasHandler reports whether a block level produces responses itself.
func hasHandler(dirs []*parser.Directive) bool {
	for _, d := range parser.Level(dirs) {
		if knowledge.Responds(d.Name) {
			return true
		}
	}
	return false
}

// ServesFiles reports whether a server block answers some requests from
// files on disk: it has a location (or, without locations, its own level)
// with no handler, and no server-level return short-circuits everything.
func ServesFiles(server *parser.Directive) bool {
	for _, d := range parser.Level(server.Block) {
		if d.Name == "return" {
			return false
		}
	}
	locs := locations(server.Block)
	if len(locs) == 0 {
		return true
	}
	for _, l := range locs {
		if !hasHandler(l.Block) && !hasLocation(l.Block) {
			return true
		}
	}
	return false
}

// hasLocation reports whether a block level holds a location block.
func hasLocation(dirs []*parser.Directive) bool {
	for _, d := range parser.Level(dirs) {
		if d.Name == "location" && d.Block != nil {
			return true
		}
	}
	return false
}

// HTTPServers calls fn for every server block of the http context.
func (p *Pass) HTTPServers(fn func(s *parser.Directive, c *parser.Context)) {
	for _, v := range p.httpServers() {
		fn(v.D, v.C)
	}
}

// httpServersKey keys the run's list of http server blocks (Shared).
type httpServersKey struct{}

// httpServers are the server blocks of the http context, in walk order:
// made once per run for the rules that go through them.
func (p *Pass) httpServers() []Visit {
	return p.Shared(httpServersKey{}, func() any {
		var out []Visit
		p.Each(func(d *parser.Directive, c *parser.Context) {
			if d.Block != nil && c.In() == parser.CtxHTTP {
				out = append(out, Visit{d, c})
			}
		}, "server")
		return out
	}).([]Visit)
}

// InStream reports whether the walk is inside a stream block.
func InStream(c *parser.Context) bool { return c.Has(parser.CtxStream) }

// ContextKey names the context a directive stands in, as the table's type
// flags do (knowledge.ContextKey of the context's stack); "" inside blocks
// nginxtune cannot place (an unknown module's).
func ContextKey(c *parser.Context) string { return knowledge.ContextKey(c.Names) }

// WalkDirs visits every directive of a list and its blocks, within one file.
func WalkDirs(dirs []*parser.Directive, fn func(*parser.Directive)) {
	for _, d := range dirs {
		fn(d)
		if d.Block != nil {
			WalkDirs(d.Block, fn)
		}
	}
}
