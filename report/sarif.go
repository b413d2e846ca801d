package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"strings"

	"github.com/nginxtune/nginxtune/finding"
	"github.com/nginxtune/nginxtune/rules/engine"
)

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the subset
// GitHub code scanning reads: rules with help text, results with a level and
// a region whose columns start at 1, and relative artifact URIs.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name"`
	ShortDescription     sarifText          `json:"shortDescription"`
	FullDescription      sarifText          `json:"fullDescription"`
	Help                 sarifText          `json:"help"`
	HelpURI              string             `json:"helpUri"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
	Properties           sarifProperties    `json:"properties"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifProperties struct {
	Tags             []string `json:"tags"`
	SecuritySeverity string   `json:"security-severity,omitempty"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	ID               *int          `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifText    `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine,omitempty"`
}

const docsURL = "https://github.com/nginxtune/nginxtune/blob/main/docs/rules.md#"

func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	}
	return "note"
}

// ruleProperties tags a rule with its category; a security rule carries
// GitHub code scanning's "security" tag and a security-severity (a CVSS-like
// score: 8.0 high for an error, 5.0 medium for a warning, 3.0 low for info).
func ruleProperties(r Rule) sarifProperties {
	p := sarifProperties{Tags: []string{"nginx", string(r.Category)}}
	if r.Category == engine.CategorySecurity {
		switch r.Severity {
		case finding.Error:
			p.SecuritySeverity = "8.0"
		case finding.Warning:
			p.SecuritySeverity = "5.0"
		default:
			p.SecuritySeverity = "3.0"
		}
	}
	return p
}

// SARIF writes a SARIF 2.1.0 log with every rule's metadata.
func SARIF(w io.Writer, diags []finding.Diagnostic, m Meta) error {
	driver := sarifDriver{Name: "nginxtune", Version: m.ToolVersion,
		InformationURI: "https://github.com/nginxtune/nginxtune"}
	index := map[string]int{}
	for i, r := range m.Rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.ID,
			Name:                 r.ID,
			ShortDescription:     sarifText{Text: r.Title},
			FullDescription:      sarifText{Text: oneParagraph(r.Why)},
			Help:                 sarifText{Text: oneParagraph(r.Why) + "\n\nFix: " + oneParagraph(r.Fix), Markdown: r.Markdown},
			HelpURI:              docsURL + r.ID,
			DefaultConfiguration: sarifConfiguration{Level: sarifLevel(r.Severity)},
			Properties:           ruleProperties(r),
		})
	}
	// a finding of a rule the caller did not describe still points at an
	// entry of its own
	for _, d := range diags {
		if _, ok := index[d.Rule]; !ok {
			index[d.Rule] = len(driver.Rules)
			driver.Rules = append(driver.Rules, sarifRule{ID: d.Rule, Name: d.Rule, ShortDescription: sarifText{Text: d.Rule},
				FullDescription: sarifText{Text: d.Rule}, Help: sarifText{Text: d.Rule, Markdown: d.Rule}, HelpURI: docsURL + d.Rule,
				DefaultConfiguration: sarifConfiguration{Level: sarifLevel(d.Severity)}, Properties: sarifProperties{Tags: []string{"nginx"}}})
		}
	}
	j := newJW(w)
	toURI := func(file string) string { return fileURI(strings.TrimPrefix(m.path(file), "./")) }
	uriOf := func(file string) string { return j.shown.of(file, toURI) }
	// the document with no results, by encoding/json (the rules' metadata,
	// once), and the results streamed into its empty array
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}}}
	var doc bytes.Buffer
	enc := json.NewEncoder(&doc)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return err
	}
	const slot = "\n      \"results\": []\n"
	i := bytes.LastIndex(doc.Bytes(), []byte(slot))
	if i < 0 {
		return errors.New("sarif: no results array in the document")
	}
	j.out = append(j.out, doc.Bytes()[:i]...)
	j.raw("\n      \"results\": ")
	if len(diags) == 0 {
		j.raw("[]")
	} else {
		j.raw("[\n")
		for n, d := range diags {
			j.sarifResult(d, index[d.Rule], uriOf)
			if n < len(diags)-1 {
				j.raw(",")
			}
			j.raw("\n")
			j.spill()
		}
		j.raw("      ]")
	}
	j.out = append(j.out, doc.Bytes()[i+len(slot)-1:]...)
	return j.flush()
}

