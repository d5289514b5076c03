package findings

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Rule describes one check. Title is one line; Description is Markdown
// that explains what is checked, why, and what k0rdent or Cluster API does
// with such an input, citing the source file it follows. The docs' rule
// catalogue is generated from a tool's Registry.
type Rule struct {
	ID          string   `json:"id"`
	Category    string   `json:"category"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Severity    Severity `json:"severity"` // the default severity
	// Input marks a rule whose finding means the input could not be read
	// at all (a chart Helm cannot load): nothing else was checked, the
	// command exits ExitBadInput, and the rule cannot be disabled.
	Input bool `json:"input,omitempty"`
}

// Registry is a tool's set of rules. Each validator builds one with
// NewRegistry at package initialisation; it is read-only afterwards.
type Registry struct {
	categories []string
	rules      []Rule // sorted by ID
	byID       map[string]int
}

// NewRegistry returns the registry of rules in the given categories
// (catalogue order). It panics on a duplicate ID, an empty field or a
// category not listed: those are programming errors caught by any test
// that loads the package.
func NewRegistry(categories []string, rules ...Rule) *Registry {
	r := &Registry{categories: slices.Clone(categories), byID: map[string]int{}}
	for _, rule := range rules {
		switch {
		case rule.ID == "" || rule.Title == "" || rule.Description == "":
			panic(fmt.Sprintf("findings: rule %q: ID, Title and Description are required", rule.ID))
		case rule.Severity != Error && rule.Severity != Warning && rule.Severity != Info:
			panic(fmt.Sprintf("findings: rule %s: severity %q", rule.ID, rule.Severity))
		case !slices.Contains(categories, rule.Category):
			panic(fmt.Sprintf("findings: rule %s: category %q is not one of %s", rule.ID, rule.Category, strings.Join(categories, ", ")))
		}
		if _, dup := r.byID[rule.ID]; dup {
			panic("findings: rule " + rule.ID + " registered twice")
		}
		r.byID[rule.ID] = 0
		r.rules = append(r.rules, rule)
	}
	slices.SortFunc(r.rules, func(a, b Rule) int { return cmp.Compare(a.ID, b.ID) })
	for i, rule := range r.rules {
		r.byID[rule.ID] = i
	}
	return r
}

// Rules returns the rules sorted by ID.
func (r *Registry) Rules() []Rule { return slices.Clone(r.rules) }

// Categories returns the categories in catalogue order.
func (r *Registry) Categories() []string { return slices.Clone(r.categories) }

// Lookup returns the rule with this ID.
func (r *Registry) Lookup(id string) (Rule, bool) {
	i, ok := r.byID[id]
	if !ok {
		return Rule{}, false
	}
	return r.rules[i], true
}

// Severity is the default severity of a registered rule; it panics on an
// unregistered ID (a programming error).
func (r *Registry) Severity(id string) Severity {
	rule, ok := r.Lookup(id)
	if !ok {
		panic("findings: unregistered rule " + id)
	}
	return rule.Severity
}

// CheckDisable returns an error naming the first ID that is neither a
// registered rule nor one of extra (organisation policy rule IDs), so that
// a misspelt --disable fails before anything runs.
func (r *Registry) CheckDisable(ids []string, extra ...string) error {
	for _, id := range ids {
		if _, ok := r.byID[id]; !ok && !slices.Contains(extra, id) {
			return fmt.Errorf("--disable %s: no such rule (see the rule catalogue)", id)
		}
	}
	return nil
}

// Finish is what every validator does last: it fills in default
// severities, drops findings of disabled rules (never of Input rules),
// repeats (Dedupe) and sorts (Sort). The result is never nil, so JSON
// shows an empty list.
func (r *Registry) Finish(fs []Finding, disable []string) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		rule, known := r.Lookup(f.Rule)
		if f.Severity == "" && known {
			f.Severity = rule.Severity
		}
		if slices.Contains(disable, f.Rule) && !rule.Input {
			continue
		}
		out = append(out, f)
	}
	out = Dedupe(out)
	Sort(out)
	return out
}

// BadInput reports whether a finding of an Input rule is among fs.
func (r *Registry) BadInput(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool {
		rule, ok := r.Lookup(f.Rule)
		return ok && rule.Input
	})
}

// Join returns one registry holding the rules and categories of regs (a
// command that runs several validators, as kbook check runs runbook lint,
// the runner's checks and the link checker). It panics, as NewRegistry
// does, on a rule ID registered twice.
func Join(regs ...*Registry) *Registry {
	var categories []string
	var rules []Rule
	for _, r := range regs {
		for _, c := range r.categories {
			if !slices.Contains(categories, c) {
				categories = append(categories, c)
			}
		}
		rules = append(rules, r.rules...)
	}
	return NewRegistry(categories, rules...)
}
