package knowledge

// How nginx reads the variables of a directive's argument: the script
// compiler of nginx 1.22.1, ngx_http_script_compile (src/http/ngx_http_script.c
// lines 460-609; src/stream/ngx_stream_script.c reads them the same way), which
// every value that holds a "$" goes through (set, return, proxy_pass,
// add_header, map values, complex values...).

// VarKind is how a variable is written.
type VarKind uint8

const (
	// Named is "$name": the longest run of letters, digits and "_" after
	// the "$" (lines 516-539), so "$0" and "$0x" are the variables "0" and
	// "0x", which nginx does not define ("unknown variable" at start-up).
	Named VarKind = iota + 1
	// Braced is "${name}": the same characters, closed by "}" (lines
	// 507-528), so that a name can be followed by a letter ("${a}b").
	Braced
	// Capture is "$1" to "$9": one digit of a regular expression's
	// numbered captures (lines 480-505); "$10" is "$1" and then "0".
	Capture
)

// VarRef is one variable an argument uses.
type VarRef struct {
	Name       string  // without "$" and braces; "1" to "9" for a Capture
	Start, End int     // byte range of "$name", "${name}" or "$1" in the argument
	Kind       VarKind // how it is written
}

// VarRefs lists the variables an argument uses, in order, as nginx's
// script compiler reads them. A "$" nginx refuses ("invalid variable
// name": at the end, before a character that cannot start a name, "${}";
// "the closing bracket ... is missing": "${a", "${a-b}") yields nothing,
// and reading goes on after it (scanScript has what nginx would say).
func VarRefs(arg string) []VarRef {
	var out []VarRef
	scanScript(arg, func(r VarRef, bad string) {
		if bad == "" {
			out = append(out, r)
		}
	})
	return out
}

// scanScript calls fn for every "$" of v: the variable it starts, or the
// error nginx reports for it (then the VarRef is zero and not passed on).
func scanScript(v string, fn func(VarRef, string)) {
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			continue
		}
		j := i + 1
		switch {
		case j == len(v):
			fn(VarRef{}, `invalid variable name`) // line 476-477
			continue
		case v[j] >= '1' && v[j] <= '9':
			fn(VarRef{Name: v[j : j+1], Start: i, End: j + 1, Kind: Capture}, "")
			i = j
			continue
		}
		kind, k := Named, j
		if v[j] == '{' {
			kind, k = Braced, j+1
		}
		n := k
		for n < len(v) && isVarByte(v[n]) {
			n++
		}
		end := n
		switch {
		case kind == Braced && (n == len(v) || v[n] != '}'):
			if k == len(v) {
				fn(VarRef{}, `invalid variable name`) // "${" at the end: lines 510-511
			} else {
				fn(VarRef{}, `the closing bracket in "`+v[k:n]+`" variable is missing`) // lines 541-546
			}
			continue
		case n == k:
			fn(VarRef{}, `invalid variable name`) // "$-", "${}": lines 548-549
			continue
		case kind == Braced:
			end = n + 1
		}
		fn(VarRef{Name: v[k:n], Start: i, End: end, Kind: kind}, "")
		i = end - 1
	}
}

// isVarByte reports whether c may stand in a variable's name (lines 530-533).
func isVarByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
