package markdown

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLines: each output line maps to the source line it comes from;
// wrappers map to their marker, included lines to the including line.
func TestLines(t *testing.T) {
	tests := []struct {
		fixture string
		// output text (a line's trimmed content) -> its source line
		want map[string]int
	}{
		{"admonition", map[string]int{"Body with **bold**.": 4, "a: 1": 7, "Inner.": 17, "In a list.": 22, "After.": 24,
			`<div class="admonition danger"><p class="admonition-title">Nested</p>`: 16}},
		{"snippets", map[string]int{"Intro.": 1, "b: 2": 6, "c: 3": 6, "in the part": 9, `--8<-- "not/included.md"`: 16}},
		{"tabs", map[string]int{"curl x": 3, "brew install x": 8, "choco install x": 11, "Text.": 13}},
		{"include-markdown", map[string]int{"Part **A**.": 3, "Only this.": 5, "Indented text.": 7, "key: value": 13}},
		{"macros", map[string]int{"Short: 1, 1+2.3, a1.2.3": 5, "curl -L https://x/1.2.3/k0s": 7}},
		{"attr-list", map[string]int{"{.lead}": 5, "a: 1": 10, "kbook run": 16}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			in, opts, _ := loadFixture(t, filepath.Join("testdata", tt.fixture+".txtar"))
			res, err := Translate(in, opts)
			if err != nil {
				t.Fatal(err)
			}
			out := strings.Split(string(res.Markdown), "\n")
			for text, want := range tt.want {
				found := false
				for i, l := range out {
					if strings.TrimSpace(l) == text {
						found = true
						if res.Lines[i] != want {
							t.Errorf("%q: source line %d, want %d", text, res.Lines[i], want)
						}
					}
				}
				if !found {
					t.Errorf("%q not in the output", text)
				}
			}
		})
	}
}
