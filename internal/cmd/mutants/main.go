// Command mutants measures how often nginxtune's lint agrees with nginx -t:
// it mutates configurations real nginx accepts (one change each: an
// argument dropped or added, a flag given "yes", a name misspelled, a
// directive hoisted to the top of its file, a line repeated, a ";"
// removed, an unknown block, a directive of a newer nginx), asks the
// installed nginx -t about every mutant, lints it for the same version, and
// prints the agreement per kind of change:
//
//   - nginx rejects: nginxtune agrees when it reports an error at the line
//     nginx names (the directive's first to last line);
//   - nginx accepts: an error from nginxtune is a false error.
//
// Run as root (nginx -t opens the log files a configuration names) with
// Debian's nginx installed:
//
//	go run ./internal/cmd/mutants -corpus ../shared/corpus -n 700 -seed 1
//
// The corpus is ../shared/corpus with its nginx-t-verdicts.tsv: only files
// nginx accepted there are mutated, and only those whose log, pid and temp
// paths stay in nginx's usual directories, so nginx -t writes nowhere else.
// "make mutants" runs it; docs/directives.md holds the latest table.
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/nginxcheck"
	"github.com/nginxtune/nginxtune/knowledge"
	"github.com/nginxtune/nginxtune/loader"
	"github.com/nginxtune/nginxtune/parser"
	"github.com/nginxtune/nginxtune/rules"
	"github.com/nginxtune/nginxtune/rules/engine"
)

type base struct {
	path, wrap string
	src        []byte
}

type mutant struct {
	kind string
	from string
	src  []byte
}

// outcome of one mutant
type outcome struct {
	kind                 string
	rejected, agree, fls bool
	// warned: no error at nginx's line, but a warning there that says
	// nginx -t fails unless the build differs (an unknown name far from
	// every known one: a module nginxtune does not know is likelier)
	warned bool
	detail string
}

func main() {
	corpus := flag.String("corpus", "../shared/corpus", "the corpus directory (with nginx-t-verdicts.tsv)")
	n := flag.Int("n", 700, "mutants to make")
	seed := flag.Int64("seed", 1, "random seed (same seed, same mutants)")
	version := flag.String("nginx-version", "1.22.1", "the version lint judges for (the installed nginx's)")
	verbose := flag.Bool("v", false, "list every disagreement")
	flag.Parse()
	bin := nginxcheck.Binary()
	if bin == "" || os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "mutants: needs root and an installed nginx")
		os.Exit(2)
	}
	bases, err := loadBases(*corpus)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	rng := rand.New(rand.NewSource(*seed))
	v := knowledge.MustVersion(*version)
	cfg := engine.Config{Version: v, Disabled: map[string]bool{}}
	for _, r := range rules.All {
		if !rules.NginxRefuses(r.ID) {
			cfg.Disabled[r.ID] = true
		}
	}
	tmp, err := os.MkdirTemp("", "nginxtune-mutants-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(tmp)
	nginxcheck.StockFiles(tmp)
	var outs []outcome
	// a base must pass this nginx -t as it is (the verdicts' nginx may
	// have had other modules)
	passes := map[string]bool{}
	for tries := 0; len(outs) < *n && tries < *n*20; tries++ {
		b := bases[rng.Intn(len(bases))]
		ok, seen := passes[b.path]
		if !seen {
			ok = nginxAccepts(bin, tmp, b)
			passes[b.path] = ok
		}
		if !ok {
			continue
		}
		m, ok := mutate(b, rng)
		if !ok {
			continue
		}
		outs = append(outs, judge(bin, tmp, b, m, cfg))
	}
	report(outs, *verbose, *seed, *version)
}

var (
	lineRe = regexp.MustCompile(`:(\d+)$`)
	// paths nginx -t may open: its usual directories
	safePath = regexp.MustCompile(`^(/var/log/nginx/|/run/|/var/run/|/var/cache/nginx|/var/lib/nginx|/tmp/|/dev/(null|stderr|stdout)$|stderr$|syslog:|off$|logs/|[^/])`)
	pathDirs = regexp.MustCompile(`^(access_log|error_log|pid|lock_file|\w+_temp_path|\w+_cache_path)$`)
)

// loadBases reads the corpus files nginx accepted, without includes of
// files other than the stock ones, and whose file paths stay in nginx's
// usual directories.
func loadBases(dir string) ([]base, error) {
	b, err := os.ReadFile(filepath.Join(dir, "nginx-t-verdicts.tsv"))
	if err != nil {
		return nil, err
	}
	var out []base
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) < 3 || f[1] != "1" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, f[0]))
		if err != nil {
			continue
		}
		p := filepath.Join(os.TempDir(), "nginxtune-base.conf")
		os.WriteFile(p, src, 0o644)
		t, err := loader.Load(p, loader.Options{})
		os.Remove(p)
		if err != nil || len(t.Diagnostics) > 0 {
			continue
		}
		safe := true
		t.Walk(func(d *parser.Directive, c *parser.Context) bool {
			if d.Name == "include" && !stock(d.Arg(0)) || d.Name == "load_module" || strings.HasPrefix(d.Name, "perl") || strings.Contains(d.Name, "lua") || strings.HasPrefix(d.Name, "js_") {
				safe = false
			}
			if pathDirs.MatchString(d.Name) && len(d.Args) > 0 && !safePath.MatchString(d.Arg(0)) {
				safe = false
			}
			return safe
		})
		if safe {
			out = append(out, base{path: f[0], wrap: f[2], src: src})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no usable corpus file in %s", dir)
	}
	return out, nil
}

