package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/nginxtune/nginxtune/generate"
	"github.com/nginxtune/nginxtune/lint"
	"github.com/nginxtune/nginxtune/report"
	"github.com/nginxtune/nginxtune/templates"
)

type genFlags struct {
	profile, profileFile string
	serverNames          []string
	root                 string
	user                 string
	upstreams            []string
	tls                  string
	acme                 bool
	acmeRoot             string
	factsFile            string
	cpus                 int
	memory               string
	nofile               string
	nginxVersion         string
	out                  string
	force, diff          bool
	verify               bool
	fpmMaxChildren       int
	concurrency          int
	fpmPool              string
	layout, into, site   string
	tuneMain             bool
	osRoot               string
	nginxTest            bool
	noSecurityHeaders    bool
	csp                  string
	hstsSubdomains       bool
	hstsPreload          bool
	tlsProfile           string
	wwwRedirect          bool
	brotli               string
}

func newGenCmd() *cobra.Command {
	var f genFlags
	c := &cobra.Command{
		Use:   "gen --profile NAME",
		Short: "Write a tuned nginx configuration sized to the host, with the OS settings it needs",
		Long: `Write a complete nginx configuration for a profile (static, spa, proxy, php) or a
preset (wordpress, drupal, laravel, node, django, grpc) sized to a host: this machine
by default, the facts saved with "nginxtune facts" (--facts FILE), or the numbers given
with --cpus, --memory and --nofile. Every sized directive carries a comment saying
what it was computed from.

--out DIR writes a complete configuration in a layout (--layout prefix, debian, rhel,
docker). --into DIR adds a site to an existing configuration (Debian's sites-available
with its link in sites-enabled, RHEL's or the Docker image's conf.d), keeping its
nginx.conf; --tune-main also sets the worker numbers there.

Besides nginx.conf and the site file, gen writes the OS half the numbers rely on:
sysctl.d/60-nginxtune.conf (only the kernel settings this host needs changed) and
systemd/nginx.service.d/nginxtune.conf (LimitNOFILE). With --acme it adds the
challenge location, the HTTP-to-HTTPS redirect and a certbot deploy hook that
reloads nginx after a renewal.

The syntax follows the nginx version: --nginx-version, else the installed nginx's,
else ` + generate.DefaultVersion + ` ("http2 on" from 1.25.1, the upstream keepalive defaults of 1.29.7,
"ssl_session_tickets off" before 1.23.2). Before anything is written, nginxtune reads
the target tree with the new files in it and refuses what nginx would; when an nginx
binary of a compatible version is installed and gen runs as root, nginx -t checks gen's
files in a temporary prefix, and the whole target tree only when it is the live
configuration or --nginx-test is given (nginx -t reads every file a tree names).

Without --out the files are printed. --out DIR writes them atomically and refuses
to replace existing files unless --force; --diff shows what would change.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return runGen(c, &f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.profile, "profile", "", "profile: "+strings.Join(templates.Profiles(), ", "))
	fl.StringVar(&f.profileFile, "profile-file", "", "a profile of your own (YAML, same keys as the built-in ones)")
	// an array, split on commas here: a slice flag reads its value as CSV,
	// which would silently drop what follows a line break
	listVar(fl, &f.serverNames, "server-name", "", nil, false, "server names (comma-separated or repeated)")
	fl.StringVar(&f.root, "root", "", "document root (default from the profile)")
	fl.StringVar(&f.user, "user", "", "the account nginx's workers run as (default: www-data, or nginx where this machine has that account and no www-data, as on RHEL and Alpine)")
	listVar(fl, &f.upstreams, "upstream", "", nil, false, "backend host:port (or unix:/path) for proxy and php; repeatable")
	fl.StringVar(&f.tls, "tls", "", "serve HTTPS with these files: `CERT,KEY`")
	fl.BoolVar(&f.acme, "acme", false, "HTTPS with Let's Encrypt: challenge location, redirect, renewal hook (certificates under /etc/letsencrypt/live/NAME unless --tls)")
	fl.StringVar(&f.acmeRoot, "acme-root", "/var/www/acme", "webroot for ACME http-01 challenges")
	fl.StringVar(&f.factsFile, "facts", "", "size for the host facts in FILE (saved with nginxtune facts)")
	fl.IntVar(&f.cpus, "cpus", 0, "size for this many CPUs")
	fl.StringVar(&f.memory, "memory", "", "size for this much memory, e.g. 4GiB")
	fl.StringVar(&f.nofile, "nofile", "", "the open-file limit of the host, N or SOFT:HARD")
	fl.StringVar(&f.nginxVersion, "nginx-version", "", "nginx version to write for (default: the installed nginx's, else "+generate.DefaultVersion+")")
	fl.StringVarP(&f.out, "out", "o", "", "write the files into DIR")
	fl.BoolVar(&f.force, "force", false, "replace existing files in --out")
	fl.BoolVar(&f.diff, "diff", false, "show what would change in --out, write nothing")
	fl.IntVar(&f.concurrency, "concurrency", 0, "proxy profile: requests you expect to be in flight to the backends at once, to size the upstream keepalive pool (default: nginx's 32 per worker)")
	fl.IntVar(&f.fpmMaxChildren, "fpm-max-children", 0, "php profile: php-fpm's pm.max_children, to size the kept FastCGI connections (default: none kept)")
	fl.StringVar(&f.fpmPool, "fpm-pool", "", "php profile: read pm.max_children from this php-fpm pool file (e.g. /etc/php/8.2/fpm/pool.d/www.conf)")
	fl.BoolVar(&f.verify, "verify", true, "check the output with nginx -t when a compatible nginx is installed and gen runs as root")
	fl.StringVar(&f.layout, "layout", "", "where the files go: "+strings.Join(templates.LayoutNames(), ", ")+" (default: prefix with --out, found from the tree with --into)")
	fl.StringVar(&f.into, "into", "", "add the site to the existing configuration in `DIR` (Debian's sites-available with a link in sites-enabled, RHEL's or the Docker image's conf.d), keeping its nginx.conf")
	fl.StringVar(&f.site, "site", "", "name of the site's files (default: the first server name)")
	fl.BoolVar(&f.tuneMain, "tune-main", false, "with --into: also set worker_processes, worker_connections and worker_rlimit_nofile in the tree's nginx.conf (only those values change), and write the OS half they need")
	fl.StringVar(&f.osRoot, "os-root", "", "with --into: install the OS half (sysctl.d, the systemd drop-in, the ACME hook) under `DIR` (/ for this host)")
	fl.BoolVar(&f.nginxTest, "nginx-test", false, "verify with nginx -t over the whole tree in --out or --into even when it is not the live /etc/nginx (nginx -t reads every file the tree names, loads its modules and creates its log paths: only for a tree you trust)")
	fl.BoolVar(&f.noSecurityHeaders, "no-security-headers", false, "leave out X-Content-Type-Options, X-Frame-Options, Referrer-Policy and Permissions-Policy (HSTS stays with HTTPS)")
	fl.StringVar(&f.csp, "csp", "", "a Content-Security-Policy to send, e.g. \"default-src 'self'\"")
	fl.BoolVar(&f.hstsSubdomains, "hsts-subdomains", false, "Strict-Transport-Security with includeSubDomains")
	fl.BoolVar(&f.hstsPreload, "hsts-preload", false, "Strict-Transport-Security with includeSubDomains and preload (submit the name to hstspreload.org; hard to undo)")
	fl.StringVar(&f.tlsProfile, "tls-profile", "intermediate", "Mozilla's TLS guideline: intermediate (TLS 1.2 and 1.3) or modern (TLS 1.3 only)")
	fl.BoolVar(&f.wwwRedirect, "www-redirect", false, "answer the other form of the first server name (www.NAME or NAME) with a permanent redirect to it")
	fl.StringVar(&f.brotli, "brotli", "auto", "brotli compression: auto (when the host's nginx has the ngx_brotli modules), on, off")
	return c
}

func runGen(c *cobra.Command, f *genFlags) error {
	var names []string
	for _, v := range f.serverNames {
		names = append(names, strings.Split(v, ",")...)
	}
	target := f.out
	if f.into != "" {
		target = f.into
	}
	files, err := generate.Run(generate.Options{
		Profile: f.profile, ProfileFile: f.profileFile, ServerNames: names, Root: f.root, User: f.user, Upstreams: f.upstreams,
		TLS: f.tls, ACME: f.acme, ACMERoot: f.acmeRoot,
		FactsFile: f.factsFile, CPUs: f.cpus, CPUsSet: c.Flags().Changed("cpus"), Memory: f.memory, NoFile: f.nofile, NginxVersion: f.nginxVersion,
		Out: f.out, Into: f.into, Live: target != "" && lint.IsLive(target), Force: f.force, Diff: f.diff, Verify: f.verify, NginxTest: f.nginxTest,
		FPMMaxChildren: f.fpmMaxChildren, FPMPool: f.fpmPool, Concurrency: f.concurrency, Layout: f.layout, Site: f.site, TuneMain: f.tuneMain, OSRoot: f.osRoot,
		NoSecurityHeaders: f.noSecurityHeaders, CSP: f.csp, HSTSSubdomains: f.hstsSubdomains, HSTSPreload: f.hstsPreload, TLSProfile: f.tlsProfile,
		WWWRedirect: f.wwwRedirect, Brotli: f.brotli,
		Notes: c.ErrOrStderr(), Output: c.OutOrStdout(),
	})
	if err != nil {
		return failf(ExitError, "%v", err)
	}
	if target == "" {
		report.GenFiles(c.OutOrStdout(), files)
	}
	return nil
}
