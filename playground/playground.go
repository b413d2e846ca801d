// Package playground is what the browser page (web/, built by make web)
// asks of nginxtune, as plain Go calls over files held in memory: lint
// with each finding's explanation and fix, applying a fix, route, fmt and
// gen. Every answer comes from the same library packages the command line
// uses (loader.LoadFS, rules, route, report, format, templates); this
// package only carries files and results across. cmd/nginxtune-wasm
// registers these calls as JavaScript functions.
//
// Nothing here touches the machine: no file is read or written, nothing
// runs, and the host facts gen sizes for are the numbers given.
package playground

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/format"
	"github.com/nginxtune/nginxtune/host"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/report"
	"github.com/nginxtune/nginxtune/route"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
	"github.com/nginxtune/nginxtune/templates"
)

// File is one file of the configuration the page edits: its path
// relative to the tree ("nginx.conf", "conf.d/app.conf") and its text.
// The first file of a list is the main file, where nginx starts reading.
type File struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Limits of what the page hands over: a tree of at most MaxFiles files of
// MaxBytes in all (the loader bounds what the includes make of them).
const (
	MaxFiles = 256
	MaxBytes = 8 << 20
)

// load reads files as a tree, the first one its main file.
func load(files []File) (*loader.Tree, error) {
	if len(files) == 0 {
		return nil, errors.New("no file to read")
	}
	if len(files) > MaxFiles {
		return nil, fmt.Errorf("%d files: at most %d", len(files), MaxFiles)
	}
	fsys, total := fstest.MapFS{}, 0
	for _, f := range files {
		name := path.Clean(strings.TrimPrefix(f.Name, "/"))
		if !fs.ValidPath(name) || name == "." {
			return nil, fmt.Errorf("%q: not a file name in the tree", f.Name)
		}
		if _, dup := fsys[name]; dup {
			return nil, fmt.Errorf("%q: given twice", f.Name)
		}
		if total += len(f.Text); total > MaxBytes {
			return nil, fmt.Errorf("more than %d MiB of configuration", MaxBytes>>20)
		}
		fsys[name] = &fstest.MapFile{Data: []byte(f.Text), Mode: 0o644}
	}
	return loader.LoadFS(fsys, path.Clean(strings.TrimPrefix(files[0].Name, "/")), loader.Options{})
}

// name is the page's name of a file of the tree (LoadFS's paths begin
// with "/").
func name(p string) string { return strings.TrimPrefix(p, "/") }

// Versions are the nginx versions lint knows, oldest first: the page's
// choices besides "every version".
func Versions() []string { return knowledge.CoreVersions() }

// config is the lint configuration for version ("": every version
// nginxtune knows, as lint without --nginx-version and no nginx installed).
func config(version string) (engine.Config, error) {
	var cfg engine.Config
	if version != "" {
		v, err := knowledge.ParseVersion(version)
		if err != nil {
			return cfg, fmt.Errorf("nginx version %q: %v", version, err)
		}
		cfg.Version = v
	}
	return cfg, nil
}

// Finding is one finding as the page shows it.
type Finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	EndLine  int    `json:"endLine"`
	Message  string `json:"message"`
	// FixTitle says what applying the finding's fix does; empty when it
	// has none.
	FixTitle string `json:"fixTitle,omitempty"`
}

// Doc is a rule's documentation as nginxtune rules --explain gives it.
type Doc struct {
	Title string `json:"title"`
	Why   string `json:"why"`
	Fix   string `json:"fix"`
}

// LintResult is lint's answer: the findings in file order, the
// documentation of each rule among them (once, however many findings it
// has: what reading the tree reports has none), and the nginx version
// they are for, said as the command says it.
type LintResult struct {
	Findings []Finding      `json:"findings"`
	Docs     map[string]Doc `json:"docs"`
	Assumed  string         `json:"assumed"`
	NotShown int            `json:"notShown,omitempty"`
}

// diagnose runs the rules over files, as lint does over a tree.
func diagnose(files []File, version string) ([]finding.Diagnostic, int, error) {
	cfg, err := config(version)
	if err != nil {
		return nil, 0, err
	}
	t, err := load(files)
	if err != nil {
		return nil, 0, err
	}
	diags, notShown := rules.RunCounted(t, cfg)
	return diags, notShown, nil
}

