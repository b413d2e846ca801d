package rules

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nginxtune/nginxtune/parser"
)

// Override is a path-scoped part of the settings (.nginxtune.yaml's
// overrides): for the files Match accepts, rules turned off and severities
// changed. What nginx refuses is never turned off or lowered
// (config.LoadFound checks it).
type Override struct {
	Match    func(file string) bool
	Disabled map[string]bool
	Severity map[string]Severity
}

// GlobMatcher returns a matcher of absolute file paths against patterns
// relative to dir: "*" and "?" within a path segment, "**" across segments,
// a pattern ending in "/" for everything below a directory.
func GlobMatcher(dir string, patterns []string) (func(string) bool, error) {
	var res []*regexp.Regexp
	for _, p := range patterns {
		var b strings.Builder
		b.WriteString("^")
		p = filepath.ToSlash(p)
		if strings.HasSuffix(p, "/") {
			p += "**"
		}
		for i := 0; i < len(p); i++ {
			switch c := p[i]; {
			case strings.HasPrefix(p[i:], "**/"):
				b.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(p[i:], "**"):
				b.WriteString(".*")
				i++
			case c == '*':
				b.WriteString("[^/]*")
			case c == '?':
				b.WriteString("[^/]")
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		b.WriteString("$")
		re, err := regexp.Compile(b.String())
		if err != nil {
			return nil, err
		}
		res = append(res, re)
	}
	return func(file string) bool {
		rel, err := filepath.Rel(dir, file)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return false
		}
		rel = filepath.ToSlash(rel)
		for _, re := range res {
			if re.MatchString(rel) {
				return true
			}
		}
		return false
	}, nil
}

// generator names the program that wrote a file, from what its first lines
// say (or, for Nginx Proxy Manager, where it keeps them); "" for a file
// people write.
type generator struct {
	name   string
	advice string // how to change what it writes
}

var (
	generatedByRe = regexp.MustCompile(`(?i)\b(?:generated|written|created|managed) (?:automatically )?by ([A-Za-z0-9][A-Za-z0-9 ._/-]{0,40}?)(?:[.;,:(!]|\s*$| - | on | at | from | version)`)
	doNotEditRe   = regexp.MustCompile(`(?i)\bdo not (?:edit|modify)\b`)
)

// generatorOf reads a file's first comment lines.
func generatorOf(f *parser.File) generator {
	var head []string
	for _, c := range f.Comments {
		if c.Line > 6 {
			break
		}
		head = append(head, strings.TrimSpace(strings.TrimPrefix(c.Text, "#")))
	}
	text := strings.Join(head, "\n")
	dir := filepath.Base(filepath.Dir(f.Path))
	switch {
	case len(head) > 0 && strings.HasPrefix(strings.ToLower(head[0]), "nginx-proxy"):
		return generator{"nginx-proxy", "change it through nginx-proxy: the proxied container's environment and labels (keepalive: the com.github.nginx-proxy.nginx-proxy.keepalive label), or a file in /etc/nginx/vhost.d"}
	case (dir == "proxy_host" || dir == "redirection_host" || dir == "dead_host" || dir == "default_host") && strings.HasPrefix(text, "-----"):
		return generator{"Nginx Proxy Manager", "change it in Nginx Proxy Manager's settings for the host (Advanced: custom configuration), or in /data/nginx/custom"}
	case strings.Contains(strings.ToLower(text), "ansible managed"):
		return generator{"Ansible", "change the role's template or variables"}
	}
	if m := generatedByRe.FindStringSubmatch(text); m != nil {
		return generator{strings.TrimSpace(m[1]), "change what " + strings.TrimSpace(m[1]) + " is given"}
	}
	if doNotEditRe.MatchString(text) {
		return generator{"a generator (its first lines say: do not edit)", "change what generates it"}
	}
	return generator{}
}
