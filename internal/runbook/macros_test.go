package runbook

import (
	"strings"
	"testing"
)

// TestExpandMacros: rendered lines take the place of the blocks' content
// line for line, list indentation kept out of it; the steps keep the
// page's line numbers, and --update refuses an expected output that used
// macros (it would write their values in their place).
func TestExpandMacros(t *testing.T) {
	src := "---\nrun: shell\n---\n\n1. Install:\n\n    ```bash\n    echo {{ v }}\n    ```\n\n    ```console\n    {{ v }}\n    ```\n\n```yaml file=a.yaml\nversion: {{ v }}\n```\n"
	rb, err := Parse("page.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.ReplaceAll(src, "{{ v }}", "1.2.3"), "\n")
	if err := rb.ExpandMacros(lines); err != nil {
		t.Fatal(err)
	}
	if len(rb.Steps) != 1 {
		t.Fatalf("%d steps, want 1", len(rb.Steps))
	}
	sh := rb.Steps[0].Shell
	if got := sh.Script[0]; got.Text != "echo 1.2.3" || got.Num != 8 {
		t.Errorf("script line %+v, want echo 1.2.3 at 8", got)
	}
	if sh.Expected == nil || sh.Expected.Text != "1.2.3\n" || sh.Expected.Line != 12 {
		t.Errorf("expected output %+v", sh.Expected)
	}
	if len(rb.Files) != 1 || rb.Files[0].Content != "version: 1.2.3\n" {
		t.Errorf("files %+v", rb.Files)
	}
	if _, err := rb.Update(nil, map[*Step]string{rb.Steps[0]: "1.2.4\n"}); err == nil || !strings.Contains(err.Error(), "page.md:12: cannot update: the expected output uses macros") {
		t.Errorf("Update of an output with macros: %v", err)
	}
}
