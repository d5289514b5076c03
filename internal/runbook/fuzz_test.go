package runbook

import (
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/fuzzseed"
)

// FuzzParse checks that any input either parses or fails with a located
// error, never panics, and that parsed runbooks keep their invariants:
// script lines lie inside the file and rewriting a file block with its own
// content gives back the source byte for byte.
func FuzzParse(f *testing.F) {
	fuzzseed.Strings(f, "testdata/*.md")
	f.Add("---\ntitle: x\n---\n```testscript\nexec echo\n```\n")
	f.Add("- item\n\n  ```yaml file=a\n  x\n  ```\n")
	f.Add("```\r\nx\r\n```\r\n")
	f.Fuzz(func(t *testing.T, src string) {
		rb, err := Parse("fuzz.md", []byte(src))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.md:") {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, st := range rb.Steps {
			for _, l := range st.Script {
				if l.Num < 1 || l.Num > lines {
					t.Fatalf("script line %d outside 1..%d", l.Num, lines)
				}
			}
		}
		same := map[string]string{}
		for _, fl := range rb.Files {
			same[fl.Name] = fl.Content
		}
		out, err := rb.Rewrite(same)
		if err != nil {
			t.Fatalf("rewrite with unchanged content: %v", err)
		}
		if string(out) != src {
			t.Fatalf("rewrite with unchanged content changed the source")
		}
	})
}