// oneParagraph joins the lines of a doc field.
func oneParagraph(s string) string { return strings.Join(strings.Fields(s), " ") }

// fileURI writes a path as a URI reference (RFC 3986): percent-encoded, so
// that a file name with a space, "#", "?", "%" or bytes that are not UTF-8
// names the same file (losslessly) in code scanning. A path outside the
// working directory becomes an absolute file: URI; a relative one keeps
// ":" out of its first segment, where it would read as a scheme.
func fileURI(p string) string {
	e := (&url.URL{Path: p}).EscapedPath()
	if strings.HasPrefix(p, "/") {
		return "file://" + e
	}
	return strings.ReplaceAll(e, ":", "%3A")
}

// sarifResult streams one result as encoding/json writes a sarifResult at
// its depth.
func (j *jw) sarifResult(d finding.Diagnostic, ruleIndex int, uriOf func(string) string) {
	const in = "          "
	j.raw("        {\n")
	j.field(in, "ruleId")
	j.str(d.Rule)
	j.raw(",\n")
	j.field(in, "ruleIndex")
	j.num(ruleIndex)
	j.raw(",\n")
	j.field(in, "level")
	j.str(sarifLevel(d.Severity))
	j.raw(",\n")
	j.field(in, "message")
	j.raw("{\n")
	j.field(in+"  ", "text")
	j.str(d.Message)
	j.raw("\n" + in + "},\n")
	j.field(in, "locations")
	j.raw("[\n")
	j.location(0, uriOf(d.File), d.Line, max(d.Col, 1), max(d.EndLine, d.Line), nil)
	j.raw("\n" + in + "]")
	if len(d.Related) > 0 {
		j.raw(",\n")
		j.field(in, "relatedLocations")
		j.raw("[\n")
		for n, r := range d.Related {
			msg := r.Message
			j.location(n+1, uriOf(r.File), r.Line, max(r.Col, 1), 0, &msg)
			if n < len(d.Related)-1 {
				j.raw(",")
			}
			j.raw("\n")
		}
		j.raw(in + "]")
	}
	j.raw("\n        }")
}

// location writes a sarifLocation where results put them: id when not 0,
// endLine when not 0, message when given.
func (j *jw) location(id int, uri string, line, col, endLine int, msg *string) {
	const in = "            " // the only depth locations are at: every concatenation below is made by the compiler
	j.raw(in + "{\n")
	if id != 0 {
		j.field(in+"  ", "id")
		j.num(id)
		j.raw(",\n")
	}
	j.field(in+"  ", "physicalLocation")
	j.raw("{\n")
	j.field(in+"    ", "artifactLocation")
	j.raw("{\n")
	j.field(in+"      ", "uri")
	j.str(uri)
	j.raw("\n" + in + "    },\n")
	j.field(in+"    ", "region")
	j.raw("{\n")
	j.field(in+"      ", "startLine")
	j.num(line)
	j.raw(",\n")
	j.field(in+"      ", "startColumn")
	j.num(col)
	if endLine != 0 {
		j.raw(",\n")
		j.field(in+"      ", "endLine")
		j.num(endLine)
	}
	j.raw("\n" + in + "    }\n" + in + "  }")
	if msg != nil {
		j.raw(",\n")
		j.field(in+"  ", "message")
		j.raw("{\n")
		j.field(in+"    ", "text")
		j.str(*msg)
		j.raw("\n" + in + "  }")
	}
	j.raw("\n" + in + "}")
}
