package links

import "github.com/k0rdent/kbook/internal/findings"

const categoryLinks = "Links"

// Registry holds the link checker's rules (kbook check lists them in its
// help).
var Registry = findings.NewRegistry([]string{categoryLinks},
	findings.Rule{ID: RuleBrokenLink, Category: categoryLinks, Severity: findings.Error,
		Title:       "a link to a page of the docs that does not exist",
		Description: "A Markdown link to a page of the docs site that no source file builds: readers get a 404."},
	findings.Rule{ID: RuleBrokenAnchor, Category: categoryLinks, Severity: findings.Error,
		Title:       "a link to a #fragment the target page does not have",
		Description: "A link whose `#fragment` names no heading or anchor of the page it points to: the page opens at its top."},
)
