package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Defaults: what a directive is when it is not written, read from the same
// source as the table. A standard slot stores into a field of the module's
// configuration (offsetof in the command), and the module's merge or init
// function sets an unset field with ngx_conf_merge_*_value or
// ngx_conf_init_*_value; the third argument there is the default. Only
// defaults that are plain values are recorded: flags, times, sizes,
// numbers, strings and enum words. A default computed in code (root's
// "html", listen's "*:80") is left out rather than guessed.

var (
	// the conf and offset fields of a command, after its handler
	commandField  = regexp.MustCompile(`^\s*[A-Za-z0-9_]+\s*,\s*offsetof\s*\(\s*\w+\s*,\s*([\w.]+)\s*\)`)
	numericDefine = regexp.MustCompile(`(?m)^#define\s+(\w+)\s+\(?\s*(-?\d+)\s*\)?\s*$`)
	enumPair      = regexp.MustCompile(`\{\s*ngx_string\s*\(\s*"([^"]+)"\s*\)\s*,\s*([A-Za-z0-9_]+)\s*\}`)
	castRe        = regexp.MustCompile(`\(\s*(?:size_t|ssize_t|off_t|time_t|ngx_msec_t|ngx_uint_t|ngx_int_t|int|unsigned)\s*\)`)
)

// defines reads the numeric #defines of a source tree, headers included.
func defines(root string) map[string]int64 {
	out := map[string]int64{}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !(strings.HasSuffix(p, ".h") || strings.HasSuffix(p, ".c")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for _, m := range numericDefine.FindAllStringSubmatch(string(b), -1) {
			if n, err := strconv.ParseInt(m[2], 10, 64); err == nil {
				if _, dup := out[m[1]]; !dup {
					out[m[1]] = n
				}
			}
		}
		return nil
	})
	return out
}

// defaultOf returns a command's default as nginx's documentation writes
// it, or "".
func defaultOf(text, handler, entryRest string, defs map[string]int64) string {
	m := commandField.FindStringSubmatch(entryRest)
	if m == nil {
		return ""
	}
	field := regexp.QuoteMeta(m[1])
	call := regexp.MustCompile(`ngx_conf_(?:merge|init)_(?:(\w+?)_)?value\(\s*\w+->` + field + `\s*,\s*(?:\w+->` + field + `\s*,\s*)?([^;]*?)\)\s*;`)
	c := call.FindStringSubmatch(text)
	if c == nil {
		return ""
	}
	raw := strings.TrimSpace(c[2])
	pages := strings.Contains(raw, "ngx_pagesize")
	note := ""
	if pages {
		note = " (4 KiB memory pages)"
	}
	switch handler {
	case "ngx_conf_set_flag_slot":
		switch raw {
		case "0":
			return "off"
		case "1":
			return "on"
		}
	case "ngx_conf_set_msec_slot":
		if n, ok := evalInt(raw, defs); ok && n >= 0 {
			return formatTime(n) + note
		}
	case "ngx_conf_set_sec_slot":
		if n, ok := evalInt(raw, defs); ok && n >= 0 {
			return formatTime(n*1000) + note
		}
	case "ngx_conf_set_size_slot", "ngx_conf_set_off_slot":
		if n, ok := evalInt(raw, defs); ok && n >= 0 {
			return formatSize(n) + note
		}
	case "ngx_conf_set_num_slot":
		if n, ok := evalInt(raw, defs); ok && n >= 0 {
			return strconv.FormatInt(n, 10)
		}
	case "ngx_conf_set_str_slot":
		if s, err := strconv.Unquote(raw); err == nil && s != "" && !strings.ContainsAny(s, "\t\n") {
			return s
		}
	case "ngx_conf_set_bufs_slot":
		num, size, ok := strings.Cut(raw, ",")
		n, ok1 := evalInt(num, defs)
		sz, ok2 := evalInt(size, defs)
		if ok && ok1 && ok2 && n > 0 && sz > 0 {
			return strconv.FormatInt(n, 10) + " " + formatSize(sz) + note
		}
	case "ngx_conf_set_enum_slot":
		p := commandPost.FindStringSubmatch(entryRest)
		if p == nil {
			return ""
		}
		for _, a := range enumArray.FindAllStringSubmatch(text, -1) {
			if a[2] != p[1] {
				continue
			}
			for _, pair := range enumPair.FindAllStringSubmatch(a[3], -1) {
				if pair[2] == raw {
					return pair[1]
				}
				if x, ok := evalInt(pair[2], defs); ok {
					if y, ok := evalInt(raw, defs); ok && x == y {
						return pair[1]
					}
				}
			}
		}
	}
	return ""
}

// formatTime writes milliseconds as nginx's documentation does: "60s",
// "5m", "1h", "500ms".
func formatTime(ms int64) string {
	if ms%1000 != 0 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	s := ms / 1000
	switch {
	case s >= 86400 && s%86400 == 0:
		return strconv.FormatInt(s/86400, 10) + "d"
	case s >= 3600 && s%3600 == 0:
		return strconv.FormatInt(s/3600, 10) + "h"
	case s > 60 && s%60 == 0:
		return strconv.FormatInt(s/60, 10) + "m"
	}
	return strconv.FormatInt(s, 10) + "s"
}

func formatSize(n int64) string {
	switch {
	case n > 0 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "g"
	case n > 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "m"
	case n > 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// evalInt evaluates a C integer expression of numbers, numeric #defines,
// ngx_pagesize (4096), casts, + - * / and parentheses.
func evalInt(expr string, defs map[string]int64) (int64, bool) {
	e := castRe.ReplaceAllString(expr, "")
	p := &exprParser{s: strings.TrimSpace(e), defs: defs}
	v, ok := p.sum()
	p.skip()
	return v, ok && p.i == len(p.s)
}

type exprParser struct {
	s    string
	i    int
	defs map[string]int64
}

func (p *exprParser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *exprParser) sum() (int64, bool) {
	v, ok := p.product()
	for ok {
		p.skip()
		if p.i >= len(p.s) || (p.s[p.i] != '+' && p.s[p.i] != '-') {
			break
		}
		op := p.s[p.i]
		p.i++
		w, ok2 := p.product()
		if !ok2 {
			return 0, false
		}
		if op == '+' {
			v += w
		} else {
			v -= w
		}
	}
	return v, ok
}

func (p *exprParser) product() (int64, bool) {
	v, ok := p.atom()
	for ok {
		p.skip()
		if p.i >= len(p.s) || (p.s[p.i] != '*' && p.s[p.i] != '/') {
			break
		}
		op := p.s[p.i]
		p.i++
		w, ok2 := p.atom()
		if !ok2 || op == '/' && w == 0 {
			return 0, false
		}
		if op == '*' {
			v *= w
		} else {
			v /= w
		}
	}
	return v, ok
}

func (p *exprParser) atom() (int64, bool) {
	p.skip()
	if p.i >= len(p.s) {
		return 0, false
	}
	if p.s[p.i] == '(' {
		p.i++
		v, ok := p.sum()
		p.skip()
		if !ok || p.i >= len(p.s) || p.s[p.i] != ')' {
			return 0, false
		}
		p.i++
		return v, true
	}
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] == '_' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
		p.i++
	}
	word := p.s[start:p.i]
	if word == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(strings.TrimRight(word, "uUlL"), 10, 64); err == nil {
		return n, true
	}
	if word == "ngx_pagesize" {
		return 4096, true
	}
	n, ok := p.defs[word]
	return n, ok
}
