// Command gen writes knowledge/directives.tsv, the table of nginx
// directives, from nginx's own source code: the ngx_command_t arrays of the
// core and of every module, for each nginx version given, and of the
// third-party modules Debian ships. scripts/nginx-sources.sh fetches the
// sources; "make directives" runs both.
//
//	go run ./knowledge/gen SRCDIR > knowledge/directives.tsv
//
// SRCDIR holds nginx-X.Y/ (an nginx source tree below it) and mod-NAME/
// directories. Nothing of the sources is copied: each row records a
// directive's name, the contexts its type flags allow, its argument flags,
// whether nginx refuses it twice in one block, whether it takes on/off,
// and the versions or modules that have it.
package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// contextOf maps the type flags of a command to nginxtune's context keys.
var contextOf = map[string][]string{
	"NGX_MAIN_CONF": {"main"}, "NGX_DIRECT_CONF": nil, "NGX_ANY_CONF": {"any"},
	"NGX_EVENT_CONF":     {"events"},
	"NGX_HTTP_MAIN_CONF": {"http"}, "NGX_HTTP_SRV_CONF": {"server"}, "NGX_HTTP_LOC_CONF": {"location"},
	"NGX_HTTP_UPS_CONF": {"upstream"}, "NGX_HTTP_SIF_CONF": {"if-server"}, "NGX_HTTP_LIF_CONF": {"if-location"},
	"NGX_HTTP_LMT_CONF":    {"limit_except"},
	"NGX_STREAM_MAIN_CONF": {"stream"}, "NGX_STREAM_SRV_CONF": {"stream-server"}, "NGX_STREAM_UPS_CONF": {"stream-upstream"},
	"NGX_MAIL_MAIN_CONF": {"mail"}, "NGX_MAIL_SRV_CONF": {"mail-server"},
	"NGX_RTMP_MAIN_CONF": {"rtmp"}, "NGX_RTMP_SRV_CONF": {"rtmp-server"}, "NGX_RTMP_APP_CONF": {"rtmp-application"},
	"NGX_RTMP_REC_CONF": {"rtmp-recorder"},
}

// argFlags are the argument-count flags nginx checks (ngx_conf_handler).
var argFlags = map[string]string{
	"NGX_CONF_NOARGS": "NOARGS", "NGX_CONF_TAKE1": "TAKE1", "NGX_CONF_TAKE2": "TAKE2", "NGX_CONF_TAKE3": "TAKE3",
	"NGX_CONF_TAKE4": "TAKE4", "NGX_CONF_TAKE5": "TAKE5", "NGX_CONF_TAKE6": "TAKE6", "NGX_CONF_TAKE7": "TAKE7",
	"NGX_CONF_TAKE12": "TAKE1|TAKE2", "NGX_CONF_TAKE13": "TAKE1|TAKE3", "NGX_CONF_TAKE23": "TAKE2|TAKE3",
	"NGX_CONF_TAKE123": "TAKE1|TAKE2|TAKE3", "NGX_CONF_TAKE1234": "TAKE1|TAKE2|TAKE3|TAKE4",
	"NGX_CONF_FLAG": "FLAG", "NGX_CONF_1MORE": "1MORE", "NGX_CONF_2MORE": "2MORE", "NGX_CONF_ANY": "ANY",
	"NGX_CONF_BLOCK": "BLOCK",
}

// onceSlots are the standard handlers that refuse a second occurrence.
var onceSlots = map[string]bool{
	"ngx_conf_set_flag_slot": true, "ngx_conf_set_str_slot": true, "ngx_conf_set_num_slot": true,
	"ngx_conf_set_size_slot": true, "ngx_conf_set_off_slot": true, "ngx_conf_set_msec_slot": true,
	"ngx_conf_set_sec_slot": true, "ngx_conf_set_bufs_slot": true, "ngx_conf_set_enum_slot": true,
	"ngx_conf_set_path_slot": true,
	// the complex-value slots of ngx_http_script.c and ngx_stream_script.c
	// (auth_basic, proxy_method, ...): "is duplicate" when set twice
	"ngx_http_set_complex_value_slot": true, "ngx_http_set_complex_value_zero_slot": true,
	"ngx_http_set_complex_value_size_slot": true, "ngx_stream_set_complex_value_slot": true,
	"ngx_stream_set_complex_value_zero_slot": true, "ngx_stream_set_complex_value_size_slot": true,
}

var (
	commandArray = regexp.MustCompile(`(?s)ngx_command_t\s+\w+\[\]\s*=\s*\{(.*?)\n\s*ngx_null_command`)
	commandEntry = regexp.MustCompile(`(?s)\{\s*ngx_string\s*\(\s*"([^"]+)"\s*\)\s*,\s*([A-Za-z0-9_|\s]+?)\s*,\s*([A-Za-z0-9_]+)\s*,`)
)

