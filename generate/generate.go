// Package generate is what nginxtune gen does below its command line: it
// reads the host (or the facts it is given), the profile and, when a site
// is added to a configuration that exists, that tree; renders the files
// (package templates); checks them with nginxtune's own reading and nginx
// -t; and writes them all or nothing, each inside the directory it was
// given. The command reads its flags into Options and prints what Run
// returns; nothing here parses flags.
package generate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/internal/boundedread"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/templates"
)

// DefaultVersion is the nginx version gen writes for when neither the
// options nor the host say (templates.DefaultVersion).
const DefaultVersion = templates.DefaultVersion

// Options are what gen is asked to do. The messages of Run name the
// command's flags (--into, --tls, ...) that set each field.
type Options struct {
	Profile     string // a built-in profile's name (--profile)
	ProfileFile string // a profile of one's own, read from this file (--profile-file)
	ServerNames []string
	Root        string // the document root ("": the profile's)
	User        string // the workers' account ("": the layout's or this machine's)
	Upstreams   []string
	TLS         string // "CERT,KEY"
	ACME        bool
	ACMERoot    string

	// FactsFile sizes for the facts saved in it; else CPUs, Memory and
	// NoFile override this host's (CPUsSet: CPUs was given, even as 0).
	FactsFile      string
	CPUs           int
	CPUsSet        bool
	Memory, NoFile string
	NginxVersion   string

	Out            string // write a complete configuration into this directory
	Into           string // add the site to the configuration in this directory
	Live           bool   // Out or Into is a live installation's configuration directory
	Force, Diff    bool
	Verify         bool // check with nginx -t where that can be done
	NginxTest      bool // nginx -t reads the whole target tree even when it is not Live
	FPMMaxChildren int
	FPMPool        string
	Concurrency    int
	Layout, Site   string
	TuneMain       bool
	OSRoot         string

	NoSecurityHeaders           bool
	CSP                         string
	HSTSSubdomains, HSTSPreload bool
	TLSProfile                  string
	WWWRedirect                 bool
	Brotli                      string // auto ("" too), on or off

	// Notes receives what gen decided and did, a line each ("nginxtune:
	// ...", "wrote PATH"); Output receives Diff's comparison. Nil: discarded.
	Notes, Output io.Writer

	// BeforeWrite, when set, runs between the checks of the target and
	// the writing there; AfterStage after each file is staged beside its
	// place: where a writer racing gen swaps a directory (tests do).
	BeforeWrite, AfterStage func()
}

// target is the directory gen writes into, "" when it only prints.
func (o *Options) target() string {
	if o.Into != "" {
		return o.Into
	}
	return o.Out
}

// thisHost reports whether gen sizes for the machine it runs on.
func (o *Options) thisHost() bool { return o.FactsFile == "" && (o.CPUs == 0 || o.Memory == "") }

// generation is one run of gen: what it read and decided so far.
type generation struct {
	o       *Options
	notes   io.Writer
	prof    *templates.Profile
	facts   *host.Facts
	version knowledge.Version
	lay     *templates.Layout
	ex      *existingTree
	in      templates.Input
}

// Run does what o asks: it renders the files, checks them, and with Out or
// Into writes them (with Diff, shows what would change instead). It returns
// the files it rendered: without a target, for the caller to print. An
// error is one line; nothing is written when it says so.
func Run(o Options) ([]templates.File, error) {
	g := &generation{o: &o, notes: o.Notes}
	if g.notes == nil {
		g.notes = io.Discard
	}
	if o.Output == nil {
		o.Output = io.Discard
	}
	if err := g.read(); err != nil {
		return nil, err
	}
	if err := g.inputs(); err != nil {
		return nil, err
	}
	files, plan, err := templates.Render(g.prof, g.facts, g.version, g.in)
	if err != nil {
		return nil, err
	}
	if o.Out != "" {
		if err := distributionConf(filepath.Join(o.Out, "nginx.conf")); err != nil {
			return nil, fmt.Errorf("%v; nothing written", err)
		}
	}
	// --tune-main: the tree's files that hold the main numbers, changed
	edits, err := g.tuneMain(plan)
	if err != nil {
		return nil, err
	}
	target := o.target()
	if o.Verify {
		trusted := o.NginxTest || (target != "" && o.Live)
		var theirs []templates.File
		for _, e := range edits {
			theirs = append(theirs, templates.File{Path: e.rel, Content: string(e.data), Mode: 0o644})
		}
		if err := verifyOutput(g.notes, files, theirs, g.version, target, trusted, g.lay, g.ex != nil); err != nil {
			return nil, fmt.Errorf("%v; nothing written", err)
		}
	}
	if target == "" {
		return files, nil
	}
	return files, g.write(files, edits)
}

