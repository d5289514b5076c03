package findings

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity is how bad a finding is: an error fails the check (exit 1), a
// warning is a problem that does not, and an info is a note about the
// input or about what could not be checked (a value the user must supply,
// a kind with no schema), never a problem of the input itself.
type Severity string

// The severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// ParseSeverity reads a severity as users write it (policy files, flags).
func ParseSeverity(s string) (Severity, error) {
	switch Severity(s) {
	case Error, Warning, Info:
		return Severity(s), nil
	}
	return "", fmt.Errorf("severity %q: want %s, %s or %s", s, Error, Warning, Info)
}

// Finding is one problem found in an input.
type Finding struct {
	// Rule is the ID of a registered rule (or an organisation policy
	// rule's own ID).
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Message says what is wrong and why it matters, in one sentence or
	// two; it may already say how to fix it.
	Message string `json:"message"`
	// File is where the problem is: relative to the Report's Base
	// (Chart.yaml, templates/cluster.yaml, crds/x.yaml) or, for files
	// the user named (Report.Given), the path as given.
	File string `json:"file,omitempty"`
	// Line is 1-based; 0 when unknown.
	Line int `json:"line,omitempty"`
	// Path is a values path (controlPlane.replicas, workers[0].name) or
	// the path of a field in an object (spec.infrastructureRef).
	Path string `json:"path,omitempty"`
	// Object names the object the finding is about:
	// "cluster.x-k8s.io/v1beta2 Cluster demo".
	Object string `json:"object,omitempty"`
	// Config names the input variant the finding was found with: for a
	// template, the values set ("defaults", "ci/aws.yaml", a --config
	// file).
	Config string `json:"config,omitempty"`
	// Hint is how to fix it, when the message does not say.
	Hint string `json:"hint,omitempty"`
	// KCM is what kcm answers about the problem, in its own words (its
	// webhook's denial, its controller's condition); empty when kcm does
	// not notice. Chain and upgrade checks set it.
	KCM string `json:"kcm,omitempty"`
}

// String formats the finding as text output does, with File as it is:
// FILE:LINE: severity: [OBJECT: ]message [RULE].
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", location(f.File, f.Line), f.Severity, f.text(), f.Rule)
}

// text is the message with the object it is about.
func (f Finding) text() string {
	if f.Object != "" {
		return f.Object + ": " + f.Message
	}
	return f.Message
}

func location(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// Sort orders findings by file, line and rule, then by the rest, so the
// order never depends on map iteration or on the order rules ran in.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Object, b.Object),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Message, b.Message),
			cmp.Compare(a.Config, b.Config),
			cmp.Compare(a.KCM, b.KCM),
		)
	})
}

// Dedupe drops findings that repeat an earlier one in everything but the
// Config they were found with: a problem found with several input variants
// (a broken template rendered with each ci/*.yaml) is reported once, for
// the first. It keeps the order and reuses fs.
func Dedupe(fs []Finding) []Finding {
	type key struct {
		rule, msg, file, path, object, hint, kcm string
		line                                     int
		sev                                      Severity
	}
	seen := make(map[key]bool, len(fs))
	out := fs[:0]
	for _, f := range fs {
		k := key{f.Rule, f.Message, f.File, f.Path, f.Object, f.Hint, f.KCM, f.Line, f.Severity}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// Count returns the number of errors, warnings and infos in fs.
func Count(fs []Finding) (errors, warnings, infos int) {
	for _, f := range fs {
		switch f.Severity {
		case Error:
			errors++
		case Warning:
			warnings++
		case Info:
			infos++
		}
	}
	return errors, warnings, infos
}