type row struct {
	name, module, contexts, args string
	once, flag                   bool
	// values are the words an enum or bitmask slot takes
	// ("enum:off|on|always", "bitmask:SSLv2|...|TLSv1.3"), "" for others
	values string
	// def is the default, as nginx's documentation writes it ("" when the
	// source does not give a plain value)
	def  string
	from []string
}

// valueSlots are the standard handlers that parse their argument as a
// size (ngx_parse_size), an offset (ngx_parse_offset), a time
// (ngx_parse_time, in milliseconds or seconds), a number (ngx_atoi), or a
// count and a size (bufs).
var valueSlots = map[string]string{
	"ngx_conf_set_size_slot": "size", "ngx_conf_set_off_slot": "off", "ngx_conf_set_msec_slot": "msec",
	"ngx_conf_set_sec_slot": "sec", "ngx_conf_set_num_slot": "num", "ngx_conf_set_bufs_slot": "bufs",
}

var (
	// the post field of a command: the last before its closing brace
	commandPost = regexp.MustCompile(`(?s)^[^}]*?,\s*&?\s*([A-Za-z0-9_]+)\s*\}`)
	enumArray   = regexp.MustCompile(`(?s)ngx_conf_(enum|bitmask)_t\s+([A-Za-z0-9_]+)\[\]\s*=\s*\{(.*?)\n\s*\};`)
	enumWord    = regexp.MustCompile(`ngx_string\s*\(\s*"([^"]+)"\s*\)`)
)

// valuesOf returns the words of the enum or bitmask array a command's post
// field names, when its handler is the standard enum or bitmask slot.
func valuesOf(text, handler, entryRest string) string {
	// the standard slots that parse a size, a time or a number
	if slot, ok := valueSlots[handler]; ok {
		return "slot:" + slot
	}
	kind := map[string]string{"ngx_conf_set_enum_slot": "enum", "ngx_conf_set_bitmask_slot": "bitmask"}[handler]
	if kind == "" {
		return ""
	}
	m := commandPost.FindStringSubmatch(entryRest)
	if m == nil {
		return ""
	}
	for _, a := range enumArray.FindAllStringSubmatch(text, -1) {
		if a[2] != m[1] {
			continue
		}
		var words []string
		for _, w := range enumWord.FindAllStringSubmatch(a[3], -1) {
			words = append(words, w[1])
		}
		if len(words) == 0 {
			return ""
		}
		return kind + ":" + strings.Join(words, "|")
	}
	return ""
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command: it writes the table to stdout and returns the exit
// code (2 for a usage or read error, with the message on stderr).
func run(args []string, stdout, stderr io.Writer) int {
	var err error
	switch {
	case len(args) == 2 && args[0] == "-variables":
		err = variables(args[1], stdout)
	case len(args) == 1:
		err = directives(args[0], stdout)
	default:
		fmt.Fprintln(stderr, "usage: gen SRCDIR | gen -variables SRCDIR")
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	return 0
}

// directives writes the directive table of the sources below src.
func directives(src string, out io.Writer) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	rows := map[string]*row{}
	var sources []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		from, root := label(filepath.Join(src, e.Name()), e.Name())
		if from == "" {
			continue
		}
		sources = append(sources, from)
		if err := scan(root, from, rows); err != nil {
			return err
		}
		if err := scanPatches(filepath.Join(src, e.Name()), from, rows); err != nil {
			return err
		}
	}
	sort.Strings(sources)
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w := bufio.NewWriter(out)
	fmt.Fprintln(w, "# nginx directives, generated by knowledge/gen from nginx's source code; do not edit (make directives).")
	fmt.Fprintf(w, "# sources: %s\n", strings.Join(sources, ", "))
	// the context keys in the order rows first name them, so that a reader
	// numbers them without scanning every row
	var contexts []string
	seen := map[string]bool{}
	for _, k := range keys {
		for _, c := range strings.Split(rows[k].contexts, ",") {
			if !seen[c] && c != "any" {
				seen[c] = true
				contexts = append(contexts, c)
			}
		}
	}
	fmt.Fprintf(w, "# contexts: %s\n", strings.Join(contexts, ","))
	fmt.Fprintln(w, "# name\tcontexts\targs\tonce\tflag\tmodule\tfrom\tvalues\tdefault")
	for _, k := range keys {
		r := rows[k]
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.name, r.contexts, r.args, yn(r.once), yn(r.flag), r.module, strings.Join(r.from, ","), r.values, r.def)
	}
	return w.Flush()
}

