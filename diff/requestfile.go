package diff

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/nginxtune/nginxtune/internal/lazyre"
	"github.com/nginxtune/nginxtune/internal/untrusted"
	"github.com/nginxtune/nginxtune/route"
)

// combined is nginx's predefined log format.
const combined = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`

// maxRequestLines bounds a requests file: more lines are not read.
const maxRequestLines = 100000

// maxRequestLine bounds one line of a requests file.
const maxRequestLine = 1 << 20

// logFormat is a log_format turned into a regular expression whose
// groups are the variables it writes.
type logFormat struct {
	name string
	re   *regexp.Regexp
	vars []string
}

// logVar finds the variables of a log format (compiled on first use).
var logVar = lazyre.New(`\$(\{[A-Za-z0-9_]+\}|[A-Za-z0-9_]+)`)

func compileLogFormat(name, format string) (*logFormat, bool) {
	lf := &logFormat{name: name}
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range logVar().FindAllStringIndex(format, -1) {
		b.WriteString(regexp.QuoteMeta(format[last:m[0]]))
		v := strings.Trim(format[m[0]+1:m[1]], "{}")
		lf.vars = append(lf.vars, strings.ToLower(v))
		next := byte(0)
		if m[1] < len(format) {
			next = format[m[1]]
		}
		switch {
		case next == '"':
			b.WriteString(`((?:[^"\\]|\\.)*)`)
		case next == ']':
			b.WriteString(`([^\]]*)`)
		case next == ' ' || next == 0:
			b.WriteString(`(\S*)`)
		default:
			b.WriteString(`(.*?)`)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(format[last:]))
	b.WriteString(`\s*$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, false
	}
	lf.re = re
	return lf, true
}

// logFormats are the trees' log_format directives, then combined.
func logFormats(trees ...*Tree) []*logFormat {
	var out []*logFormat
	for _, t := range trees {
		for _, d := range t.cfg.HTTP {
			if d.Name != "log_format" || len(d.Args) < 2 {
				continue
			}
			args := d.ArgValues()
			start := 1
			if strings.HasPrefix(args[1], "escape=") {
				start = 2
			}
			if lf, ok := compileLogFormat(args[0], strings.Join(args[start:], "")); ok && len(lf.vars) > 0 {
				out = append(out, lf)
			}
		}
	}
	lf, _ := compileLogFormat("combined", combined)
	return append(out, lf)
}

// fromLog builds a request from a log line's variables; false when the
// line says too little (no request line or method and URI).
func fromLog(vars map[string]string) (route.Request, bool) {
	r := route.Request{Scheme: "http", Method: "GET", Port: 80, Headers: map[string]string{}}
	if req := vars["request"]; req != "" {
		f := strings.Fields(req)
		if len(f) < 2 {
			return r, false
		}
		r.Method, r.Target = f[0], f[1]
		if len(f) > 2 {
			r.Proto = f[2]
		}
	}
	if v := vars["request_method"]; v != "" {
		r.Method = v
	}
	if v := vars["request_uri"]; v != "" {
		r.Target = v
	}
	if r.Target == "" || !strings.HasPrefix(r.Target, "/") {
		return r, false
	}
	if v := vars["scheme"]; v == "https" {
		r.Scheme, r.Port = "https", 443
	}
	if v := vars["server_port"]; v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n < 65536 {
			r.Port = n
		}
	}
	for _, k := range []string{"http_host", "host", "server_name"} {
		if v := vars[k]; v != "" && v != "-" {
			r.Host, r.HasHost = v, true
			break
		}
	}
	if !r.HasHost {
		// the log does not say which name was asked: the request goes
		// where one without a Host header goes
		r.Proto = "HTTP/1.0"
	}
	if r.Proto != "HTTP/1.0" {
		r.Proto = "HTTP/1.1"
	}
	return r, true
}

// ReadRequests reads a requests file: one URL a line ("http://host/path",
// "https://...", "host/path" or "/path"), or access-log lines in one of the
// trees' log formats or the combined format. Blank lines and lines
// starting with "#" are skipped. An error names the line.
func ReadRequests(name string, r io.Reader, trees ...*Tree) ([]route.Request, error) {
	formats := logFormats(trees...)
	var out []route.Request
	// an access log is written in one format: the one that read the line
	// before is tried first, so a tree with thousands of log_format
	// directives costs each line one match, not one for each format
	// before its own
	last := -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxRequestLine)
	n := 1
	for ; sc.Scan(); n++ {
		if n > maxRequestLines {
			return out, fmt.Errorf("%s:%d: more than %d lines", name, n, maxRequestLines)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "/") || strings.Contains(line, "://") || !strings.ContainsAny(line, " \t") {
			q, err := route.ParseRequest(line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s", name, n, untrusted.Clip(err.Error()))
			}
			out = append(out, q)
			continue
		}
		ok := false
		for j := -1; j < len(formats) && !ok; j++ {
			i := j
			if j < 0 {
				i = last
			} else if j == last {
				continue
			}
			if i < 0 {
				continue
			}
			lf := formats[i]
			m := lf.re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			vars := map[string]string{}
			for k, v := range lf.vars {
				vars[v] = m[k+1]
			}
			if q, good := fromLog(vars); good {
				out = append(out, q)
				ok, last = true, i
			}
		}
		if !ok {
			return nil, fmt.Errorf("%s:%d: neither a URL nor an access-log line in the combined format or a log_format of the trees", name, n)
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s:%d: a line longer than %d bytes", name, n, maxRequestLine)
	} else if err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, n, err)
	}
	return out, nil
}