// read reads the profile, the facts, the nginx version and, with Into, the
// tree, and picks the layout.
func (g *generation) read() error {
	o := g.o
	var err error
	switch {
	case o.ProfileFile != "" && o.Profile != "":
		return errors.New("give --profile or --profile-file, not both")
	case o.ProfileFile != "":
		b, rerr := boundedread.File(o.ProfileFile, 1<<20, "")
		if rerr != nil {
			return fmt.Errorf("--profile-file: %v", unwrap(rerr))
		}
		g.prof, err = templates.ParseProfile(b, o.ProfileFile)
	case o.Profile != "":
		g.prof, err = templates.LoadProfile(o.Profile)
	default:
		return fmt.Errorf("--profile is required (%s)", strings.Join(templates.Profiles(), ", "))
	}
	if err != nil {
		return err
	}
	if o.Diff && o.Out == "" && o.Into == "" {
		return errors.New("--diff needs --out or --into DIR to compare with")
	}
	if g.facts, err = facts(o); err != nil {
		return err
	}
	if err := g.readVersion(); err != nil {
		return err
	}
	switch {
	case o.Into != "" && o.Out != "":
		return errors.New("give --out (a complete configuration) or --into (a site added to one), not both")
	case o.Into != "" && o.Diff:
		// --diff compares with what --into DIR holds
	case o.Into == "" && (o.TuneMain || o.OSRoot != ""):
		return errors.New("--tune-main and --os-root go with --into")
	}
	g.lay = templates.Layouts["prefix"]
	if o.Layout != "" {
		if g.lay, err = templates.LookupLayout(o.Layout); err != nil {
			return fmt.Errorf("--layout: %v", err)
		}
	}
	if o.Into != "" {
		if g.ex, err = loadExisting(o.Into, o.Layout, o.Live); err != nil {
			return err
		}
		g.lay = g.ex.layout
		fmt.Fprintf(g.notes, "nginxtune: layout %s (%s)\n", g.lay.Name, g.ex.why)
	}
	return nil
}

// readVersion picks the nginx version to write for: the one asked, the
// facts', the installed nginx's (unless the facts are of another host), or
// DefaultVersion; it says which unless it was asked.
func (g *generation) readVersion() error {
	o, facts := g.o, g.facts
	version, versionWhy := knowledge.Version{}, ""
	var err error
	switch {
	case o.NginxVersion != "":
		if version, err = knowledge.ParseVersion(o.NginxVersion); err != nil {
			return fmt.Errorf("--nginx-version: %v", err)
		}
	case facts.NginxVersion.Known():
		version, err = knowledge.ParseVersion(facts.NginxVersion.Value)
		versionWhy = "from " + facts.NginxVersion.Source
	default:
		// whatever sizing flags say, the nginx installed here reads the
		// output unless the facts describe another host
		if bin := nginxcheck.Binary(); bin != "" && o.FactsFile == "" {
			if out := nginxcheck.Version(bin); out != "" {
				version, err = knowledge.ParseVersion(out)
				versionWhy = "the installed " + bin
			}
		}
	}
	if !version.Known() || err != nil {
		version, versionWhy = knowledge.MustVersion(DefaultVersion), "no nginx version given or installed: writing for the current stable "+DefaultVersion
	}
	if versionWhy != "" {
		fmt.Fprintf(g.notes, "nginxtune: nginx %s (%s)\n", version, versionWhy)
	}
	g.version = version
	return nil
}

