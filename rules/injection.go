package rules

import (
	"strings"

	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/parser"
)

// Helpers of the rules about values a request controls: where a *_pass
// sends it, and which header values it writes (see taint.go for the
// model).

// pathVars start with "/" (or "?", $is_args): in a proxy_pass URL they begin
// the path or the query.
var pathVars = map[string]bool{"uri": true, "request_uri": true, "document_uri": true, "fastcgi_script_name": true, "is_args": true}

// backendPart is the part of a *_pass argument that chooses the backend:
// scheme and host[:port] of a proxy_pass URL, the whole address otherwise.
func backendPart(d *parser.Directive) string { return backendOf(d.Name, d.Arg(0)) }

// backendOf is backendPart for a directive name and a value.
func backendOf(name, arg string) string {
	rest := arg
	prefix := ""
	if sch, after, ok := strings.Cut(arg, "://"); ok {
		prefix, rest = sch+"://", after
	} else if name == protoHTTP {
		return arg // "proxy_pass $target": the variable is the whole URL
	}
	if name != protoHTTP && name != protoGRPC {
		return arg
	}
	end := len(rest)
	if strings.HasPrefix(rest, "unix:") {
		// unix:/path/to.sock:/uri: the socket's path ends at the colon
		if i := strings.IndexByte(rest[len("unix:"):], ':'); i >= 0 {
			return prefix + rest[:len("unix:")+i+1]
		}
		return arg
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		end = i
	}
	for _, r := range knowledge.VarRefs(rest) {
		if pathVars[r.Name] && r.Start < end {
			end = r.Start
		}
	}
	return prefix + rest[:end]
}

// soleVar reports whether part is one variable and nothing else.
func soleVar(part string) (string, bool) {
	vs := knowledge.VarRefs(part)
	if len(vs) != 1 || vs[0].Start != 0 || vs[0].End != len(part) {
		return "", false
	}
	return vs[0].Name, true
}

// headerSetters are the directives that set a request or response header:
// nginx's add_header, add_trailer, proxy_set_header and grpc_set_header, the
// headers-more module's more_set_headers and more_set_input_headers.
var headerSetters = []string{"add_header", "add_trailer", "proxy_set_header", "grpc_set_header", "more_set_headers", "more_set_input_headers"}

// headerValue returns the argument of d that goes into a header (or a
// redirect's Location), or -1.
func headerValue(d *parser.Directive) int {
	switch d.Name {
	case "add_header", "add_trailer", "proxy_set_header", "grpc_set_header":
		if len(d.Args) >= 2 {
			return 1
		}
	case "more_set_headers", "more_set_input_headers":
		// -s STATUSES and -t TYPES take a value: neither is the header
		for i := 0; i < len(d.Args); i++ {
			switch v := d.Args[i].Value; {
			case v == "-s" || v == "-t":
				i++
			case strings.HasPrefix(v, "-"):
			default:
				return i
			}
		}
	case "return":
		switch {
		case len(d.Args) == 2 && redirectCode(d.Arg(0)):
			return 1
		case len(d.Args) == 1 && isURL(d.Arg(0)):
			return 0
		}
	case "rewrite":
		if len(d.Args) >= 2 && (isURL(d.Arg(1)) || hasArg(d, "redirect") >= 2 || hasArg(d, "permanent") >= 2) {
			return 1
		}
	}
	return -1
}

func redirectCode(s string) bool {
	switch s {
	case "301", "302", "303", "307", "308":
		return true
	}
	return false
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "$scheme://")
}
