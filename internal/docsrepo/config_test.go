package docsrepo

import "testing"

func TestRunPagesGlobs(t *testing.T) {
	c := RunConfig{Pages: []string{"docs/quickstarts/*.md", "guides/**/install.md"}}
	for rel, want := range map[string]bool{
		"docs/quickstarts/quickstart-1.md": true,
		"docs/quickstarts/sub/page.md":     false, // * stays in its folder
		"guides/install.md":                true,  // ** is zero folders too
		"guides/a/b/install.md":            true,
		"guides/a/b/upgrade.md":            false,
		"docs/index.md":                    false,
	} {
		if got := c.ShellPage(rel); got != want {
			t.Errorf("ShellPage(%q) = %v, want %v", rel, got, want)
		}
	}
}
