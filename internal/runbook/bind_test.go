package runbook

import (
	"fmt"
	"strings"
	"testing"
)

// TestBindFiles: on a page that runs its shell blocks, a YAML or JSON
// block is written to a file by its title= (MkDocs-material's), or by the
// name the prose before it gives when a later command takes that file
// with -f; each such binding says why. Prose alone, a name never given to
// -f, a caption for a title and a page that does not run its shell blocks
// bind nothing.
func TestBindFiles(t *testing.T) {
	src := "---\nrun: shell\n---\n\n" + // 1-4
		"```yaml title=\"a.yaml\"\na: 1\n```\n\n" + // 5-8
		"Create `old.yaml`, or rather a file called `b.yaml`:\n\n" + // 9-10
		"```yaml\nb: 2\n```\n\n" + // 11-14
		"Then `c.json`, which nothing applies:\n\n```json\n{}\n```\n\n" + // 15-20
		"```yaml title=\"Example output\"\nd: 4\n```\n\n" + // 21-24
		"Also `b.yaml` again:\n\n```yaml\nb: 3\n```\n\n" + // 25-30
		"```bash\nkubectl apply -f a.yaml --filename=./b.yaml -f c.yaml\n```\n" // 31-33
	rb, err := Parse("page.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rb.Files {
		got = append(got, fmt.Sprintf("%s@%d: ", f.Name, f.Line)+f.Content+" ("+f.By+")")
	}
	want := []string{
		"a.yaml@5: a: 1\n (its title= attribute)",
		"b.yaml@11: b: 2\n (inferred: named in the prose at line 9, given to -f at line 32)",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("files:\n got %q\nwant %q", got, want)
	}

	plain, err := Parse("page.md", []byte(strings.TrimPrefix(src, "---\nrun: shell\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Files) != 0 {
		t.Errorf("a page that does not run its shell blocks bound %d files", len(plain.Files))
	}
}
