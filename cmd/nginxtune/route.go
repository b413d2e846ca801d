package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/lint"
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
	// the flags' defaults are set: an empty one was given so
	if f.http == "" {
		return failf(ExitError, "--http-version %q: want 1.0 or 1.1", f.http)
	}
	if f.method == "" {
		return failf(ExitError, "--method %q: want a method name such as GET", f.method)
	}
	parts := route.RequestParts{HTTPVersion: f.http, Method: f.method, Headers: f.headers, Addr: f.addr, Client: f.client}
	if err := parts.Set(&req); err != nil {
		return failf(ExitError, "%v", err)
	}
	t, err := f.load.load(c, path)
	if err != nil {
		return err
	}
	// a file is named as the command was given it: relative to the
	// working directory, by the link it was included through
	name := func(f *parser.File) string { return relPath(route.FileName(f)) }
	hostname := f.hostname
	if hostname == "" && lint.IsLive(path) {
		hostname, _ = os.Hostname()
	}
	res, err := route.RouteTree(t, req, route.Options{RootCheck: f.rootCheck, Prefix: t.Dir, Hostname: hostname, Name: name}, relPath)
	if route.NoServers(err) {
		return failf(ExitError, "%s: no http server blocks", relPath(path))
	}
	if err != nil {
		return failf(ExitError, "%v", err)
	}
	out := c.OutOrStdout()
	o := report.RouteOptions{All: f.all, Name: name}
	if f.format == "json" {
		err = report.RouteJSON(out, &req, res, o)
	} else {
		err = report.RouteText(out, &req, res, o)
	}
	if err != nil {
		return failf(ExitError, "writing output: %v", err)
	}
	return nil
}
