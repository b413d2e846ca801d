package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/internal/textdiff"
)

var sample = []finding.Diagnostic{
	{Rule: "upstream-keepalive", Severity: finding.Warning, File: "/srv/conf/site.conf", Line: 12, Col: 24, EndLine: 12,
		Message: "proxy_pass to the address 127.0.0.1:8080 opens a new backend connection for every request"},
	{Rule: "ssl-directive-removed", Severity: finding.Error, File: "/srv/conf/site.conf", Line: 5, Col: 9, EndLine: 5,
		Message: `"ssl on" was removed`, Fix: &finding.Fix{Description: "remove it", Edits: []finding.Edit{{File: "/srv/conf/site.conf", Start: 40, End: 48}}}},
	{Rule: "access-log-unbuffered", Severity: finding.Info, File: "/srv/conf/nginx.conf", Line: 3, Col: 5, EndLine: 3,
		Message: "access_log a, b: 100%\nnext line"},
}

// the rules of the sample, described as the command describes its own
var sampleRules = []Rule{
	{ID: "access-log-unbuffered", Title: "An access log without a buffer", Why: "Each request writes.", Fix: "Add buffer=.", Markdown: "## access-log-unbuffered", Severity: finding.Info, Category: "performance"},
	{ID: "return-bypasses-access", Title: "return before access", Why: "return answers first.", Fix: "Move it.", Markdown: "## return-bypasses-access", Severity: finding.Warning, Category: "security"},
	{ID: "ssl-directive-removed", Title: "The ssl directive", Why: "Removed in 1.25.", Fix: "Use listen ssl.", Markdown: "## ssl-directive-removed", Severity: finding.Error, Category: "correctness"},
	{ID: "upstream-keepalive", Title: "Backend connections are not reused", Why: "Each request connects.", Fix: "Add keepalive.", Markdown: "## upstream-keepalive", Severity: finding.Warning, Category: "performance"},
}

var meta = Meta{ToolVersion: "0.0.0-test", NginxVersion: "1.22.1", Path: func(p string) string { return strings.TrimPrefix(p, "/srv/") }, Rules: sampleRules}

func validate(t *testing.T, schemaFile string, doc []byte) {
	t.Helper()
	if err := validateErr(t, schemaFile, doc); err != nil {
		t.Errorf("output does not match %s: %v", schemaFile, err)
	}
}

func validateErr(t *testing.T, schemaFile string, doc []byte) error {
	t.Helper()
	c := jsonschema.NewCompiler()
	f, err := os.Open(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("schema.json", s); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst)
}

