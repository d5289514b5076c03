package findings

import (
	"fmt"
	"io"
	"strings"
)

// WriteCatalogue writes the registry as the Markdown body of a rule
// catalogue page: a table of every rule (ID linked to its section,
// severity, title), then one "## Category" section per category in
// catalogue order with a "### ID" entry per rule: title, default severity
// and description. Pages put their own front matter and introduction
// before it.
func WriteCatalogue(w io.Writer, reg *Registry) error {
	var b strings.Builder
	rules := reg.Rules()
	b.WriteString("| ID | severity | rule |\n|---|---|---|\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Severity, r.Title)
	}
	for _, c := range reg.Categories() {
		header := false
		for _, r := range rules {
			if r.Category != c {
				continue
			}
			if !header {
				fmt.Fprintf(&b, "\n## %s\n", c)
				header = true
			}
			fmt.Fprintf(&b, "\n### %s\n\n**%s** - default severity: %s\n\n%s\n", r.ID, r.Title, r.Severity, strings.TrimSpace(r.Description))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RuleList is the registry as a command's help lists it: one line a rule,
// in catalogue order (category, then ID), "  ID  (severity)  title", the
// columns aligned.
func RuleList(reg *Registry) string {
	width := 0
	for _, r := range reg.rules {
		width = max(width, len(r.ID))
	}
	var b strings.Builder
	for _, c := range reg.categories {
		for _, r := range reg.rules {
			if r.Category == c {
				fmt.Fprintf(&b, "  %-*s  %-9s  %s\n", width, r.ID, "("+string(r.Severity)+")", r.Title)
			}
		}
	}
	return b.String()
}
