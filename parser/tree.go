// Package parser reads one nginx configuration file into a positioned tree.
//
// The scanner in this package follows the tokenizing rules of nginx itself
// (src/core/ngx_conf_file.c, ngx_conf_read_token): words end at white space,
// ";" or "{", a "#" starts a comment only where a word could start, quotes
// must be followed by white space, ";", "{" or ")", and "\" escapes the next
// byte. Every statement knows its file, start line and column, and the byte
// range it covers, so rules can point at it and fixes can edit the original
// text without reformatting it.
//
// Package loader reads a whole configuration with it: it parses each file
// once and resolves include directives into the files they read
// (Directive.Includes). A file included from several places is shared;
// loader's Tree.Walk visits it in every place it is included, with the
// enclosing blocks of that place as its context.
package parser

import (
	"bytes"
	"encoding/binary"
	"sort"

	"github.com/nginxtune/nginxtune/finding"
)

// Arg is one parameter of a directive.
type Arg struct {
	Raw   string // the text as written, with quotes and escapes
	Value string // the value nginx sees: quotes removed, escapes applied
	Quote byte   // '"', '\'' or 0
	// Positions are 32-bit (a tree holds at most loader.MaxTreeBytes): an
	// argument takes 48 bytes instead of 64, a directive 144 instead of 176.
	Line   int32
	Col    int32
	Offset int32 // byte offset of Raw in the file
}

// Directive is one statement: a simple directive ending in ";" or a block.
type Directive struct {
	Name string
	Args []Arg

	File    *File
	Line    int32 // line of the first byte of the name
	Col     int32 // column (1-based, in characters) of the name
	EndLine int32 // line of the closing ";" or "}"
	Start   int32 // byte offset of the name
	End     int32 // byte offset just past the closing ";" or "}"
	// BlockOpen is the byte offset of "{" for block directives, else -1.
	BlockOpen int32

	// Block is non-nil for block directives (possibly empty).
	Block []*Directive

	// Parent is the enclosing block directive in the same file, nil at the
	// top level of a file.
	Parent *Directive

	// what few statements have (Includes, RawBody), kept apart so that a
	// directive takes 112 bytes, not 144
	rare *rareParts
}

type rareParts struct {
	includes []*File
	rawBody  string
	glued    bool
}

// Includes lists the files an include directive resolved to, in the order
// nginx reads them.
func (d *Directive) Includes() []*File {
	if d.rare == nil {
		return nil
	}
	return d.rare.includes
}

// RawBody holds the text between the braces of blocks whose body nginx does
// not parse as directives (*_by_lua_block).
func (d *Directive) RawBody() string {
	if d.rare == nil {
		return ""
	}
	return d.rare.rawBody
}

// Glued reports whether the statement swallowed the next one because its
// ";" is missing (the syntax finding that says so is the parser's).
func (d *Directive) Glued() bool { return d.rare != nil && d.rare.glued }

// SetIncludes records the files an include directive resolved to: the
// loader's, once it has read them (nil to cut the include).
func (d *Directive) SetIncludes(files []*File) {
	if d.rare == nil && files == nil {
		return
	}
	d.rareParts().includes = files
}

func (d *Directive) rareParts() *rareParts {
	if d.rare == nil {
		d.rare = &rareParts{}
	}
	return d.rare
}

// ArgValues returns the unquoted argument values.
func (d *Directive) ArgValues() []string {
	out := make([]string, len(d.Args))
	for i, a := range d.Args {
		out[i] = a.Value
	}
	return out
}

// Arg returns the i-th argument value, or "" when there is none.
func (d *Directive) Arg(i int) string {
	if i < len(d.Args) {
		return d.Args[i].Value
	}
	return ""
}

// Text returns the source text of the whole statement.
func (d *Directive) Text() string { return string(d.File.Src[d.Start:d.End]) }

