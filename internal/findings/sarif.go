package findings

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/version"
)

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
	// object, the config and the fix hint.
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

// SARIFVersion is the kbook version SARIF output names; tests pin it.
var SARIFVersion = version.String

// WriteSARIF writes the reports as one SARIF 2.1.0 run: tool.driver.rules
// from rules (a Registry's Rules()), one result per finding with its rule
// (and ruleIndex when the rule is among rules), level, message and
// location (Report.FilePath, else the report's Name, else none; the line
// as region).
func WriteSARIF(w io.Writer, rules []Rule, reports ...*Report) error {
	driver := sarifDriver{
		Name:           "kbook",
		Version:        SARIFVersion(),
		InformationURI: "https://github.com/k0rdent/kbook",
		Rules:          make([]sarifRule, 0, len(rules)),
	}
	index := map[string]int{}
	for i, rule := range rules {
		index[rule.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   rule.ID,
			Name:                 RuleName(rule.Title),
			ShortDescription:     sarifText{Text: rule.Title},
			FullDescription:      sarifText{Text: rule.Description},
			Help:                 sarifHelp{Text: rule.Description, Markdown: rule.Description},
			DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(rule.Severity)},
			Properties:           map[string]string{"category": rule.Category},
		})
	}
	results := []sarifResult{}
	for _, r := range reports {
		for _, f := range r.Findings {
			res := sarifResult{RuleID: f.Rule, Level: sarifLevel(f.Severity), Message: sarifText{Text: f.text()}}
			if i, ok := index[f.Rule]; ok {
				res.RuleIndex = &i
			}
			uri := r.FilePath(f)
			if uri == "" {
				uri = filepath.ToSlash(r.Name)
			}
			if uri != "" {
				// A uri-reference: "a b/c.yaml" is a%20b/c.yaml.
				uri = (&url.URL{Path: uri}).String()
				loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}}}
				if f.Line > 0 {
					loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
				}
				res.Locations = []sarifLocation{loc}
			}
			props := map[string]string{}
			for k, v := range map[string]string{"path": f.Path, "object": f.Object, "config": f.Config, "hint": f.Hint, "kcm": f.KCM} {
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

// sarifLevel is SARIF's name for a severity: info is a "note".
func sarifLevel(s Severity) string {
	if s == Info {
		return "note"
	}
	return string(s)
}

// RuleName turns a rule title into the PascalCase name SARIF viewers show:
// "The chart loads with the Helm SDK" → TheChartLoadsWithTheHelmSDK.
func RuleName(title string) string {
	var sb strings.Builder
	for _, w := range strings.FieldsFunc(title, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		sb.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return sb.String()
}
