package template

import (
	"cmp"
	"slices"
)

// Severity is how bad a finding is: errors fail `kbook template validate`
// (exit 1), warnings are reported and do not.
type Severity string

// The two severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem found in a chart.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// File is chart-relative (Chart.yaml, values.yaml,
	// templates/cluster.yaml, ci/aws.yaml) or, for Options.Config, the
	// path as given.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Path is a values path (controlPlane.replicas, workers[0].name) or the
	// path of a field in a rendered object (spec.infrastructureRef).
	Path string `json:"path,omitempty"`
	// Object names a rendered object: "cluster.x-k8s.io/v1beta2 Cluster demo".
	Object string `json:"object,omitempty"`
	// Config names the values set the chart was rendered with: "defaults",
	// "ci/aws.yaml" or the Options.Config file.
	Config string `json:"config,omitempty"`
}

// Result is what Validate found in one chart.
type Result struct {
	// Chart is the chart path as given to Validate.
	Chart string `json:"chart"`
	// Findings are sorted by file, line and rule.
	Findings []Finding `json:"findings"`

	// config is Options.Config: findings in it are not chart-relative.
	config string
}

// Errors counts the findings of severity error.
func (r *Result) Errors() int { return r.count(SeverityError) }

// Warnings counts the findings of severity warning.
func (r *Result) Warnings() int { return r.count(SeverityWarning) }

func (r *Result) count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// sortFindings orders findings by file, line and rule, then by the rest so
// the order never depends on map iteration.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Object, b.Object),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Message, b.Message),
			cmp.Compare(a.Config, b.Config),
		)
	})
}

// dedupe drops findings that repeat an earlier one in everything but the
// values set they were found with: a broken template is reported once, for
// the first values set (defaults first), not once per ci/*.yaml file.
func dedupe(fs []Finding) []Finding {
	type key struct {
		rule, msg, file, path, object string
		line                          int
	}
	seen := make(map[key]bool, len(fs))
	out := fs[:0]
	for _, f := range fs {
		k := key{f.Rule, f.Message, f.File, f.Path, f.Object, f.Line}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}
