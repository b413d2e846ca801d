package knowledge

import "strings"

// About is what nginxtune knows of a directive, gathered from the table's
// rows for one place: the editor's hover renders it.
type About struct {
	Name    string
	Summary string // summaries.tsv's line, "" when it has none
	// Forms are the distinct ways of writing it (arguments, contexts,
	// values), each with the nginx versions that have that form.
	Forms []Form
	// Defaults are the distinct defaults with the versions that have each.
	Defaults []Versioned
	Module   string
	Extra    string   // the third-party module (with its version), "" for nginx's own
	Core     []string // every nginx version of the table that has it, oldest first
	// Missing is the version asked for when it does not have the
	// directive (the forms are then those of the versions that do).
	Missing string
	URL     string // the directive's page on nginx.org, "" for third-party modules
}

// Form is one way of writing a directive.
type Form struct {
	Args     Args
	Contexts []string
	Values   []string
	Core     []string
}

// Versioned is a value with the nginx versions it holds for.
type Versioned struct {
	Value string
	Core  []string
}

// Describe gathers what the table knows of a directive written in the
// context key (as ContextBit names them; "" for anywhere): with a known
// version v, the rows of v's branch (or a third-party module's); with
// none, every row, each version named where the rows differ. ok is false
// for a name the table does not know.
func Describe(name, key string, v Version) (About, bool) {
	rows := Lookup(name)
	if len(rows) == 0 {
		return About{}, false
	}
	var in []Directive
	for _, d := range rows {
		if key == "" || d.Allows(key) {
			in = append(in, d)
		}
	}
	if len(in) == 0 {
		in = rows
	}
	all := in
	missing := ""
	if branch := Branch(v); v.Known() && branch != "" {
		var of []Directive
		for _, d := range in {
			if d.InCore(branch) || d.Extra != "" {
				of = append(of, d)
			}
		}
		if len(of) > 0 {
			in = of
		} else {
			missing = branch
		}
	}
	// the module of the newest row: a name two modules define (error_log
	// in the core and in http) is described as the place asks for it
	last := in[len(in)-1]
	a := About{Name: name, Summary: Summary(name), Module: last.Module, Extra: last.Extra, URL: last.DocURL(), Missing: missing}
	for _, d := range all {
		if d.Module == last.Module && d.Extra == last.Extra {
			a.Core = union(a.Core, d.Core) // every version that has it
		}
	}
	for _, d := range in {
		if d.Module != last.Module || d.Extra != last.Extra {
			continue
		}
		a.Forms = addForm(a.Forms, d)
		if d.Default != "" {
			a.Defaults = addVersioned(a.Defaults, d.Default, d.Core)
		}
	}
	return a, true
}

func addForm(fs []Form, d Directive) []Form {
	for i, f := range fs {
		if f.Args == d.Args && strings.Join(f.Contexts, ",") == strings.Join(d.Contexts, ",") && strings.Join(f.Values, "|") == strings.Join(d.Values, "|") {
			fs[i].Core = union(f.Core, d.Core)
			return fs
		}
	}
	return append(fs, Form{Args: d.Args, Contexts: d.Contexts, Values: d.Values, Core: append([]string(nil), d.Core...)})
}

func addVersioned(vs []Versioned, value string, core []string) []Versioned {
	for i, x := range vs {
		if x.Value == value {
			vs[i].Core = union(x.Core, core)
			return vs
		}
	}
	return append(vs, Versioned{Value: value, Core: append([]string(nil), core...)})
}

// union adds the versions of b missing from a, oldest first.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		found := false
		for _, y := range out {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	SortCore(out)
	return out
}

// DocURL is the directive's page on nginx.org, "" for a third-party
// module's.
func (d Directive) DocURL() string {
	m := d.Module
	if d.Extra != "" || m == "" {
		return ""
	}
	switch {
	case strings.HasPrefix(m, "ngx_http_"):
		return "https://nginx.org/en/docs/http/" + m + ".html#" + d.Name
	case strings.HasPrefix(m, "ngx_stream_"):
		return "https://nginx.org/en/docs/stream/" + m + ".html#" + d.Name
	case strings.HasPrefix(m, "ngx_mail_"):
		return "https://nginx.org/en/docs/mail/" + m + ".html#" + d.Name
	case m == "ngx_google_perftools_module":
		return "https://nginx.org/en/docs/" + m + ".html#" + d.Name
	}
	return "https://nginx.org/en/docs/ngx_core_module.html#" + d.Name
}
