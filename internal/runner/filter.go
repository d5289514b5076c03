package runner

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/k0rdent/kbook/internal/runbook"
)

// Filter selects runbooks and steps, like `go test -run`: the pattern is
// split at slashes into a runbook part, matched against the runbook's file
// name without extension, and a step part, matched against step names.
type Filter struct {
	Runbook, Step *regexp.Regexp
}

// ParseFilter parses "RUNBOOK[/STEP]"; an empty pattern selects everything.
func ParseFilter(pattern string) (Filter, error) {
	var f Filter
	if pattern == "" {
		return f, nil
	}
	rb, st, hasStep := strings.Cut(pattern, "/")
	var err error
	if rb != "" {
		if f.Runbook, err = regexp.Compile(rb); err != nil {
			return f, fmt.Errorf("-run: runbook pattern %q: %w", rb, err)
		}
	}
	if hasStep && st != "" {
		if f.Step, err = regexp.Compile(st); err != nil {
			return f, fmt.Errorf("-run: step pattern %q: %w", st, err)
		}
	}
	return f, nil
}

// MatchRunbook reports whether the runbook is selected.
func (f Filter) MatchRunbook(rb *runbook.Runbook) bool {
	if f.Runbook == nil {
		return true
	}
	base := strings.TrimSuffix(filepath.Base(rb.Path), filepath.Ext(rb.Path))
	return f.Runbook.MatchString(base)
}

// MatchStep reports whether a step is selected.
func (f Filter) MatchStep(st *runbook.Step) bool {
	return f.Step == nil || f.Step.MatchString(st.Name)
}

// Selective reports whether the filter deselects steps.
func (f Filter) Selective() bool { return f.Step != nil }

// Check reports a pattern that selects nothing among rbs: a -run that
// matches no runbook, or no step of the runbooks it matches, is a typo,
// not a successful run of nothing.
func (f Filter) Check(rbs []*runbook.Runbook) error {
	if f.Runbook == nil && f.Step == nil {
		return nil
	}
	var names []string
	var matched []*runbook.Runbook
	for _, rb := range rbs {
		names = append(names, strings.TrimSuffix(filepath.Base(rb.Path), filepath.Ext(rb.Path)))
		if f.MatchRunbook(rb) {
			matched = append(matched, rb)
		}
	}
	if len(matched) == 0 {
		return fmt.Errorf("-run %s matches no runbook (runbook names: %s)", f.Runbook, strings.Join(names, ", "))
	}
	if f.Step == nil {
		return nil
	}
	var steps []string
	for _, rb := range matched {
		for _, st := range rb.Steps {
			if f.MatchStep(st) {
				return nil
			}
			steps = append(steps, fmt.Sprintf("%q", st.Name))
		}
	}
	return fmt.Errorf("-run: step pattern %s matches no step of the runbooks selected (steps: %s)", f.Step, strings.Join(steps, ", "))
}
