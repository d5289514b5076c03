package template

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/version"
)

// location is where a finding is, for people and tools: the file joined to
// the chart path (a config file stays as given), and the line.
func (r *Result) location(f Finding) string {
	file := r.filePath(f)
	if file == "" {
		return r.Chart
	}
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d", file, f.Line)
	}
	return file
}

// filePath is the finding's file as a path from the working directory:
// chart-relative files are joined to the chart path ("chart.tgz/Chart.yaml"
// for an archive), the config file is left as given.
func (r *Result) filePath(f Finding) string {
	switch {
	case f.File == "":
		return ""
	case r.config != "" && f.File == r.config:
		return f.File
	default:
		return filepath.ToSlash(path.Join(filepath.ToSlash(r.Chart), f.File))
	}
}

// WriteText writes one line per finding, `FILE:LINE: severity: message
// [RULE]`, then a summary line.
func WriteText(w io.Writer, r *Result) {
	for _, f := range r.Findings {
		msg := f.Message
		if f.Object != "" {
			msg = f.Object + ": " + msg
		}
		if f.Config != "" && f.Config != defaultsName && f.File != f.Config {
			msg += " (with " + f.Config + ")"
		}
		fmt.Fprintf(w, "%s: %s: %s [%s]\n", r.location(f), f.Severity, msg, f.Rule)
	}
	fmt.Fprintln(w, summary(r))
}

func summary(r *Result) string {
	e, wn := r.Errors(), r.Warnings()
	if e == 0 && wn == 0 {
		return r.Chart + ": no problems found"
	}
	return fmt.Sprintf("%s: %s, %s", r.Chart, plural(e, "error"), plural(wn, "warning"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// jsonResult is the JSON form of a Result.
type jsonResult struct {
	Chart    string    `json:"chart"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Findings []Finding `json:"findings"`
}

// WriteJSON writes the result as one indented JSON object: chart, the
// error and warning counts, and the findings.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	findings := r.Findings
	if findings == nil {
		findings = []Finding{}
	}
	return enc.Encode(jsonResult{Chart: r.Chart, Errors: r.Errors(), Warnings: r.Warnings(), Findings: findings})
}

// SARIF 2.1.0, the subset code scanning tools read.
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

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name,omitempty"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifHelp         `json:"help"`
	DefaultConfiguration sarifRuleConfig   `json:"defaultConfiguration"`
	Properties           map[string]string `json:"properties,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex *int            `json:"ruleIndex,omitempty"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
	// Properties carry what SARIF has no field for: the values path, the
	// object and the values set.
	Properties map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// sarifVersion is the kbook version in SARIF output; tests pin it.
var sarifVersion = version.String

// WriteSARIF writes the results of one or more charts as one SARIF 2.1.0
// run: tool.driver.rules from the rule registry, one result per finding
// with its rule, level, message and location (chart path + file, line).
func WriteSARIF(w io.Writer, rs []*Result, rules []Rule) error {
	driver := sarifDriver{
		Name:           "kbook",
		Version:        sarifVersion(),
		InformationURI: "https://github.com/k0rdent/kbook",
		Rules:          make([]sarifRule, 0, len(rules)),
	}
	index := map[string]int{}
	for i, rule := range rules {
		index[rule.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   rule.ID,
			Name:                 ruleName(rule.Title),
			ShortDescription:     sarifText{Text: rule.Title},
			FullDescription:      sarifText{Text: rule.Description},
			Help:                 sarifHelp{Text: rule.Description, Markdown: rule.Description},
			DefaultConfiguration: sarifRuleConfig{Level: string(rule.Severity)},
			Properties:           map[string]string{"category": rule.Category},
		})
	}
	results := []sarifResult{}
	for _, r := range rs {
		for _, f := range r.Findings {
			msg := f.Message
			if f.Object != "" {
				msg = f.Object + ": " + msg
			}
			res := sarifResult{RuleID: f.Rule, Level: string(f.Severity), Message: sarifText{Text: msg}}
			if i, ok := index[f.Rule]; ok {
				res.RuleIndex = &i
			}
			uri := r.filePath(f)
			if uri == "" {
				uri = filepath.ToSlash(r.Chart)
			}
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}}}
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
			}
			res.Locations = []sarifLocation{loc}
			props := map[string]string{}
			for k, v := range map[string]string{"path": f.Path, "object": f.Object, "config": f.Config} {
				if v != "" {
					props[k] = v
				}
			}
			if len(props) > 0 {
				res.Properties = props
			}
			results = append(results, res)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	})
}

// ruleName turns a title into the PascalCase name SARIF viewers show.
func ruleName(title string) string {
	var sb strings.Builder
	for _, w := range strings.FieldsFunc(title, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		sb.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return sb.String()
}