// Lint runs every rule over files for version ("": every version).
func Lint(files []File, version string) (LintResult, error) {
	diags, notShown, err := diagnose(files, version)
	if err != nil {
		return LintResult{}, err
	}
	cfg, _ := config(version)
	from := ""
	if cfg.Version.Known() {
		from = "chosen on the page"
	}
	res := LintResult{Findings: make([]Finding, 0, len(diags)), Docs: map[string]Doc{}, NotShown: notShown,
		Assumed: strings.Replace(rules.Assumed(cfg.Version, from), "set one with --nginx-version or nginx-version: in .nginxtune.yaml", "choose one above", 1)}
	for _, d := range diags {
		f := Finding{Rule: d.Rule, Severity: d.Severity.String(), File: name(d.File), Line: d.Line, Col: d.Col,
			EndLine: d.EndLine, Message: d.Message}
		if _, done := res.Docs[d.Rule]; !done {
			if r := rules.ByID(d.Rule); r != nil {
				res.Docs[d.Rule] = Doc{Title: r.Title, Why: strings.TrimSpace(r.Why), Fix: strings.TrimSpace(r.Fix)}
			}
		}
		if d.Fix != nil && len(d.Fix.Edits) > 0 {
			f.FixTitle = d.Fix.Description
			if f.FixTitle == "" {
				f.FixTitle = "apply the fix"
			}
		}
		res.Findings = append(res.Findings, f)
	}
	return res, nil
}

// ApplyFix applies the fix of the index-th finding Lint returns for the
// same files and version, and returns the files with it applied (the
// others as they were), as the language server's code action does.
func ApplyFix(files []File, version string, index int) ([]File, error) {
	diags, _, err := diagnose(files, version)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(diags) || diags[index].Fix == nil || len(diags[index].Fix.Edits) == 0 {
		return nil, fmt.Errorf("finding %d has no fix", index)
	}
	byFile := map[string][]finding.Edit{}
	for _, e := range diags[index].Fix.Edits {
		byFile[name(e.File)] = append(byFile[name(e.File)], e)
	}
	out := make([]File, len(files))
	copy(out, files)
	for i, f := range out {
		edits := byFile[path.Clean(strings.TrimPrefix(f.Name, "/"))]
		if len(edits) == 0 {
			continue
		}
		sort.SliceStable(edits, func(a, b int) bool { return edits[a].Start < edits[b].Start })
		b, err := engine.ApplyEdits([]byte(f.Text), edits)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.Name, err)
		}
		out[i].Text = string(b)
	}
	return out, nil
}

