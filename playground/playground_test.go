package playground

import (
	"slices"
	"strings"
	"testing"

	"github.com/nginxtune/nginxtune/generate"
)

// TestPlaygroundGenIsGen holds the page's gen to nginxtune gen's library
// for the same inputs: the same files, byte for byte, for each profile.
func TestPlaygroundGenIsGen(t *testing.T) {
	for _, o := range []GenOptions{
		{Profile: "static", ServerNames: []string{"example.com"}, CPUs: 2, Memory: "1GiB"},
		{Profile: "proxy", ServerNames: []string{"a.example", "www.a.example"}, CPUs: 16, Memory: "32GiB", TLS: "/etc/ssl/a.crt,/etc/ssl/a.key", Upstreams: []string{"10.0.0.2:8080"}, NginxVersion: "1.24.0"},
		{Profile: "wordpress", ServerNames: []string{"blog.example"}, CPUs: 4, Memory: "4GiB", NoFile: "4096", Layout: "debian"},
	} {
		got, err := Gen(o)
		if err != nil {
			t.Fatalf("%s: %v", o.Profile, err)
		}
		version := o.NginxVersion
		if version == "" {
			version = generate.DefaultVersion
		}
		lib, err := generate.Run(generate.Options{Profile: o.Profile, ServerNames: o.ServerNames, CPUs: o.CPUs, CPUsSet: true, Memory: o.Memory, NoFile: o.NoFile,
			TLS: o.TLS, Upstreams: o.Upstreams, NginxVersion: version, Layout: o.Layout, Brotli: "off", TLSProfile: "intermediate"})
		if err != nil {
			t.Fatalf("%s: gen: %v", o.Profile, err)
		}
		var want []GenFile
		for _, f := range lib {
			if !f.Stock {
				want = append(want, GenFile{Path: f.Path, Content: f.Content, Link: f.Link})
			}
		}
		if !slices.Equal(got.Files, want) {
			t.Errorf("%s: the playground's gen differs from nginxtune gen's:\n%s", o.Profile, firstDiff(got.Files, want))
		}
		if got.Version != version || len(got.Explain) < 3 {
			t.Errorf("%s: version %s, %d explanations", o.Profile, got.Version, len(got.Explain))
		}
	}
}

// TestPlaygroundReadsOnlyWhatItIsGiven: an include of a path on this
// machine finds nothing (the tree is the files the page gave), file names
// that climb out of the tree are refused, so are more than MaxBytes of
// files, and a finding without a fix has nothing to apply.
func TestPlaygroundReadsOnlyWhatItIsGiven(t *testing.T) {
	files := []File{{Name: "nginx.conf", Text: "events {}\nhttp {\n    include /etc/hostname;\n    include /etc/nginx/mime.types;\n}\n"}}
	res, err := Lint(files, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Rule == "include-missing" }) {
		t.Errorf("an include of this machine's files is not missing: %v", placesOf(res.Findings))
	}
	for _, name := range []string{"../x.conf", "a/../../x.conf", ""} {
		if _, err := Lint([]File{files[0], {Name: name, Text: "x;"}}, ""); err == nil {
			t.Errorf("%q accepted as a file of the tree", name)
		}
	}
	big := []File{{Name: "nginx.conf", Text: strings.Repeat("#", MaxBytes)}, {Name: "x.conf", Text: "#"}}
	if _, err := Lint(big, ""); err == nil || !strings.Contains(err.Error(), "more than 8 MiB") {
		t.Errorf("more than MaxBytes of files: %v", err)
	}
	if _, err := ApplyFix(files, "", len(res.Findings)); err == nil {
		t.Error("a fix applied past the findings")
	}
	out, err := Fmt(File{Name: "nginx.conf", Text: "events{}\nhttp{server{listen 80;}}\n"})
	if err != nil || !strings.Contains(out, "    server {\n        listen 80;\n    }\n") {
		t.Errorf("fmt: %q, %v", out, err)
	}
}
