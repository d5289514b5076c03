package site

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

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

// TestMkDocsShellPages: in an MkDocs project, the pages kbook.yaml's
// run.pages lists and those whose front matter says run: shell are
// runbooks; a page of shell blocks that does neither is not.
func TestMkDocsShellPages(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"mkdocs.yml":         "site_name: Shell pages\n",
		"kbook.yaml":         "run:\n  pages: [docs/listed.md]\n",
		"docs/index.md":      "# Home\n",
		"docs/listed.md":     "# Listed\n\n```bash\necho listed\n```\n",
		"docs/front.md":      "---\nrun: shell\n---\n\n# Front\n\n```console\n$ echo front\nfront\n```\n",
		"docs/not-in.md":     "# Not in\n\n```bash\necho not run\n```\n",
		"docs/testscript.md": "# Testscript\n\n```testscript\nexec true\n```\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rb := range p.Runbooks {
		got = append(got, rb.Path+":"+rb.ShellPage())
	}
	sort.Strings(got)
	want := []string{"docs/front.md:front matter run: shell", "docs/listed.md:kbook.yaml run.pages", "docs/testscript.md:"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("runbooks %v, want %v", got, want)
	}
}