// Route answers which server and location of files answer url, and what
// they do, as nginxtune route prints it (with all, every location of the
// server and why it did or did not answer).
func Route(files []File, url string, all bool) (string, error) {
	req, err := route.ParseRequest(url)
	if err != nil {
		return "", err
	}
	t, err := load(files)
	if err != nil {
		return "", err
	}
	if d := route.Refused(t); d != nil {
		return "", fmt.Errorf("%s:%d:%d: %s (nginx would not load this configuration)", name(d.File), d.Line, d.Col, d.Message)
	}
	cfg := route.Build(t)
	if len(cfg.Servers) == 0 {
		return "", errors.New("no http server blocks")
	}
	fileName := func(f *parser.File) string { return name(route.FileName(f)) }
	res := cfg.Route(req, route.Options{Prefix: t.Dir, Name: fileName})
	res.Unknown = append(res.Unknown, route.Unseen(t, name)...)
	var b bytes.Buffer
	if err := report.RouteText(&b, &req, res, report.RouteOptions{All: all, Name: fileName}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Fmt formats one file as nginxtune fmt does with no settings.
func Fmt(f File) (string, error) {
	pf, diag := parser.Parse(f.Name, []byte(f.Text))
	if diag != nil {
		return "", fmt.Errorf("%s:%d:%d: %s (not formatted)", f.Name, diag.Line, diag.Col, diag.Message)
	}
	b, err := format.Source(pf, format.Options{})
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// GenOptions are gen's inputs the page offers: the flags of the same
// names. CPUs and Memory are required: the page has no host to read.
type GenOptions struct {
	Profile      string   `json:"profile"`
	ServerNames  []string `json:"serverNames"`
	CPUs         int      `json:"cpus"`
	Memory       string   `json:"memory"`
	NoFile       string   `json:"nofile,omitempty"`
	TLS          string   `json:"tls,omitempty"` // CERT,KEY
	Upstreams    []string `json:"upstreams,omitempty"`
	NginxVersion string   `json:"nginxVersion,omitempty"`
	Layout       string   `json:"layout,omitempty"`
}

// GenFile is one file gen writes (Link: a symbolic link to that path).
type GenFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Link    string `json:"link,omitempty"`
}

// GenResult is gen's answer: the files and why each sized number is what
// it is.
type GenResult struct {
	Files   []GenFile `json:"files"`
	Explain []string  `json:"explain"`
	Version string    `json:"version"`
}

// Profiles are gen's profiles and presets.
func Profiles() []string { return templates.Profiles() }

// Gen renders gen's files for o, as nginxtune gen --profile ... --cpus N
// --memory M prints them (without --out: nothing is checked against a
// tree on disk, no nginx -t runs; brotli is off, as for facts of another
// host without the modules).
func Gen(o GenOptions) (GenResult, error) {
	prof, err := templates.LoadProfile(o.Profile)
	if err != nil {
		return GenResult{}, err
	}
	if o.CPUs == 0 || o.Memory == "" {
		return GenResult{}, errors.New("give the CPUs and the memory to size for")
	}
	facts := &host.Facts{}
	if err := facts.Override(o.CPUs, true, o.Memory, o.NoFile); err != nil {
		return GenResult{}, err
	}
	vs := o.NginxVersion
	if vs == "" {
		vs = templates.DefaultVersion
	}
	v, err := knowledge.ParseVersion(vs)
	if err != nil {
		return GenResult{}, fmt.Errorf("--nginx-version: %v", err)
	}
	lay := templates.Layouts["prefix"]
	if o.Layout != "" {
		if lay, err = templates.LookupLayout(o.Layout); err != nil {
			return GenResult{}, fmt.Errorf("--layout: %v", err)
		}
	}
	in := templates.Input{ServerNames: o.ServerNames, Upstreams: o.Upstreams, Layout: lay, TLSProfile: "intermediate"}
	if o.TLS != "" {
		if in.TLS, err = templates.ParseTLS(o.TLS); err != nil {
			return GenResult{}, err
		}
	}
	if len(o.Upstreams) > 0 && prof.Kind == "static" {
		return GenResult{}, fmt.Errorf("--upstream: profile %s serves files and has no backend", prof.Name)
	}
	files, plan, err := templates.Render(prof, facts, v, in)
	if err != nil {
		return GenResult{}, err
	}
	res := GenResult{Version: v.String(), Explain: explain(plan)}
	for _, f := range files {
		if f.Stock {
			continue // nginxtune's own copy of a distribution file, written only with --out
		}
		res.Files = append(res.Files, GenFile{Path: f.Path, Content: f.Content, Link: f.Link})
	}
	return res, nil
}

// explain lists each sized number of plan with its reason.
func explain(pl templates.Plan) []string {
	var out []string
	add := func(what string, n any, why string) {
		if why != "" {
			out = append(out, fmt.Sprintf("%s %v: %s", what, n, why))
		}
	}
	add("worker_processes", pl.Workers, pl.WorkersWhy)
	add("worker_connections", pl.WorkerConnections, pl.ConnectionsWhy)
	add("worker_rlimit_nofile", pl.RlimitNofile, pl.RlimitWhy)
	add("open_file_cache max=", pl.OpenFileCache, pl.OpenFileCacheWhy)
	add("ssl_session_cache (MB)", pl.SessionCacheMB, pl.SessionCacheWhy)
	add("keepalive (upstream)", pl.UpstreamKeepalive, pl.KeepaliveWhy)
	add("listen backlog=", pl.Backlog, pl.BacklogWhy)
	add("keepalive (FastCGI)", pl.FastCGIPool, pl.FastCGIPoolWhy)
	add("pcre_jit", onOff(pl.PCREJIT), pl.PCREJITWhy)
	for _, s := range pl.Sysctls {
		add(s.Key, s.Value, s.Why)
	}
	out = append(out, pl.SysctlNotes...)
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