func stock(p string) bool { return knowledge.IsPackageFile(filepath.Base(p)) }

// statements lists the directives of a file with their context.
type stmt struct {
	d   *parser.Directive
	ctx []string
}

func statements(b base) []stmt {
	p := filepath.Join(os.TempDir(), "nginxtune-mutant-parse.conf")
	os.WriteFile(p, withContext(b, b.src), 0o644)
	defer os.Remove(p)
	t, err := loader.Load(p, loader.Options{})
	if err != nil {
		return nil
	}
	var out []stmt
	t.Walk(func(d *parser.Directive, c *parser.Context) bool {
		if d.File == t.Roots[0] {
			out = append(out, stmt{d, append([]string(nil), c.Names...)})
		}
		return true
	})
	return out
}

// newer are directives nginx 1.22.1 lacks, with a context that has them
var newer = []struct{ ctx, text string }{
	{"server", "http2 on;"},
	{"http", "ssl_certificate_cache max=10;"},
	{"server", "quic_gso on;"},
	{"location", "proxy_ssl_certificate_cache off;"},
}

func mutate(b base, rng *rand.Rand) (mutant, bool) {
	sts := statements(b)
	if len(sts) == 0 {
		return mutant{}, false
	}
	src := string(b.src)
	st := sts[rng.Intn(len(sts))]
	d := st.d
	kinds := []string{"drop-arg", "add-arg", "flag-value", "misspell", "hoist", "duplicate", "missing-semicolon", "unknown-block", "newer-directive"}
	kind := kinds[rng.Intn(len(kinds))]
	edit := func(start, end int, text string) (mutant, bool) {
		return mutant{kind: kind, from: fmt.Sprintf("%s:%d", b.path, d.Line), src: []byte(src[:start] + text + src[end:])}, true
	}
	simple := d.Block == nil && d.Name != "include" && d.RawBody() == ""
	switch kind {
	case "drop-arg":
		if !simple || len(d.Args) == 0 {
			return mutant{}, false
		}
		a := d.Args[len(d.Args)-1]
		return edit(int(a.Offset)-1, int(a.Offset)+len(a.Raw), "")
	case "add-arg":
		if !simple {
			return mutant{}, false
		}
		return edit(int(d.End)-1, int(d.End)-1, " extra")
	case "flag-value":
		if !simple || len(d.Args) != 1 || d.Arg(0) != "on" && d.Arg(0) != "off" {
			return mutant{}, false
		}
		a := d.Args[0]
		return edit(int(a.Offset), int(a.Offset)+len(a.Raw), "yes")
	case "misspell":
		if len(d.Name) < 4 || d.Name == "include" {
			return mutant{}, false
		}
		i := 1 + rng.Intn(len(d.Name)-2)
		name := d.Name[:i] + d.Name[i+1:i+2] + d.Name[i:i+1] + d.Name[i+2:]
		if name == d.Name {
			return mutant{}, false
		}
		return edit(int(d.Start), int(d.Start)+len(d.Name), name)
	case "hoist":
		if !simple || len(st.ctx) < 3 {
			return mutant{}, false
		}
		// the directive again as the file's first statement
		first := sts[0].d
		return edit(int(first.Start), int(first.Start), src[d.Start:d.End]+"\n")
	case "duplicate":
		if !simple {
			return mutant{}, false
		}
		return edit(int(d.End), int(d.End), " "+src[d.Start:d.End])
	case "missing-semicolon":
		if !simple || src[d.End-1] != ';' {
			return mutant{}, false
		}
		return edit(int(d.End)-1, int(d.End), "")
	case "unknown-block":
		if d.Block == nil || d.BlockOpen < 0 {
			return mutant{}, false
		}
		return edit(int(d.BlockOpen)+1, int(d.BlockOpen)+1, " nginxtune_nothing { } ")
	case "newer-directive":
		nd := newer[rng.Intn(len(newer))]
		if d.Name != nd.ctx || d.Block == nil || d.BlockOpen < 0 {
			return mutant{}, false
		}
		return edit(int(d.BlockOpen)+1, int(d.BlockOpen)+1, " "+nd.text+" ")
	}
	return mutant{}, false
}

// withContext declares the context a fragment was tested in, as the
// verdicts' "wrap" column says, for nginxtune's reading.
func withContext(b base, src []byte) []byte {
	ctx := map[string]string{"http": "main,http", "server": "main,http,server", "location": "main,http,server,location"}[b.wrap]
	if ctx == "" {
		return src
	}
	return append(append([]byte(nil), src...), []byte("\n# nginxtune: context="+ctx+"\n")...)
}

