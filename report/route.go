package report

// route's answer, as text and as JSON.

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/route"
)

// RouteOptions say how route's answer is written.
type RouteOptions struct {
	// All lists every location of the last search and why it did or did
	// not answer.
	All bool
	// Name names a file in the places written; nil: route.FileName.
	Name func(*parser.File) string
}

func (o RouteOptions) name() func(*parser.File) string {
	if o.Name != nil {
		return o.Name
	}
	return route.FileName
}

// place is a directive's place, "file:line" ("" when it has none).
func (o RouteOptions) place(d *parser.Directive) string {
	if d == nil || d.File == nil {
		return ""
	}
	return o.name()(d.File) + ":" + strconv.Itoa(int(d.Line))
}

// RouteText writes route's answer for req as text: the server and location
// that answer, the trace, the directives in effect there and what the
// answer depends on. Every byte the configuration or the request
// contributes is escaped.
func RouteText(w io.Writer, req *route.Request, res *route.Result, o RouteOptions) error {
	e, place := untrusted.Escape, o.place
	var b strings.Builder
	host := req.Host
	if !req.HasHost {
		host = "(no Host header)"
	}
	fmt.Fprintf(&b, "%s %s://%s%s%s\n", e(req.Method), req.Scheme, e(host), e(req.Target), map[bool]string{true: " (HTTP/1.0)"}[req.Proto == "HTTP/1.0"])
	if res.Addr != "" {
		fmt.Fprintf(&b, "  address   %s\n", e(res.Addr))
	}
	if res.Server != nil {
		how := res.ServerHow
		if how == route.DefaultServer {
			how = "the default server: no server_name matched"
		} else {
			how = "matched by " + how
		}
		fmt.Fprintf(&b, "  server    %s  %s  (%s)\n", e(res.Server.Label()), e(place(res.Server.Dir)), e(how))
	}
	if res.Location != nil {
		fmt.Fprintf(&b, "  location  %s  %s  (%s)\n", e(res.Location.Label()), e(place(res.Location.Dir)), e(res.LocationHow))
	} else if res.Server != nil && res.Answer != "" {
		fmt.Fprintf(&b, "  location  (none: the server's own configuration answers)\n")
	}
	if res.If != nil {
		fmt.Fprintf(&b, "  if        (%s)  %s  (true: its configuration answers)\n", e(route.Condition(res.If)), e(place(res.If)))
	}
	if res.Answer != "" {
		fmt.Fprintf(&b, "  answer    %s\n", e(res.Answer))
	}
	if n := len(res.Unknown); n > 0 {
		fmt.Fprintf(&b, "  certain   no: %d thing%s the configuration does not decide, listed below, can change this answer\n", n, map[bool]string{true: "s"}[n > 1])
	}
	b.WriteString("\ntrace:\n")
	for i, s := range res.Steps {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, e(s.Detail))
	}
	if len(res.Settings) > 0 {
		where := "the server"
		if res.Location != nil {
			where = "location " + res.Location.Label()
		}
		fmt.Fprintf(&b, "\nin effect at %s:\n", e(where))
		for _, s := range res.Settings {
			for _, d := range s.Dirs {
				text := strings.Join(append([]string{d.Name}, rawArgs(d)...), " ") + ";"
				fmt.Fprintf(&b, "  %-48s %s (%s)", e(untrusted.Clip(text)), e(place(d)), e(s.Level))
				b.WriteString("\n")
			}
			if len(s.Replaces) > 0 {
				fmt.Fprintf(&b, "  %-48s replaces %d at %s, which are not inherited\n", "", len(s.Replaces), e(place(s.Replaces[0])))
			}
		}
	}
	if o.All && len(res.Candidates) > 0 {
		b.WriteString("\nlocations:\n")
		for _, cd := range res.Candidates {
			fmt.Fprintf(&b, "  %-32s %s  %s\n", e(cd.Loc.Label()), e(place(cd.Loc.Dir)), e(cd.Why))
		}
	}
	if len(res.Unknown) > 0 {
		b.WriteString("\ndepends on what the configuration does not decide:\n")
		for _, u := range res.Unknown {
			fmt.Fprintf(&b, "  - %s\n", e(u))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rawArgs(d *parser.Directive) []string {
	out := make([]string, len(d.Args))
	for i, a := range d.Args {
		out[i] = a.Raw
	}
	return out
}

type jsonPlace struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

type jsonDirective struct {
	jsonPlace
	Args []string `json:"args"`
}

type jsonRouteServer struct {
	jsonPlace
	Name      string `json:"name"`
	MatchedBy string `json:"matched_by"`
}

type jsonRouteLocation struct {
	jsonPlace
	Modifier  string `json:"modifier"`
	Pattern   string `json:"pattern"`
	MatchedBy string `json:"matched_by"`
}

type jsonRouteIf struct {
	jsonPlace
	Condition string `json:"condition"`
}

type jsonRouteStep struct {
	Step   string     `json:"step"`
	At     *jsonPlace `json:"at,omitempty"`
	Detail string     `json:"detail"`
}

type jsonRouteSetting struct {
	Name       string          `json:"name"`
	Level      string          `json:"level"`
	Directives []jsonDirective `json:"directives"`
	Replaces   []jsonPlace     `json:"replaces,omitempty"`
}

type jsonRouteCandidate struct {
	jsonPlace
	Location string `json:"location"`
	Why      string `json:"why"`
}

type jsonRouteRequest struct {
	Method string            `json:"method"`
	HTTP   string            `json:"http_version"`
	Scheme string            `json:"scheme"`
	Host   *string           `json:"host"`
	Target string            `json:"target"`
	Port   int               `json:"port"`
	Addr   string            `json:"addr,omitempty"`
	Client string            `json:"client,omitempty"`
	Header map[string]string `json:"headers,omitempty"`
}

// jsonRoute is route's --format json: the server and location that answer
// first, then the trace and the directives in effect.
type jsonRoute struct {
	Request    jsonRouteRequest     `json:"request"`
	Address    string               `json:"address,omitempty"`
	Server     *jsonRouteServer     `json:"server"`
	Location   *jsonRouteLocation   `json:"location"`
	If         *jsonRouteIf         `json:"if,omitempty"`
	URI        string               `json:"uri"`
	Args       string               `json:"args"`
	Status     *int                 `json:"status"`
	Closed     bool                 `json:"closed"`
	Answer     string               `json:"answer"`
	Certain    bool                 `json:"certain"`
	Unknown    []string             `json:"depends_on"`
	Trace      []jsonRouteStep      `json:"trace"`
	Effective  []jsonRouteSetting   `json:"effective"`
	Candidates []jsonRouteCandidate `json:"candidates,omitempty"`
}

func (o RouteOptions) jplace(d *parser.Directive) jsonPlace {
	if d == nil || d.File == nil {
		return jsonPlace{}
	}
	return jsonPlace{File: o.name()(d.File), Line: int(d.Line)}
}

// RouteJSON writes route's answer for req as JSON (route --format json).
func RouteJSON(w io.Writer, req *route.Request, res *route.Result, o RouteOptions) error {
	jplace := o.jplace
	var j jsonRoute
	j.Request.Method, j.Request.Scheme, j.Request.Target, j.Request.Port = req.Method, req.Scheme, req.Target, req.Port
	j.Request.HTTP = strings.TrimPrefix(req.Proto, "HTTP/")
	if req.HasHost {
		h := req.Host
		j.Request.Host = &h
	}
	j.Request.Addr, j.Request.Client = req.Addr, req.Client
	if len(req.Headers) > 0 {
		j.Request.Header = req.Headers
	}
	j.Address = res.Addr
	if s := res.Server; s != nil {
		j.Server = &jsonRouteServer{jplace(s.Dir), s.Label(), res.ServerHow}
	}
	if l := res.Location; l != nil {
		j.Location = &jsonRouteLocation{jplace(l.Dir), l.Mod, l.Pattern, res.LocationHow}
	}
	if res.If != nil {
		j.If = &jsonRouteIf{jplace(res.If), route.Condition(res.If)}
	}
	j.URI, j.Args = res.URI, res.Args
	if res.Status != 0 {
		s := res.Status
		j.Status = &s
	}
	j.Closed, j.Answer, j.Certain = res.Closed, res.Answer, res.Certain()
	j.Unknown = append([]string{}, res.Unknown...)
	for _, s := range res.Steps {
		var p *jsonPlace
		if s.Dir != nil {
			jp := jplace(s.Dir)
			p = &jp
		}
		j.Trace = append(j.Trace, jsonRouteStep{s.Kind, p, s.Detail})
	}
	for _, s := range res.Settings {
		var ds []jsonDirective
		for _, d := range s.Dirs {
			ds = append(ds, jsonDirective{jplace(d), d.ArgValues()})
		}
		var rp []jsonPlace
		for _, d := range s.Replaces {
			rp = append(rp, jplace(d))
		}
		j.Effective = append(j.Effective, jsonRouteSetting{s.Name, s.Level, ds, rp})
	}
	if o.All {
		for _, cd := range res.Candidates {
			j.Candidates = append(j.Candidates, jsonRouteCandidate{jplace(cd.Loc.Dir), cd.Loc.Label(), cd.Why})
		}
	}
	return EncodeJSON(w, j)
}
