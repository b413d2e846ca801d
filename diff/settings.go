package diff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/route"
)

// blockPair is one block reached in both trees (the same server and
// location), with route's answer in each, whose directives in effect are
// compared.
type blockPair struct {
	old, new         *route.Result
	oldTree, newTree *Tree
}

// answered reports the directives whose effect is the answer itself,
// compared request by request: a change in them shows there. (Switches,
// not map literals, so that no command builds them when it starts.)
func answered(name string) bool {
	switch name {
	case "rewrite", "return", "set", "break", "try_files", "internal",
		"listen", "server_name", "proxy_pass", "fastcgi_pass", "uwsgi_pass",
		"scgi_pass", "grpc_pass", "memcached_pass", "error_page":
		return true
	}
	return false
}

// replacedAsList reports the directives of which an inner level's
// occurrences replace every occurrence of the levels above.
func replacedAsList(name string) bool {
	switch name {
	case "add_header", "proxy_set_header", "fastcgi_param", "uwsgi_param",
		"scgi_param", "grpc_set_header", "proxy_hide_header", "fastcgi_hide_header",
		"allow", "deny", "add_trailer", "more_set_headers":
		return true
	}
	return false
}

// category sorts a directive into what it changes, worst first.
func category(name string) (string, int) {
	switch {
	case name == "allow" || name == "deny" || strings.HasPrefix(name, "auth_") || name == "satisfy" || strings.HasPrefix(name, "limit_"):
		return "access", 0
	case strings.HasPrefix(name, "ssl_") || name == "http2" || name == "http3":
		return "TLS", 1
	case strings.Contains(name, "header") || name == "add_trailer" || name == "server_tokens" || name == "more_set_headers":
		return "headers", 2
	case name == "client_max_body_size" || strings.HasPrefix(name, "client_body_") || strings.HasPrefix(name, "large_client_header"):
		return "body size", 3
	case strings.HasSuffix(name, "_timeout"):
		return "timeouts", 4
	case strings.Contains(name, "cache") || name == "expires" || name == "etag" || name == "if_modified_since":
		return "caching", 5
	}
	return "other", 6
}

func (p *blockPair) label() string {
	r := p.new
	s := "server " + r.Server.Label()
	if r.Location != nil {
		s += ", location " + locID(r.Location)
	}
	if r.If != nil {
		s += ", if (" + route.Condition(r.If) + ")"
	}
	return s
}

func blockAt(t *Tree, r *route.Result) string {
	switch {
	case r.If != nil:
		return t.place(r.If)
	case r.Location != nil:
		return t.place(r.Location.Dir)
	case r.Server != nil:
		return t.place(r.Server.Dir)
	}
	return ""
}

// values lists a setting's occurrences as values (layout and places
// dropped; an upstream named by its servers).
func (t *Tree) values(s route.Setting) []string {
	var out []string
	for _, d := range s.Dirs {
		out = append(out, directiveText(d))
	}
	return out
}

// itemKey is what an occurrence of a list directive sets: the header or
// parameter it names.
func itemKey(d *parser.Directive) string {
	switch d.Name {
	case "allow", "deny":
		return d.Name + " " + d.Arg(0)
	}
	return strings.ToLower(d.Arg(0))
}

func (p *blockPair) compare() []SettingChange {
	olds := map[string]route.Setting{}
	news := map[string]route.Setting{}
	var names []string
	for _, s := range p.old.Settings {
		olds[s.Name] = s
		names = append(names, s.Name)
	}
	for _, s := range p.new.Settings {
		if _, ok := olds[s.Name]; !ok {
			names = append(names, s.Name)
		}
		news[s.Name] = s
	}
	sort.Strings(names)
	var out []SettingChange
	for _, n := range names {
		if answered(n) {
			continue
		}
		o, nw := olds[n], news[n]
		ov, nv := p.oldTree.values(o), p.newTree.values(nw)
		if strings.Join(ov, "\n") == strings.Join(nv, "\n") {
			continue
		}
		cat, rk := category(n)
		c := SettingChange{Block: p.label(), OldAt: blockAt(p.oldTree, p.old), NewAt: blockAt(p.newTree, p.new), Name: n, Category: cat, Old: ov, New: nv, categoryRk: rk}
		for _, d := range o.Dirs {
			c.OldPlaces = append(c.OldPlaces, p.oldTree.place(d))
		}
		for _, d := range nw.Dirs {
			c.NewPlaces = append(c.NewPlaces, p.newTree.place(d))
		}
		c.Note = silentNote(p.newTree, n, o, nw)
		out = append(out, c)
	}
	return out
}

// silentNote explains an occurrence that no longer applies though it is
// still written: an inner level's list replaces it as a whole.
func silentNote(t *Tree, name string, o, n route.Setting) string {
	if !replacedAsList(name) || len(n.Replaces) == 0 {
		if len(n.Dirs) == 0 && len(o.Dirs) > 0 {
			return fmt.Sprintf("%s no longer applies here", name)
		}
		return ""
	}
	have := map[string]bool{}
	for _, d := range n.Dirs {
		have[itemKey(d)] = true
	}
	var lost []string
	for _, d := range o.Dirs {
		k := itemKey(d)
		if have[k] {
			continue
		}
		for _, r := range n.Replaces {
			if itemKey(r) == k {
				lost = append(lost, fmt.Sprintf("%s (still written at %s)", d.Arg(0), t.place(r)))
				break
			}
		}
	}
	if len(lost) == 0 {
		return ""
	}
	return fmt.Sprintf("lost through inheritance: %s at %s (%s) replaces every %s of the levels above, so %s no longer applies here",
		name, t.place(n.Dirs[0]), n.Level, name, strings.Join(lost, ", "))
}

// mergeSettings folds changes of the same occurrences (a server-level
// directive seen from each of its locations) into the first block's,
// the others listed in Also.
func mergeSettings(in []SettingChange) []SettingChange {
	var out []SettingChange
	at := map[string]int{}
	for _, c := range in {
		k := strings.Join([]string{c.Name, strings.Join(c.Old, "\n"), strings.Join(c.New, "\n"), strings.Join(c.OldPlaces, " "), strings.Join(c.NewPlaces, " "), c.Note}, "\x00")
		if i, ok := at[k]; ok {
			out[i].Also = append(out[i].Also, c.Block+" ("+c.NewAt+")")
			continue
		}
		at[k] = len(out)
		out = append(out, c)
	}
	return out
}
