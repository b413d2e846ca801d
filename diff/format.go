package diff

import (
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/report"
	"github.com/nginxtune/nginxtune/route"
)

// Formats are the output formats Write takes.
var Formats = []string{"text", "json", "markdown", "github"}

// examples is how many requests of a group text and markdown show.
const examples = 5

// Write prints the report in a format of Formats. Every byte that comes
// from a tree (names, paths, answers) goes through report's escaper.
func Write(w io.Writer, format string, r *Report) error {
	var b strings.Builder
	switch format {
	case "text":
		writeText(&b, r)
	case "markdown":
		writeMarkdown(&b, r)
	case "github":
		writeGitHub(&b, r)
	case "json":
		return report.EncodeJSON(w, jsonReport(r))
	default:
		return fmt.Errorf("format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var e = untrusted.Escape

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// RequestLine is a request as the reports show it.
func RequestLine(q route.Request) string {
	host := q.Host
	if !q.HasHost {
		host = "(no Host)"
	}
	s := q.Method + " " + q.Scheme + "://" + host + q.Target
	if q.Proto == "HTTP/1.0" {
		s += " (HTTP/1.0)"
	}
	if q.Addr != "" || q.Port != 80 && q.Port != 443 {
		s += " at " + q.Addr + ":" + strconv.Itoa(q.Port)
	}
	return s
}

// Describe is one answer on one line.
func (a *Answer) Describe() string {
	var parts []string
	if a.Server != "" {
		parts = append(parts, "server "+a.Server+" ("+a.ServerAt+")")
	}
	if a.Location != "" {
		parts = append(parts, "location "+a.Location+" ("+a.LocationAt+")")
	} else if a.Server != "" {
		parts = append(parts, "no location")
	}
	if a.If != "" {
		parts = append(parts, "if ("+a.If+") ("+a.IfAt+")")
	}
	s := strings.Join(parts, ", ")
	if a.Assuming != "" {
		s = "(" + a.Assuming + ") " + s
	}
	if a.Text != "" {
		s += ": " + a.Text
	}
	if a.Status != 0 && !strings.HasPrefix(a.Text, strconv.Itoa(a.Status)) {
		s += " [" + strconv.Itoa(a.Status) + "]"
	}
	return s
}

// headline says what a group of changes is.
func headline(c *Change) string {
	a, b := &c.Old[0], &c.New[0]
	n := len(c.Requests)
	what := ""
	switch c.Kind {
	case KindStatus:
		what = "the status changes: " + statusWord(a) + " -> " + statusWord(b)
	case KindBlock:
		what = "another block answers: " + blockWord(a) + " -> " + blockWord(b)
	case KindAnswer:
		what = "the same block answers otherwise (" + blockWord(b) + ")"
	case KindUncertain:
		what = "may change (route is not certain of one side): " + blockWord(a) + " -> " + blockWord(b)
	}
	return fmt.Sprintf("%s: %d %s", what, n, plural(n, "request", "requests"))
}

func statusWord(a *Answer) string {
	switch {
	case a.Closed:
		return "connection closed"
	case a.Status == 0:
		return "answered by the handler"
	}
	return strconv.Itoa(a.Status)
}

func blockWord(a *Answer) string {
	s := "server " + a.Server
	if a.Location != "" {
		s += " location " + a.Location + " (" + a.LocationAt + ")"
	} else if a.ServerAt != "" {
		s += " (" + a.ServerAt + ")"
	}
	if a.Server == "" {
		s = "no server"
	}
	return s
}

func summary(r *Report) string {
	s := fmt.Sprintf("%d requests compared (route was not certain of %d of them in one tree or both)", r.Compared, r.Uncertain)
	if r.Unchanged > 0 {
		s += fmt.Sprintf("; %d %s not asked: %s, the http level and every server's listen and names read the same in both trees", r.Unchanged, plural(r.Unchanged, "server", "servers"), plural(r.Unchanged, "its block", "their blocks"))
	}
	return s
}

func writeText(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "nginxtune diff %s -> %s\n%s\n", e(r.Old), e(r.New), summary(r))
	for _, n := range r.Notes {
		fmt.Fprintf(b, "note: %s\n", e(n))
	}
	if !r.Changed() {
		b.WriteString("no change in behaviour\n")
		return
	}
	if len(r.Changes) > 0 {
		n := 0
		for _, c := range r.Changes {
			n += len(c.Requests)
		}
		fmt.Fprintf(b, "\n%d %s whose answer changes, worst first:\n", n, plural(n, "request", "requests"))
	}
	for i := range r.Changes {
		c := &r.Changes[i]
		fmt.Fprintf(b, "\n%s  %s\n", strings.ToUpper(c.Kind), e(headline(c)))
		if len(c.Cause) > 0 {
			fmt.Fprintf(b, "  changed lines: %s\n", e(strings.Join(c.Cause, "; ")))
		}
		for j := range c.Requests {
			if j == examples {
				fmt.Fprintf(b, "  ... and %d more\n", len(c.Requests)-examples)
				break
			}
			fmt.Fprintf(b, "  %s\n    old  %s\n    new  %s\n", e(RequestLine(c.Requests[j])), e(c.Old[j].Describe()), e(c.New[j].Describe()))
			for _, u := range unknowns(&c.Old[j], &c.New[j]) {
				fmt.Fprintf(b, "    not certain: %s\n", e(u))
			}
		}
	}
	if len(r.Settings) > 0 {
		fmt.Fprintf(b, "\n%d %s in effect %s:\n", len(r.Settings), plural(len(r.Settings), "directive", "directives"), plural(len(r.Settings), "changes", "change"))
	}
	for _, s := range r.Settings {
		fmt.Fprintf(b, "\n%s  %s: %s (old %s, new %s)\n", strings.ToUpper(s.Category), e(s.Block), e(s.Name), e(s.OldAt), e(s.NewAt))
		writeValues(b, "old", s.Old, s.OldPlaces)
		writeValues(b, "new", s.New, s.NewPlaces)
		if s.Note != "" {
			fmt.Fprintf(b, "    %s\n", e(s.Note))
		}
		if len(s.Also) > 0 {
			fmt.Fprintf(b, "    also at %s\n", e(strings.Join(s.Also, "; ")))
		}
	}
}

func writeValues(b *strings.Builder, side string, vals, places []string) {
	if len(vals) == 0 {
		fmt.Fprintf(b, "    %s  (not in effect)\n", side)
	}
	for i, v := range vals {
		fmt.Fprintf(b, "    %s  %s  %s\n", side, e(v), e(places[i]))
	}
}

// unknowns are what route could not know on either side, once each.
func unknowns(a, b *Answer) []string {
	var out []string
	seen := map[string]bool{}
	for _, side := range []struct {
		name string
		u    []string
	}{{"old", a.Unknown}, {"new", b.Unknown}} {
		for _, u := range side.u {
			if !seen[u] {
				seen[u] = true
				out = append(out, side.name+": "+u)
			}
		}
	}
	return out
}

// md writes untrusted text as a Markdown code span: escaped, and fenced
// with more backticks than it holds in a row.
func md(s string) string {
	s = e(s)
	run, longest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

func writeMarkdown(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "### nginxtune diff\n\n%s -> %s: %s.\n\n", md(r.Old), md(r.New), summary(r))
	for _, n := range r.Notes {
		fmt.Fprintf(b, "Note: %s\n\n", md(n))
	}
	if !r.Changed() {
		b.WriteString("**No change in behaviour.**\n")
		return
	}
	for i := range r.Changes {
		c := &r.Changes[i]
		fmt.Fprintf(b, "#### %s\n\n%s\n\n", c.Kind, md(headline(c)))
		if len(c.Cause) > 0 {
			fmt.Fprintf(b, "Changed lines: %s\n\n", md(strings.Join(c.Cause, "; ")))
		}
		for j := range c.Requests {
			if j == examples {
				fmt.Fprintf(b, "- ... and %d more\n", len(c.Requests)-examples)
				break
			}
			fmt.Fprintf(b, "- %s\n  - old: %s\n  - new: %s\n", md(RequestLine(c.Requests[j])), md(c.Old[j].Describe()), md(c.New[j].Describe()))
			for _, u := range unknowns(&c.Old[j], &c.New[j]) {
				fmt.Fprintf(b, "  - not certain: %s\n", md(u))
			}
		}
		b.WriteString("\n")
	}
	if len(r.Settings) > 0 {
		b.WriteString("#### directives in effect\n\n")
	}
	for _, s := range r.Settings {
		fmt.Fprintf(b, "- **%s** %s %s (old %s, new %s)\n", s.Category, md(s.Block), md(s.Name), md(s.OldAt), md(s.NewAt))
		for _, side := range []struct {
			name   string
			vals   []string
			places []string
		}{{"old", s.Old, s.OldPlaces}, {"new", s.New, s.NewPlaces}} {
			if len(side.vals) == 0 {
				fmt.Fprintf(b, "  - %s: not in effect\n", side.name)
			}
			for i, v := range side.vals {
				fmt.Fprintf(b, "  - %s: %s at %s\n", side.name, md(v), md(side.places[i]))
			}
		}
		if s.Note != "" {
			fmt.Fprintf(b, "  - %s\n", md(s.Note))
		}
		if len(s.Also) > 0 {
			fmt.Fprintf(b, "  - also at %s\n", md(strings.Join(s.Also, "; ")))
		}
	}
}

// writeGitHub writes one annotation a group or setting, on the new
// tree's line of the block that answers (the old tree's when the new has
// none).
func writeGitHub(b *strings.Builder, r *Report) {
	if !r.Changed() {
		fmt.Fprintf(b, "::notice title=nginxtune diff::%s\n", report.GitHubMessage("no change in behaviour; "+summary(r)))
		return
	}
	annotate := func(level, at, title, msg string) {
		file, line := at, "1"
		if i := strings.LastIndexByte(at, ':'); i > 0 {
			file, line = at[:i], at[i+1:]
		}
		if file != "" && r.NewBase != "" {
			file = path.Join(r.NewBase, file)
		}
		fmt.Fprintf(b, "::%s file=%s,line=%s,title=%s::%s\n", level, report.GitHubProperty(file), report.GitHubProperty(line), report.GitHubProperty(title), report.GitHubMessage(msg))
	}
	for i := range r.Changes {
		c := &r.Changes[i]
		a, n := &c.Old[0], &c.New[0]
		at := n.LocationAt
		if at == "" {
			at = n.ServerAt
		}
		msg := headline(c) + "; e.g. " + RequestLine(c.Requests[0]) + ": old " + a.Describe() + "; new " + n.Describe()
		if len(c.Cause) > 0 {
			msg += "; changed lines: " + strings.Join(c.Cause, "; ")
		}
		level := "warning"
		if c.Kind == KindUncertain {
			level = "notice"
		}
		annotate(level, at, "nginxtune diff: "+c.Kind, msg)
	}
	for _, s := range r.Settings {
		msg := fmt.Sprintf("%s at %s: old: %s new: %s", s.Name, s.Block, orNone(s.Old), orNone(s.New))
		if s.Note != "" {
			msg += "; " + s.Note
		}
		if len(s.Also) > 0 {
			msg += "; also at " + strings.Join(s.Also, "; ")
		}
		annotate("warning", s.NewAt, "nginxtune diff: "+s.Category, msg)
	}
}

type jsonRequest struct {
	Method string  `json:"method"`
	Scheme string  `json:"scheme"`
	Host   *string `json:"host"`
	Target string  `json:"target"`
	Port   int     `json:"port"`
	Addr   string  `json:"addr,omitempty"`
	HTTP   string  `json:"http_version"`
}

type jsonAnswer struct {
	Server     string   `json:"server"`
	ServerAt   string   `json:"server_at"`
	Location   string   `json:"location,omitempty"`
	LocationAt string   `json:"location_at,omitempty"`
	If         string   `json:"if,omitempty"`
	IfAt       string   `json:"if_at,omitempty"`
	Status     *int     `json:"status"`
	Closed     bool     `json:"closed"`
	Answer     string   `json:"answer"`
	Certain    bool     `json:"certain"`
	Assuming   string   `json:"assuming,omitempty"`
	DependsOn  []string `json:"depends_on,omitempty"`
}

type jsonPair struct {
	Request jsonRequest `json:"request"`
	Old     jsonAnswer  `json:"old"`
	New     jsonAnswer  `json:"new"`
}

type jsonChange struct {
	Kind     string     `json:"kind"`
	Summary  string     `json:"summary"`
	Cause    []string   `json:"changed_lines"`
	Requests []jsonPair `json:"requests"`
}

type jsonSetting struct {
	Block     string   `json:"block"`
	OldAt     string   `json:"old_at"`
	NewAt     string   `json:"new_at"`
	Name      string   `json:"name"`
	Category  string   `json:"category"`
	Old       []string `json:"old"`
	New       []string `json:"new"`
	OldPlaces []string `json:"old_places"`
	NewPlaces []string `json:"new_places"`
	Note      string   `json:"note,omitempty"`
	Also      []string `json:"also_at,omitempty"`
}

type jsonOut struct {
	Old       string        `json:"old"`
	New       string        `json:"new"`
	Compared  int           `json:"compared"`
	Uncertain int           `json:"uncertain"`
	Unchanged int           `json:"servers_unchanged"`
	Changed   bool          `json:"changed"`
	Changes   []jsonChange  `json:"changes"`
	Settings  []jsonSetting `json:"settings"`
	Notes     []string      `json:"notes"`
}

func jAnswer(a *Answer) jsonAnswer {
	j := jsonAnswer{Server: a.Server, ServerAt: a.ServerAt, Location: a.Location, LocationAt: a.LocationAt, If: a.If, IfAt: a.IfAt,
		Closed: a.Closed, Answer: a.Text, Certain: a.Certain(), Assuming: a.Assuming, DependsOn: a.Unknown}
	if a.Status != 0 {
		s := a.Status
		j.Status = &s
	}
	return j
}

func jsonReport(r *Report) jsonOut {
	j := jsonOut{Old: r.Old, New: r.New, Compared: r.Compared, Uncertain: r.Uncertain, Unchanged: r.Unchanged, Changed: r.Changed(), Changes: []jsonChange{}, Settings: []jsonSetting{}, Notes: nonNil(r.Notes)}
	for i := range r.Changes {
		c := &r.Changes[i]
		jc := jsonChange{Kind: c.Kind, Summary: headline(c), Cause: nonNil(c.Cause)}
		for k, q := range c.Requests {
			jr := jsonRequest{Method: q.Method, Scheme: q.Scheme, Target: q.Target, Port: q.Port, Addr: q.Addr, HTTP: "1.1"}
			if q.Proto == "HTTP/1.0" {
				jr.HTTP = "1.0"
			}
			if q.HasHost {
				h := q.Host
				jr.Host = &h
			}
			jc.Requests = append(jc.Requests, jsonPair{jr, jAnswer(&c.Old[k]), jAnswer(&c.New[k])})
		}
		j.Changes = append(j.Changes, jc)
	}
	for _, s := range r.Settings {
		j.Settings = append(j.Settings, jsonSetting{s.Block, s.OldAt, s.NewAt, s.Name, s.Category, nonNil(s.Old), nonNil(s.New), nonNil(s.OldPlaces), nonNil(s.NewPlaces), s.Note, s.Also})
	}
	return j
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orNone(vals []string) string {
	if len(vals) == 0 {
		return "(not in effect)"
	}
	return strings.Join(vals, " ")
}
