package provider

import (
	"cmp"
	"slices"
)

// Severity is how bad a finding is: errors fail validation (exit 1),
// warnings are reported and do not.
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem found in the provider.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Hint says how to fix it.
	Hint string `json:"hint,omitempty"`
	// File and Line locate the offending field (or its closest existing
	// parent); File is a path from the working directory.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Path is the YAML path of the field in its document.
	Path string `json:"path,omitempty"`
	// Object names the document: "CustomResourceDefinition awsclusters.infrastructure.cluster.x-k8s.io".
	Object string `json:"object,omitempty"`
}

func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Object, b.Object), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Message, b.Message))
	})
}
