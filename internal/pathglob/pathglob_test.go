package pathglob

import "testing"

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/sub/a.md", false},
		{"docs/**/*.md", "docs/a.md", true},
		{"docs/**/*.md", "docs/x/y/a.md", true},
		{"**", "a/b/c", true},
		{"**/index.md", "index.md", true},
		{"**/index.md", "a/index.md", true},
		{"a/**", "a", true},
		{"a/**", "b/c", false},
		{"quickstarts/qs-1.md", "quickstarts/qs-1.md", true},
		{"quickstarts/qs-1.md", "quickstarts/qs-2.md", false},
		{"[", "[", false},
		{"a/*", "a/b/c", false},
	} {
		if got := Match(c.pattern, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}