// SARIF output validates against the SARIF 2.1.0 schema and carries what
// GitHub code scanning reads.
func TestSARIFSchema(t *testing.T) {
	var b bytes.Buffer
	if err := SARIF(&b, sample, meta); err != nil {
		t.Fatal(err)
	}
	validate(t, "testdata/sarif-schema-2.1.0.json", b.Bytes())
	// the schema check can fail: a level GitHub does not know is rejected
	bad := strings.Replace(b.String(), `"level": "warning"`, `"level": "critical"`, 1)
	if validateErr(t, "testdata/sarif-schema-2.1.0.json", []byte(bad)) == nil {
		t.Error("the SARIF schema accepted level critical")
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string
						Help struct{ Text, Markdown string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(sampleRules) {
		t.Errorf("%d rules in the driver, want %d", len(run.Tool.Driver.Rules), len(sampleRules))
	}
	for _, r := range run.Tool.Driver.Rules {
		if r.Help.Text == "" || r.Help.Markdown == "" {
			t.Errorf("rule %s has no help", r.ID)
		}
	}
	levels := ""
	for _, res := range run.Results {
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("ruleIndex %d does not point at %s", res.RuleIndex, res.RuleID)
		}
		loc := res.Locations[0].PhysicalLocation
		if strings.HasPrefix(loc.ArtifactLocation.URI, "/") || strings.Contains(loc.ArtifactLocation.URI, "srv/") || loc.Region.StartColumn < 1 {
			t.Errorf("location %+v", loc)
		}
		levels += res.Level + " "
	}
	if levels != "warning error note " {
		t.Errorf("levels %q", levels)
	}
}

func TestSARIFAbsoluteURI(t *testing.T) {
	var b bytes.Buffer
	if err := SARIF(&b, sample[:1], Meta{ToolVersion: "x"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"uri": "file:///srv/conf/site.conf"`) {
		t.Errorf("absolute path not written as a file URI:\n%s", b.String())
	}
	validate(t, "testdata/sarif-schema-2.1.0.json", b.Bytes())
}

func TestJSONSchema(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, sample, meta); err != nil {
		t.Fatal(err)
	}
	validate(t, "../docs/lint-output.schema.json", b.Bytes())
	b.Reset()
	if err := JSON(&b, nil, meta); err != nil {
		t.Fatal(err)
	}
	validate(t, "../docs/lint-output.schema.json", b.Bytes())
	if !strings.Contains(b.String(), `"findings": []`) {
		t.Errorf("no findings must be an empty list: %s", b.String())
	}
}

func TestGitHubEscaping(t *testing.T) {
	var b bytes.Buffer
	if err := GitHub(&b, sample[2:], meta); err != nil {
		t.Fatal(err)
	}
	want := "::notice file=conf/nginx.conf,line=3,col=5,title=nginxtune access-log-unbuffered::access_log a, b: 100%25%0Anext line\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

func TestTextColour(t *testing.T) {
	var plain, colour bytes.Buffer
	Text(&plain, sample[:1], meta, false)
	Text(&colour, sample[:1], meta, true)
	if strings.Contains(plain.String(), "\x1b[") || !strings.Contains(colour.String(), "\x1b[") {
		t.Error("colour only when asked")
	}
	if !strings.HasPrefix(plain.String(), "conf/site.conf:12:24: warning: proxy_pass") {
		t.Errorf("text: %q", plain.String())
	}
}

// Related places become SARIF relatedLocations (and "related" in JSON), so
// that an editor can jump to "the deny at x.conf:12".
func TestRelatedLocations(t *testing.T) {
	d := finding.Diagnostic{Rule: "return-bypasses-access", Severity: finding.Warning, File: "site.conf", Line: 9, Col: 13, EndLine: 9,
		Message: "return 200 answers in the rewrite phase, before the deny at site.conf:7 is checked",
		Related: []finding.Related{{File: "site.conf", Line: 7, Col: 13, Message: "the deny this return bypasses"}}}
	var b bytes.Buffer
	if err := SARIF(&b, []finding.Diagnostic{d}, meta); err != nil {
		t.Fatal(err)
	}
	validate(t, "testdata/sarif-schema-2.1.0.json", b.Bytes())
	var log struct {
		Runs []struct {
			Results []struct {
				RelatedLocations []struct {
					ID               int
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
					Message struct{ Text string }
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	rel := log.Runs[0].Results[0].RelatedLocations
	if len(rel) != 1 || rel[0].ID != 1 || rel[0].PhysicalLocation.ArtifactLocation.URI != "site.conf" ||
		rel[0].PhysicalLocation.Region.StartLine != 7 || rel[0].Message.Text != "the deny this return bypasses" {
		t.Errorf("relatedLocations = %+v", rel)
	}
	b.Reset()
	if err := JSON(&b, []finding.Diagnostic{d}, meta); err != nil {
		t.Fatal(err)
	}
	validate(t, "../docs/lint-output.schema.json", b.Bytes())
	if !strings.Contains(b.String(), `"related": [`) {
		t.Errorf("JSON has no related places: %s", b.String())
	}
}

// The streamed JSON is byte for byte what encoding/json writes of the
// document it holds, also for strings that need escaping (quotes, controls,
// HTML, invalid UTF-8, line separators) and every optional part, and that
// document says what the findings say.
func TestJSONStreamMatchesEncoding(t *testing.T) {
	weird := []string{"", "plain", "q\"uo\\te", "ctl\x00\x01\x1f\t\r\n", "<html>&amp;", "bad\xff\xfeutf8", "sep\u2028\u2029", "é😀", strings.Repeat("x", 300),
		"bidi\u202e\u2066\u200f", "c1\u009b\x7f", "###[error]##[", "::error::x"}
	var diags []finding.Diagnostic
	for i, s := range weird {
		d := finding.Diagnostic{Rule: "r-" + strconv.Itoa(i), Severity: finding.Severity(i % 3), File: "/srv/" + s, Line: i, Col: i * 2, EndLine: i + 1, Message: s}
		if i%2 == 0 {
			d.Fix = &finding.Fix{Description: s, Edits: []finding.Edit{{File: "/srv/a" + s, Start: i, End: i + 3, New: s}, {File: "b", New: ""}}}
		}
		if i%3 == 0 {
			d.Via = "/srv/link" + s
			d.Related = []finding.Related{{File: "/srv/r" + s, Line: 2, Col: 3, Message: s}, {File: "x", Message: ""}}
		}
		if i == 4 {
			d.Fix = &finding.Fix{Description: "no edits"}
		}
		diags = append(diags, d)
	}
	for _, ds := range [][]finding.Diagnostic{nil, diags[:1], diags} {
		for _, mm := range []Meta{meta, {ToolVersion: "v\"1<", NginxVersion: ""}} {
			var got bytes.Buffer
			if err := JSON(&got, ds, mm); err != nil {
				t.Fatal(err)
			}
			want := reencoded(t, got.Bytes())
			if got.String() != want {
				t.Fatalf("streamed JSON differs from encoding/json:\n%s", textdiff.Unified("encoding/json", "streamed", want, got.String()))
			}
			checkJSONFindings(t, got.Bytes(), ds, mm)
		}
	}
}

// sarifEncoded is SARIF by encoding/json alone (through a JSONWriter, as
// every JSON output): the reference the streamed results are checked
// against.
func sarifEncoded(w io.Writer, diags []finding.Diagnostic, m Meta) error {
	var head bytes.Buffer
	// the driver exactly as SARIF builds it, read back from its output
	if err := SARIF(&head, nil, m); err != nil {
		return err
	}
	var log sarifLog
	if err := json.Unmarshal(head.Bytes(), &log); err != nil {
		return err
	}
	index := map[string]int{}
	for i, r := range log.Runs[0].Tool.Driver.Rules {
		index[r.ID] = i
	}
	for _, d := range diags {
		if _, ok := index[d.Rule]; !ok {
			index[d.Rule] = len(log.Runs[0].Tool.Driver.Rules)
			log.Runs[0].Tool.Driver.Rules = append(log.Runs[0].Tool.Driver.Rules, sarifRule{ID: d.Rule, Name: d.Rule, ShortDescription: sarifText{Text: d.Rule},
				FullDescription: sarifText{Text: d.Rule}, Help: sarifText{Text: d.Rule, Markdown: d.Rule}, HelpURI: docsURL + d.Rule,
				DefaultConfiguration: sarifConfiguration{Level: sarifLevel(d.Severity)}, Properties: sarifProperties{Tags: []string{"nginx"}}})
		}
	}
	uriOf := func(file string) string { return fileURI(strings.TrimPrefix(m.path(file), "./")) }
	results := []sarifResult{}
	for _, d := range diags {
		r := sarifResult{
			RuleID: d.Rule, RuleIndex: index[d.Rule], Level: sarifLevel(d.Severity),
			Message: sarifText{Text: d.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: uriOf(d.File)},
				Region:           sarifRegion{StartLine: d.Line, StartColumn: max(d.Col, 1), EndLine: max(d.EndLine, d.Line)},
			}}},
		}
		for i, rel := range d.Related {
			id := i + 1
			r.RelatedLocations = append(r.RelatedLocations, sarifLocation{ID: &id,
				PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uriOf(rel.File)},
					Region: sarifRegion{StartLine: rel.Line, StartColumn: max(rel.Col, 1)}},
				Message: &sarifText{Text: rel.Message}})
		}
		results = append(results, r)
	}
	log.Runs[0].Results = results
	return EncodeJSON(w, log)
}

func TestSARIFStreamMatchesEncoding(t *testing.T) {
	weird := []string{"", "q\"uo\\te", "ctl\x00\x1f\t\r\n", "<html>&amp;", "bad\xffutf8", "sep\u2028", "é😀 space", "bidi\u202e", "##[error]"}
	var diags []finding.Diagnostic
	for i, s := range weird {
		d := finding.Diagnostic{Rule: []string{"upstream-keepalive", "return-bypasses-access", "not-described"}[i%3], Severity: finding.Severity(i % 3),
			File: "/srv/conf/" + s, Line: i, Col: i - 1, EndLine: i / 2, Message: s}
		if i%2 == 0 {
			d.Related = []finding.Related{{File: "/srv/" + s, Line: 2, Col: 0, Message: s}, {File: "rel", Line: 0, Message: ""}}
		}
		diags = append(diags, d)
	}
	for _, ds := range [][]finding.Diagnostic{nil, diags[:1], diags} {
		var got, want bytes.Buffer
		if err := SARIF(&got, ds, meta); err != nil {
			t.Fatal(err)
		}
		if err := sarifEncoded(&want, ds, meta); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("streamed SARIF differs from encoding/json:\n%s", textdiff.Unified("encoding/json", "streamed", want.String(), got.String()))
		}
	}
}

// jsonObject is a JSON object read back with its fields in their order.
type jsonObject []jsonField

type jsonField struct {
	key string
	val any
}

func (o jsonObject) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// readJSONValue reads a value back, objects as jsonObject and every
// other value as it was written.
func readJSONValue(raw json.RawMessage) (any, error) {
	if raw[0] != '{' && raw[0] != '[' {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token()
	o, a := jsonObject{}, []any{}
	for dec.More() {
		var key any
		if raw[0] == '{' {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key = k
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		val, err := readJSONValue(v)
		if err != nil {
			return nil, err
		}
		if key == nil {
			a = append(a, val)
		} else {
			o = append(o, jsonField{key.(string), val})
		}
	}
	if raw[0] == '{' {
		return o, nil
	}
	return a, nil
}

// reencoded is the streamed document read back and laid out again by
// encoding/json (through a JSONWriter, as every JSON output), its fields in
// the order read and its values as written: the reference the streamed
// layout is checked against. checkJSONFindings checks the values.
func reencoded(t *testing.T, out []byte) string {
	t.Helper()
	doc, err := readJSONValue(out)
	if err != nil {
		t.Fatalf("streamed JSON does not read back: %v\n%s", err, out)
	}
	var b bytes.Buffer
	if err := EncodeJSON(&b, doc); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkJSONFindings reads the streamed document back and compares it with
// the findings it was written from.
func checkJSONFindings(t *testing.T, out []byte, diags []finding.Diagnostic, m Meta) {
	t.Helper()
	type edit struct {
		File       string
		Start, End int
		New        string
	}
	type related struct {
		File         string
		Line, Column int
		Message      string
	}
	var doc struct {
		Schema   int
		Findings []struct {
			Rule, Severity, File string
			Line, Column         int
			EndLine              int `json:"end_line"`
			Message, Via         string
			Related              []related
			Fix                  *struct {
				Description string
				Edits       []edit
			}
		}
		Summary struct{ Errors, Warnings, Infos int }
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var head map[string]any
	json.Unmarshal(out, &head)
	if doc.Schema != 1 || head["tool"] != "nginxtune" || head["tool_version"] != m.ToolVersion || head["nginx_version"] != m.NginxVersion || len(doc.Findings) != len(diags) {
		t.Fatalf("document: schema %d, %v, %d findings of %d", doc.Schema, head, len(doc.Findings), len(diags))
	}
	// what JSON carries of a string: each invalid byte reads back as U+FFFD
	text := func(s string) string { return string([]rune(s)) }
	for i, d := range diags {
		// each string escaped as encoding/json escapes it
		var enc bytes.Buffer
		if err := EncodeJSON(&enc, d.Message); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out, []byte(`"message": `+strings.TrimSuffix(enc.String(), "\n"))) {
			t.Errorf("finding %d: message not written as encoding/json writes %s", i, enc.String())
		}
		f := doc.Findings[i]
		want := []any{d.Rule, d.Severity.String(), text(m.path(d.File)), d.Line, d.Col, d.EndLine, text(d.Message), ""}
		if d.Via != "" {
			want[7] = text(m.path(d.Via))
		}
		got := []any{f.Rule, f.Severity, f.File, f.Line, f.Column, f.EndLine, f.Message, f.Via}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("finding %d: %v, want %v", i, got, want)
		}
		var wantRel []related
		for _, r := range d.Related {
			wantRel = append(wantRel, related{text(m.path(r.File)), r.Line, r.Col, text(r.Message)})
		}
		if fmt.Sprint(f.Related) != fmt.Sprint(wantRel) {
			t.Errorf("finding %d: related %+v, want %+v", i, f.Related, wantRel)
		}
		if (f.Fix != nil) != (d.Fix != nil) {
			t.Fatalf("finding %d: fix %v, want %v", i, f.Fix, d.Fix)
		}
		if d.Fix == nil {
			continue
		}
		wantEdits := []edit{}
		for _, e := range d.Fix.Edits {
			wantEdits = append(wantEdits, edit{text(m.path(e.File)), e.Start, e.End, text(e.New)})
		}
		if f.Fix.Description != text(d.Fix.Description) || f.Fix.Edits == nil || fmt.Sprint(f.Fix.Edits) != fmt.Sprint(wantEdits) {
			t.Errorf("finding %d: fix %+v, want %q %+v", i, *f.Fix, d.Fix.Description, wantEdits)
		}
	}
	c := Count(diags)
	if doc.Summary.Errors != c[finding.Error] || doc.Summary.Warnings != c[finding.Warning] || doc.Summary.Infos != c[finding.Info] {
		t.Errorf("summary %+v, want %v", doc.Summary, c)
	}
}

// TestASCIIEscaped holds the bit masks to the comparisons they stand for.
func TestASCIIEscaped(t *testing.T) {
	for c := byte(0); c < 0x80; c++ {
		want := c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&'
		if got := asciiEscaped(c); got != want {
			t.Errorf("asciiEscaped(%#x) = %v, want %v", c, got, want)
		}
	}
}

// TestPlainRunsMatchBytes holds the eight-bytes-at-a-time scans to the
// byte-by-byte tests they stand for, every byte value at every place of a
// word and past it: plainJSON to asciiEscaped (and non-ASCII), plainSafe
// to what appendJSONSafe rewrites or decodes ("#", DEL, non-ASCII).
func TestPlainRunsMatchBytes(t *testing.T) {
	wantJSON := func(s string) int {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 || asciiEscaped(s[i]) {
				return i
			}
		}
		return len(s)
	}
	wantSafe := func(p []byte) int {
		for i, c := range p {
			if c >= 0x7f || c == '#' {
				return i
			}
		}
		return len(p)
	}
	base := []byte("abcdefghijklmnopqrstuvwxyz")
	for c := 0; c < 256; c++ {
		for at := 0; at < 20; at++ {
			for n := at + 1; n <= len(base); n += 3 {
				b := append([]byte(nil), base[:n]...)
				b[at] = byte(c)
				if got, want := plainJSON(string(b)), wantJSON(string(b)); got != want {
					t.Fatalf("plainJSON(%q) = %d, want %d", b, got, want)
				}
				if got, want := plainSafe(b), wantSafe(b); got != want {
					t.Fatalf("plainSafe(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}
