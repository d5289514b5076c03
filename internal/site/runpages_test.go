package site

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/docsrepo"
)

// TestMkDocsShellPages: in an MkDocs project, the pages kbook.yaml's
// run.pages lists and those whose front matter says run: shell are
// runbooks; a page of shell blocks that does neither is not.
func TestMkDocsShellPages(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"mkdocs.yml":         "site_name: Shell pages\n",
		"kbook.yaml":         "run:\n  pages: [docs/listed.md]\n",
		"docs/index.md":      "# Home\n",
		"docs/listed.md":     "# Listed\n\n```bash\necho listed\n```\n",
		"docs/front.md":      "---\nrun: shell\n---\n\n# Front\n\n```console\n$ echo front\nfront\n```\n",
		"docs/not-in.md":     "# Not in\n\n```bash\necho not run\n```\n",
		"docs/testscript.md": "# Testscript\n\n```testscript\nexec true\n```\n",
	})
	loadShellPages(t, dir, "docs/front.md:front matter run: shell", "docs/listed.md:kbook.yaml run.pages", "docs/testscript.md:")
}

// TestContentShellPages: in a kbook docs repository, a page of content/
// whose front matter says run: shell, or that kbook.yaml's run.pages
// lists, is a runbook: kbook run is given it beside the runbooks folder,
// and the site writes it as a runbook page instead of mounting it. A page
// of content/ with shell or testscript blocks that does not opt in stays
// authored content.
func TestContentShellPages(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"kbook.yaml":             "title: Shell pages\nrun:\n  pages: [content/listed.md]\n",
		"content/_index.md":      "# Home\n",
		"content/guide/front.md": "---\ntitle: Front\nrun: shell\n---\n\n```sh\necho front\n```\n",
		"content/listed.md":      "---\ntitle: Listed\n---\n\n```bash\necho listed\n```\n",
		"content/not-in.md":      "---\ntitle: Not in\n---\n\n```bash\necho not run\n```\n",
		"content/testscript.md":  "---\ntitle: Testscript\n---\n\n```testscript\nexec true\n```\n",
		"runbooks/first.md":      "# First\n\n```testscript\nexec true\n```\n",
	})
	p := loadShellPages(t, dir, "content/guide/front.md:front matter run: shell", "content/listed.md:kbook.yaml run.pages", "runbooks/first.md:")
	paths := p.RunbookPaths()
	for i := range paths {
		paths[i], _ = filepath.Rel(dir, paths[i])
	}
	sort.Strings(paths)
	if want := []string{"content/guide/front.md", "content/listed.md", "runbooks"}; strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("RunbookPaths %v, want %v", paths, want)
	}
	for _, pg := range p.Pages {
		if (pg.Runbook != nil) != (pg.File == "content/guide/front.md" || pg.File == "content/listed.md" || pg.File == "runbooks/first.md") {
			t.Errorf("%s: runbook %v", pg.File, pg.Runbook != nil)
		}
	}
}

// TestRunIgnoresMacroErrorsOfOtherPages: a macro error (strict macros, an
// undefined variable) on a page that is not a runbook does not stop
// kbook run, which finds the runbook pages on their source; Load, which
// kbook build uses, still reports it at its line, and Load with
// WithPageErrors (kbook check) keeps the page as written with its error.
// The runbook pages are the ones Load finds, run.pages and run: shell
// included.
func TestRunIgnoresMacroErrorsOfOtherPages(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"mkdocs.yml":         "site_name: Macros\nplugins:\n  - macros:\n      on_undefined: strict\n      on_error_fail: true\n",
		"kbook.yaml":         "run:\n  pages: [docs/listed.md]\n",
		"docs/index.md":      "# Home\n",
		"docs/bad.md":        "# Bad\n\nValue: {{ no_such_variable }}\n",
		"docs/listed.md":     "# Listed\n\n```bash\necho listed\n```\n",
		"docs/front.md":      "---\nrun: shell\n---\n\n# Front\n\n```console\n$ echo front\nfront\n```\n",
		"docs/testscript.md": "# Testscript\n\n```testscript\nexec true\n```\n",
	})
	got, err := docsrepo.ExpandRunbookPaths([]string{dir})
	if err != nil {
		t.Fatalf("kbook run's runbook pages: %v", err)
	}
	for i := range got {
		got[i], _ = filepath.Rel(dir, got[i])
		got[i] = filepath.ToSlash(got[i])
	}
	sort.Strings(got)
	if want := "docs/front.md docs/listed.md docs/testscript.md"; strings.Join(got, " ") != want {
		t.Errorf("runbook pages %v, want %s", got, want)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "docs/bad.md:3: macros: undefined variable") {
		t.Errorf("Load: %v, want the macro error at docs/bad.md:3", err)
	}
	kept, err := Load(dir, WithPageErrors())
	if err != nil {
		t.Fatalf("Load with WithPageErrors: %v", err)
	}
	if len(kept.PageErrors) != 1 || !strings.HasPrefix(kept.PageErrors[0].Error(), "docs/bad.md:3: macros: undefined variable") || len(kept.Pages) != 5 {
		t.Errorf("Load with WithPageErrors: page errors %v, %d pages; want the macro error kept and 5 pages", kept.PageErrors, len(kept.Pages))
	}
	if err := os.Remove(filepath.Join(dir, "docs", "bad.md")); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var loaded []string
	for _, rp := range p.RunbookPaths() {
		rel, _ := filepath.Rel(dir, rp)
		loaded = append(loaded, filepath.ToSlash(rel))
	}
	sort.Strings(loaded)
	if strings.Join(loaded, " ") != strings.Join(got, " ") {
		t.Errorf("Load's runbook pages %v, kbook run's %v", loaded, got)
	}
}

// writeTree writes files (slash paths below dir) with their contents.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loadShellPages loads the project in dir and wants its runbooks to be
// want, each "PATH:" and why it is a shell page (ShellPage).
func loadShellPages(t *testing.T, dir string, want ...string) *Project {
	t.Helper()
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rb := range p.Runbooks {
		got = append(got, rb.Path+":"+rb.ShellPage())
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("runbooks %v, want %v", got, want)
	}
	return p
}