// Find returns the directives named name directly inside the block.
func (d *Directive) Find(name string) []*Directive {
	var out []*Directive
	for _, c := range d.Block {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// Comment is a "#" comment and its position.
type Comment struct {
	Text     string // without the leading "#"
	Line     int
	Col      int
	Offset   int
	Trailing bool // code precedes it on the same line
}

// File is one parsed configuration file.
type File struct {
	// Path is the file's real absolute path: symbolic links resolved (an
	// absolute link target through the path maps), so a file reached by
	// two paths is one file (or the path named in an nginx -T dump).
	Path string
	// Via is the path nginx names it by when that differs from Path: a
	// link such as sites-enabled/default -> ../sites-available/default.
	Via string
	// Dev and Ino identify the file that was read (zero when it did not
	// come from the file system): --fix writes only to that same file.
	Dev, Ino   uint64
	Src        []byte
	Directives []*Directive
	Comments   []Comment
	// Context is the stack of contexts the file's top level is read in when
	// it is a root: ["main"] for a main file, or an inferred/declared stack
	// such as ["main", "http", "server"] for a snippet.
	Context []string
	// ContextSource says where Context came from: "root", "declared" (a
	// "# nginxtune: context=" comment) or "inferred".
	ContextSource string
	// Broken is set when a syntax error stopped parsing; Directives then
	// hold the statements completed before the error.
	Broken bool

	lineStarts []int32
	newline    string
	// what the scanner noted of the statements a walk meets, when it read
	// the file to its end (nil for a file built otherwise)
	walked *Walked
	// the last Position answered, to count columns on from it
	posLine, posOff, posCol int
}

// Walked is what the scanner noted, reading a file, of the statements
// WalkFile meets in it (those outside the bodies of data blocks), so that
// a loader learns it without walking them: how many there are, and the
// include directives among them.
type Walked struct {
	Directives int
	Includes   []Include // in the order of the walk
	// statements with an argument on a later line than the word before
	// it (glued statements are among them), and the data blocks, in the
	// order of the walk
	multiLine, data []*Directive
}

// Include is an include directive and its place in a walk of its file (1
// for the first directive met).
type Include struct {
	D  *Directive
	At int
}

// Walked returns what the scanner noted of the statements of a file it
// read to its end; nil for a file with a syntax error, or built otherwise
// than by Parse (walk it).
func (f *File) Walked() *Walked { return f.walked }

// Newline returns the line ending the file uses: "\r\n" when it has one,
// else "\n". The parser records it; for a file built otherwise it is
// worked out on each call, never stored, so that rules running in parallel
// may ask.
func (f *File) Newline() string {
	if f.newline != "" {
		return f.newline
	}
	return newlineOf(f.Src)
}

func newlineOf(src []byte) string {
	if bytes.Contains(src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// Position converts a byte offset into a 1-based line and column.
func (f *File) Position(off int) (line, col int) {
	if f.lineStarts == nil {
		f.lineStarts = lineStarts(f.Src)
	}
	lo, hi := 0, len(f.lineStarts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if int(f.lineStarts[mid]) <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	start := int(f.lineStarts[lo])
	if start == 0 && off >= 3 && len(f.Src) >= 3 && f.Src[0] == 0xEF && f.Src[1] == 0xBB && f.Src[2] == 0xBF {
		start = 3 // editors do not count a byte order mark as a column
	}
	end := min(off, len(f.Src))
	// the scanner asks in increasing order: count on from the last answer
	// on the same line, so that a long line costs linear time, not
	// quadratic
	if f.posLine == lo+1 && f.posOff >= start && f.posOff <= end {
		f.posCol += columnOf(f.Src[f.posOff:end])
	} else {
		f.posCol = columnOf(f.Src[start:end])
	}
	f.posLine, f.posOff = lo+1, end
	return lo + 1, f.posCol + 1
}

// SrcText returns the source between two byte offsets, clamped to the file.
func (f *File) SrcText(start, end int) string {
	start, end = max(0, min(start, len(f.Src))), max(0, min(end, len(f.Src)))
	if start > end {
		return ""
	}
	return string(f.Src[start:end])
}

// lineStarts returns the offset of each line's first byte, sized exactly.
func lineStarts(src []byte) []int32 {
	starts := make([]int32, 1, bytes.Count(src, []byte{'\n'})+1)
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, int32(i+1))
		}
	}
	return starts
}

// columnOf counts characters, so a multi-byte UTF-8 sequence is one column.
func columnOf(b []byte) int {
	n := 0
	// eight bytes at a time while they are ASCII (one column each)
	for len(b) >= 8 && binary.LittleEndian.Uint64(b)&0x8080808080808080 == 0 {
		n += 8
		b = b[8:]
	}
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// Syntax is the kind of the findings about a file's text: an unclosed
// block or quote, a missing ";", a block where nginx reads words. A problem
// found while reading is a finding.Diagnostic, the one type of a finding:
// its Rule is its kind (Syntax, or one of package loader's, the id of the
// rule that reports it), and its EndLine the line nginx -t names for the
// same error where that differs from Line (nginx reports an unclosed quote
// or block at the end of the file; we point at where it was opened), else 0.
const Syntax = "syntax"

// SortDiagnostics orders diagnostics by file, then by place in the file.
func SortDiagnostics(ds []finding.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].File != ds[j].File {
			return ds[i].File < ds[j].File
		}
		return ds[i].Offset < ds[j].Offset
	})
}
