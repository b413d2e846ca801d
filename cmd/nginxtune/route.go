package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/report"
	"github.com/nginxtune/nginxtune/route"
)

type routeFlags struct {
	load      loadFlags
	method    string
	headers   []string
	addr      string
	client    string
	format    string
	all       bool
	rootCheck bool
	hostname  string
	http      string
}

func newRouteCmd() *cobra.Command {
	var f routeFlags
	c := &cobra.Command{
		Use:   "route [PATH] URL",
		Short: "Show which server and location answer a request, and what they do",
		Long: `Show which server block and which location of a configuration answer a request,
the way nginx chooses them, and what happens there: rewrites, returns, if blocks,
internal locations, limit_except, allow/deny, auth_basic, try_files, index files,
error_page, and the content handler (proxy_pass with the URI sent upstream,
fastcgi_pass with SCRIPT_FILENAME, or the static file served), followed by every
directive in effect at the block that answers and where it comes from.

PATH is the configuration (a main file or its directory; default /etc/nginx).
URL is "http://host[:port]/path?query", "https://...", "host/path" (http), or
"/path" (a request without a Host header: nginx refuses it with 400 in HTTP/1.1,
so give --http-version 1.0 for the server that answers requests without a name).

Server selection: the address and port the request arrives at (a listen on the
address itself wins over the wildcard; default_server, else the first server),
then the name: exact, the longest leading wildcard, the longest trailing
wildcard, regular expressions in order, the default server. Location selection:
the URI is decoded and normalised first ("%XX", "." and "..", merge_slashes),
then "=" exact matches, the longest prefix (with ^~ no regex is tested, nested
locations searched first), then regular expressions in order.

Regular expressions are matched as nginx's PCRE matches them: lookahead and
lookbehind, atomic groups, possessive quantifiers and back-references included,
bytes rather than UTF-8, "$" matching before a final newline.

Where the answer depends on something the configuration does not decide — the
disk (without --root-check), the client's address (without --client), a
variable a module sets, a regular expression route does not run (recursion,
conditionals, \p{..}) or that backtracks past route's bound — route says so on
the "certain" line and under "depends on", and never guesses silently;
--format json sets "certain": false.

--all lists every location of the server with why it did or did not answer.

Exit codes: 0 answered; 2 bad arguments or a configuration nginx would refuse
to load (a syntax error).`,
		Example: `  nginxtune route fixtures/route/basic.conf http://app.example/index.php
  nginxtune route /etc/nginx https://example.com/static/app.js --all
  nginxtune route fixtures/route/basic.conf http://app.example/api/users --method POST --client 10.0.0.5 --format json`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error { return runRoute(c, args, &f) },
	}
	f.load.register(c)
	fl := c.Flags()
	fl.StringVarP(&f.method, "method", "X", "GET", "request method")
	listVar(fl, &f.headers, "header", "H", nil, false, "request header `NAME:VALUE` (repeatable; Host: overrides the URL's host)")
	fl.StringVar(&f.addr, "addr", "", "the server address and port the request arrives at, `IP[:PORT]` (default: the URL's host when it is an IP address, and its port)")
	fl.StringVar(&f.client, "client", "", "the client's address, `IP`, for allow and deny")
	fl.StringVarP(&f.format, "format", "f", "text", "output format: text or json")
	fl.BoolVar(&f.all, "all", false, "list every location of the server and why it did or did not answer")
	fl.StringVar(&f.hostname, "hostname", "", "the host name of the machine nginx runs on, for server_name $hostname (default: this machine's, for the live tree)")
	fl.StringVar(&f.http, "http-version", "1.1", "the request's HTTP version, 1.0 or 1.1 (nginx refuses an HTTP/1.1 request without Host)")
	fl.BoolVar(&f.rootCheck, "root-check", false, "look at the disk for try_files, index files, static files and \"if (-f ...)\" (for the tree this machine serves)")
	return c
}