// wrapper is the nginx.conf that includes a fragment where the verdicts
// tested it.
func wrapper(wrap, file string) string {
	switch wrap {
	case "http":
		return "events {}\nhttp {\n    include " + file + ";\n}\n"
	case "server":
		return "events {}\nhttp {\n    server {\n        include " + file + ";\n    }\n}\n"
	case "location":
		return "events {}\nhttp {\n    server {\n        location / {\n            include " + file + ";\n        }\n    }\n}\n"
	case "events":
		return "include " + file + ";\nevents {}\n"
	}
	return "include " + file + ";\n"
}

// nginxAccepts runs nginx -t on a base as it is.
func nginxAccepts(bin, tmp string, b base) bool {
	file := filepath.Join(tmp, "mutant.conf")
	os.WriteFile(file, b.src, 0o644)
	main := filepath.Join(tmp, "nginx.conf")
	os.WriteFile(main, []byte(wrapper(b.wrap, file)), 0o644)
	return nginxcheck.Run(bin, tmp, main).OK
}

func judge(bin, tmp string, b base, m mutant, cfg engine.Config) outcome {
	file := filepath.Join(tmp, "mutant.conf")
	os.WriteFile(file, m.src, 0o644)
	main := filepath.Join(tmp, "nginx.conf")
	os.WriteFile(main, []byte(wrapper(b.wrap, file)), 0o644)
	res := nginxcheck.Run(bin, tmp, main)
	o := outcome{kind: m.kind, rejected: !res.OK}
	// lint the mutant as nginxtune reads it
	lint := filepath.Join(tmp, "lint.conf")
	os.WriteFile(lint, withContext(b, m.src), 0o644)
	t, err := loader.Load(lint, loader.Options{})
	var errs, warns []finding.Diagnostic
	if err == nil {
		for _, d := range rules.Run(t, cfg) {
			switch {
			case d.File != t.Roots[0].Path:
			case d.Severity == finding.Error:
				errs = append(errs, d)
			case d.Severity == finding.Warning:
				warns = append(warns, d)
			}
		}
	}
	if !o.rejected {
		o.fls = len(errs) > 0
		if o.fls {
			o.detail = fmt.Sprintf("%s (%s): nginx accepts; nginxtune: %d: %s", m.from, m.kind, errs[0].Line, errs[0].Message)
		}
		return o
	}
	want := 0
	if res.File == file {
		want = res.Line
	} else if mm := lineRe.FindStringSubmatch(res.File + ":" + strconv.Itoa(res.Line)); mm != nil && res.File != main {
		want = res.Line
	}
	at := func(d finding.Diagnostic) bool {
		end := d.Line
		if d.EndLine > end {
			end = d.EndLine
		}
		return want == 0 || d.Line <= want && want <= end
	}
	for _, d := range errs {
		o.agree = o.agree || at(d)
	}
	for _, d := range warns {
		o.warned = o.warned || !o.agree && at(d) && strings.Contains(d.Message, "nginx -t fails")
	}
	if !o.agree && !o.warned {
		got := "nothing"
		if len(errs) > 0 {
			got = fmt.Sprintf("%d: %s", errs[0].Line, errs[0].Message)
		}
		o.detail = fmt.Sprintf("%s (%s): nginx: %s at %d; nginxtune: %s", m.from, m.kind, res.Message, want, got)
	}
	return o
}

func report(outs []outcome, verbose bool, seed int64, version string) {
	type row struct{ rejected, agree, warned, accepted, fls int }
	rows := map[string]*row{}
	total := &row{}
	for _, o := range outs {
		r := rows[o.kind]
		if r == nil {
			r = &row{}
			rows[o.kind] = r
		}
		for _, x := range []*row{r, total} {
			if o.rejected {
				x.rejected++
				if o.agree {
					x.agree++
				}
				if o.warned {
					x.warned++
				}
			} else {
				x.accepted++
				if o.fls {
					x.fls++
				}
			}
		}
	}
	var kinds []string
	for k := range rows {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	pct := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f %%", 100*float64(a)/float64(b))
	}
	fmt.Printf("%d mutants (seed %d), nginx -t of the installed nginx, lint for %s\n\n", len(outs), seed, version)
	fmt.Println("| change | nginx rejects | an error at nginx's line | a warning there instead | agreement | nginx accepts | false errors |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, k := range kinds {
		r := rows[k]
		fmt.Printf("| %s | %d | %d | %d | %s | %d | %d |\n", k, r.rejected, r.agree, r.warned, pct(r.agree+r.warned, r.rejected), r.accepted, r.fls)
	}
	fmt.Printf("| all | %d | %d | %d | %s | %d | %d |\n", total.rejected, total.agree, total.warned, pct(total.agree+total.warned, total.rejected), total.accepted, total.fls)
	if verbose {
		fmt.Println()
		for _, o := range outs {
			if o.detail != "" {
				fmt.Println("  " + o.detail)
			}
		}
	}
}