func yn(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// label names a source directory: "nginx-1.22.1" for an nginx tree (the
// version from src/core/nginx.h), "MODULE-VERSION" for a module.
func label(dir, name string) (string, string) {
	if strings.HasPrefix(name, "nginx-") {
		hs, _ := filepath.Glob(filepath.Join(dir, "*", "src", "core", "nginx.h"))
		if len(hs) == 0 {
			return "", ""
		}
		b, _ := os.ReadFile(hs[0])
		m := regexp.MustCompile(`#define NGINX_VERSION\s+"([^"]+)"`).FindSubmatch(b)
		if m == nil {
			return "", ""
		}
		return "nginx-" + string(m[1]), filepath.Dir(filepath.Dir(filepath.Dir(hs[0])))
	}
	if strings.HasPrefix(name, "mod-") {
		origin, _ := os.ReadFile(filepath.Join(dir, ".origin"))
		v := strings.TrimSpace(string(origin))
		if i := strings.Index(v, "_"); i >= 0 {
			v = v[i+1:]
		}
		v = strings.SplitN(v, ".orig", 2)[0]
		return strings.TrimPrefix(name, "mod-") + "-" + v, dir
	}
	return "", ""
}

func scan(root, from string, rows map[string]*row) error {
	defs := defines(root)
	return eachSource(root, func(p, text string) {
		module := strings.TrimSuffix(filepath.Base(p), ".c")
		var arrays []string
		for _, arr := range commandArray.FindAllStringSubmatch(text, -1) {
			arrays = append(arrays, arr[1])
		}
		add(rows, from, module, text, arrays, defs)
	})
}

// eachSource calls fn with every C source file below root, leaving out
// Debian's packaging and the test suites.
func eachSource(root string, fn func(path, text string)) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "debian" || d.Name() == "t" || d.Name() == "test" || d.Name() == "tests") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".c") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fn(p, string(b))
		return nil
	})
}

// scanPatches reads the directives Debian's patches add (debian/patches
// beside the nginx tree): Debian's nginx has them though upstream's
// release does not (max_headers in 1.22.1, from a security fix).
func scanPatches(dir, from string, rows map[string]*row) error {
	patches, _ := filepath.Glob(filepath.Join(dir, "debian", "patches", "*.patch"))
	for _, p := range patches {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		module, added := "", []string{}
		flush := func() {
			if module != "" && len(added) > 0 {
				text := strings.Join(added, "\n")
				add(rows, from, module, text, []string{text}, nil)
			}
			added = nil
		}
		for _, line := range strings.Split(string(b), "\n") {
			if t, ok := strings.CutPrefix(line, "+++ "); ok {
				flush()
				module = strings.TrimSuffix(filepath.Base(strings.Fields(t + " ")[0]), ".c")
				continue
			}
			if strings.HasPrefix(line, "+") {
				added = append(added, line[1:])
			}
		}
		flush()
	}
	return nil
}

func add(rows map[string]*row, from, module, text string, arrays []string, defs map[string]int64) {
	{
		for _, arr := range arrays {
			for _, idx := range commandEntry.FindAllStringSubmatchIndex(arr, -1) {
				m := []string{arr[idx[0]:idx[1]], arr[idx[2]:idx[3]], arr[idx[4]:idx[5]], arr[idx[6]:idx[7]]}
				name, flags, handler := m[1], m[2], m[3]
				values := valuesOf(text, handler, arr[idx[1]:])
				var ctxs, args []string
				seen := map[string]bool{}
				for _, f := range strings.Split(flags, "|") {
					f = strings.TrimSpace(f)
					if cs, ok := contextOf[f]; ok {
						for _, c := range cs {
							if !seen[c] {
								seen[c] = true
								ctxs = append(ctxs, c)
							}
						}
					} else if a, ok := argFlags[f]; ok {
						args = append(args, a)
					}
				}
				if len(ctxs) == 0 {
					continue
				}
				once := onceSlots[handler] || handlerRefusesTwice(text, handler)
				flag := handler == "ngx_conf_set_flag_slot"
				def := defaultOf(text, handler, arr[idx[1]:], defs)
				r := &row{name: name, module: module, contexts: strings.Join(ctxs, ","), args: strings.Join(args, "|"), once: once, flag: flag, values: values, def: def}
				key := strings.Join([]string{r.name, r.contexts, r.args, yn(r.once), yn(r.flag), r.module, r.values, r.def}, "\t")
				if old, ok := rows[key]; ok {
					if old.from[len(old.from)-1] != from {
						old.from = append(old.from, from)
					}
					continue
				}
				r.from = []string{from}
				rows[key] = r
			}
		}
	}
}

// handlerRefusesTwice reports whether a command's handler, defined in the
// same file, refuses a second occurrence: it returns nginx's "is
// duplicate" error and does not collect occurrences into an array (such
// handlers, like limit_req's or proxy_redirect's, refuse only some
// combinations, "off" after a value and the like).
func handlerRefusesTwice(text, handler string) bool {
	re := regexp.MustCompile(`(?ms)^` + regexp.QuoteMeta(handler) + `\(ngx_conf_t \*cf[^)]*\)\s*\{(.*?)\n\}`)
	m := re.FindStringSubmatch(text)
	return m != nil && strings.Contains(m[1], "is duplicate") && !strings.Contains(m[1], "ngx_array_push") && !strings.Contains(m[1], "ngx_list_push")
}