// inputs works out what the templates are given: the options, the user,
// the backend and TLS, brotli and, with Into, what the tree has already.
func (g *generation) inputs() error {
	o, ex, lay := g.o, g.ex, g.lay
	user := o.User
	switch {
	case user != "":
	case ex != nil && ex.user != "":
		user = ex.user
	case o.Layout == "" && o.thisHost():
		user = defaultUser("/etc/passwd")
	}
	g.in = templates.Input{ServerNames: o.ServerNames, User: user, Root: o.Root, Upstreams: o.Upstreams, ACME: o.ACME, ACMERoot: o.ACMERoot,
		Layout: lay, Site: o.Site, NoSecurityHeaders: o.NoSecurityHeaders, CSP: o.CSP, HSTSSubdomains: o.HSTSSubdomains || o.HSTSPreload,
		HSTSPreload: o.HSTSPreload, TLSProfile: o.TLSProfile, WWWRedirect: o.WWWRedirect}
	if target := o.target(); target != "" {
		if abs, err := filepath.Abs(target); err == nil && (abs == "/etc/nginx" || strings.HasPrefix(abs, "/etc/")) {
			g.in.ConfDir = abs
		}
	}
	if err := backendInputs(o, g.prof, &g.in); err != nil {
		return err
	}
	if len(o.Upstreams) > 0 && g.prof.Kind == templates.Static {
		return fmt.Errorf("--upstream: profile %s serves files and has no backend", g.prof.Name)
	}
	var err error
	if g.in.Brotli, g.in.BrotliStatic, g.in.BrotliWhy, err = brotliFor(o, g.facts, lay, ex); err != nil {
		return err
	}
	if ex != nil {
		ex.survey(templates.OwnPaths(lay, templates.SiteName(g.in)))
		ex.facts.TuneMain = o.TuneMain
		g.in.Existing = &ex.facts
	}
	return nil
}

// facts reads the facts to size for, with the options' overrides applied.
func facts(o *Options) (*host.Facts, error) {
	var facts *host.Facts
	if o.FactsFile != "" {
		hf, err := host.LoadFile(o.FactsFile)
		if err != nil {
			return nil, fmt.Errorf("--facts: %v", err)
		}
		facts = hf
	} else if o.CPUs == 0 || o.Memory == "" {
		facts = host.ReadRoot("/")
	} else {
		facts = &host.Facts{}
	}
	if err := facts.Override(o.CPUs, o.CPUsSet, o.Memory, o.NoFile); err != nil {
		return nil, err
	}
	return facts, nil
}

// unwrap names the path of a *fs.PathError once: "PATH: what went wrong".
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// distributionIncludes are what distributions' nginx.conf include: the
// dynamic modules, and the directories their sites live in.
var distributionIncludes = []string{"modules-enabled", "sites-enabled", "conf.d", "default.d"}

// distributionConf refuses to replace an nginx.conf that gen did not write
// and that includes a distribution's directories: gen's own nginx.conf
// would drop them, and with them the dynamic modules and every site they
// load. --force does not change that.
func distributionConf(p string) error {
	b, err := boundedread.File(p, 1<<20, "")
	if err != nil {
		return nil // nothing there (or nothing gen could read to replace)
	}
	if strings.HasPrefix(string(b), "# Written by nginxtune gen") {
		return nil
	}
	var found []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), ";"))
		if len(f) != 2 || f[0] != "include" {
			continue
		}
		for _, d := range distributionIncludes {
			if strings.Contains(f[1], d+"/") {
				found = append(found, f[1])
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("%s is not gen's: it includes %s, which gen's nginx.conf would drop with the modules and sites they load, even with --force; to add the site to this configuration, give --into %s instead of --out (--tune-main also sets its worker numbers)", p, untrusted.Escape(strings.Join(found, ", ")), untrusted.Escape(filepath.Dir(p)))
}