func runRoute(c *cobra.Command, args []string, f *routeFlags) error {
	path, target := "/etc/nginx", args[0]
	if len(args) == 2 {
		path, target = args[0], args[1]
	}
	if f.format != "text" && f.format != "json" {
		return failf(ExitError, "--format %q: want text or json", f.format)
	}
	req, err := route.ParseRequest(target)
	if err != nil {
		return failf(ExitError, "%v", err)
	}
	switch f.http {
	case "1.0", "1.1":
		req.Proto = "HTTP/" + f.http
	default:
		return failf(ExitError, "--http-version %q: want 1.0 or 1.1", f.http)
	}
	req.Method = strings.ToUpper(f.method)
	if req.Method == "" || strings.ContainsAny(req.Method, " \t\r\n") {
		return failf(ExitError, "--method %q: want a method name such as GET", f.method)
	}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return failf(ExitError, "--header %q: want NAME:VALUE", h)
		}
		req.Headers[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if f.addr != "" {
		host, port := f.addr, ""
		if h, p, err := net.SplitHostPort(f.addr); err == nil {
			host, port = h, p
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		if ip == nil {
			return failf(ExitError, "--addr %q: want IP or IP:PORT", f.addr)
		}
		req.Addr = ip.String()
		if port != "" {
			n, err := strconv.Atoi(port)
			if err != nil || n < 1 || n > 65535 {
				return failf(ExitError, "--addr %q: bad port", f.addr)
			}
			req.Port = n
		}
	}
	if f.client != "" {
		ip := net.ParseIP(f.client)
		if ip == nil {
			return failf(ExitError, "--client %q: want an IP address", f.client)
		}
		req.Client = ip.String()
	}
	t, err := f.load.load(c, path)
	if err != nil {
		return err
	}
	for _, d := range t.Diagnostics {
		if d.Severity == finding.Error && d.Rule == parser.Syntax {
			return failf(ExitError, "%s:%d:%d: %s (nginx would not load this configuration)", relPath(d.File), d.Line, d.Col, d.Message)
		}
	}
	route.Display = func(f *parser.File) string {
		if f.Via != "" {
			return relPath(f.Via)
		}
		return relPath(f.Path)
	}
	cfg := route.Build(t)
	if len(cfg.Servers) == 0 {
		return failf(ExitError, "%s: no http server blocks", relPath(path))
	}
	hostname := f.hostname
	if hostname == "" && isLive(path) {
		hostname, _ = os.Hostname()
	}
	res := cfg.Route(req, route.Options{RootCheck: f.rootCheck, Prefix: t.Dir, Hostname: hostname})
	for _, d := range t.Diagnostics {
		if (d.Rule == loader.IncludeMissing || d.Rule == loader.IncludeCycle) && d.Severity >= finding.Warning {
			res.Unknown = append(res.Unknown, fmt.Sprintf("%s:%d: %s", relPath(d.File), d.Line, d.Message))
		}
	}
	if t.HasUnread() {
		res.Unknown = append(res.Unknown, "some included files were not read (outside the tree or missing): servers or locations in them are not seen")
	}
	out := c.OutOrStdout()
	if f.format == "json" {
		err = writeRouteJSON(out, &req, res, f.all)
	} else {
		err = writeRouteText(out, &req, res, f.all)
	}
	if err != nil {
		return failf(ExitError, "writing output: %v", err)
	}
	return nil
}

func place(d *parser.Directive) string {
	if d == nil || d.File == nil {
		return ""
	}
	return route.Display(d.File) + ":" + strconv.Itoa(int(d.Line))
}

func writeRouteText(w io.Writer, req *route.Request, res *route.Result, all bool) error {
	e := untrusted.Escape
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
		if how == "default" {
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
	if all && len(res.Candidates) > 0 {
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

func jplace(d *parser.Directive) jsonPlace {
	if d == nil || d.File == nil {
		return jsonPlace{}
	}
	return jsonPlace{File: route.Display(d.File), Line: int(d.Line)}
}

func writeRouteJSON(w io.Writer, req *route.Request, res *route.Result, all bool) error {
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
	if all {
		for _, cd := range res.Candidates {
			j.Candidates = append(j.Candidates, jsonRouteCandidate{jplace(cd.Loc.Dir), cd.Loc.Label(), cd.Why})
		}
	}
	return report.EncodeJSON(w, j)
}
