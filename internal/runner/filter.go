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
