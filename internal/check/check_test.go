package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/testfile"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/site"
	sitelinks "github.com/k0rdent/kbook/internal/site/links"
)

// TestCheck: kbook check's findings, its summary line, bad input, and
// that a docs repository is loaded once (an MkDocs project's runbook
// pages and its links come from one Load, which translates every page).
func TestCheck(t *testing.T) {
	docs := filepath.Join("testdata", "docs")
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		paths       []string
		wantRules   []string
		wantSummary string
		wantInput   string
		wantLoads   int64
	}{
		{name: "lint and pre-run checks", paths: []string{filepath.Join(docs, "runbooks", "doc.md")},
			wantRules: []string{"shell-not-run", "exec-undeclared"}, wantSummary: "checked 1 runbook and the links of 3 pages: 1 error, 1 warning", wantLoads: 1},
		{name: "clean", paths: []string{filepath.Join(docs, "runbooks", "ok.md")},
			wantSummary: "checked 1 runbook and the links of 3 pages: 0 errors, 0 warnings", wantLoads: 1},
		{name: "MkDocs project", paths: []string{filepath.Join("testdata", "mkdocs")},
			wantRules: []string{"link-broken"}, wantSummary: "checked 1 runbook and the links of 2 pages: 0 errors, 1 warning", wantLoads: 1},
		{name: "folder without runbooks", paths: []string{empty},
			wantSummary: "checked 0 runbooks (no runbooks in " + empty + "): 0 errors, 0 warnings"},
		{name: "front matter that does not parse", paths: []string{filepath.Join("testdata", "bad-front-matter.md")},
			wantInput: "bad-front-matter.md:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := new(site.Loader)
			rep, err := checkWith(tc.paths, l)
			loads := int64(l.Reads)
			if tc.wantInput != "" {
				if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.wantInput) {
					t.Fatalf("error %v, want bad input at %s", err, tc.wantInput)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, f := range rep.Findings {
				rules = append(rules, f.Rule)
			}
			if !slices.Equal(rules, tc.wantRules) {
				t.Errorf("rules %q, want %q", rules, tc.wantRules)
			}
			if loads != tc.wantLoads {
				t.Errorf("%d loads of the docs repository, want %d", loads, tc.wantLoads)
			}
			e, w, i := findings.Count(rep.Findings)
			if got := rep.Detail.Summary(e, w, i); got != tc.wantSummary {
				t.Errorf("summary %q, want %q", got, tc.wantSummary)
			}
		})
	}
}

// TestCheckReadsKbookYAML: kbook check reads kbook.yaml as kbook run
// does (run's TestRunReadsKbookYAML): with no path, the runbooks folder
// it names; a misspelt key is bad input at its line.
func TestCheckReadsKbookYAML(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	testfile.Write(t, dir, "kbook.yaml", "title: t\nrunbooks: books\n")
	testfile.Write(t, dir, "books/a.md", "# A\n\n```testscript\nexec true\n```\n")
	rep, err := Check(context.Background(), Options{})
	if err != nil || rep.Detail.Summary(0, 0, 0) != "checked 1 runbook and the links of 1 page: 0 errors, 0 warnings" {
		t.Errorf("kbook check with no path: %v, %v", err, rep)
	}

	testfile.Write(t, dir, "kbook.yaml", "title: t\nrunbooks: books\nrun:\n  crdz: [crds]\n")
	for name, paths := range map[string][]string{"no path": nil, "a path": {filepath.Join("books", "a.md")}} {
		if _, err := Check(context.Background(), Options{Paths: paths}); !findings.IsInput(err) || !strings.HasPrefix(err.Error(), "kbook.yaml:4: ") {
			t.Errorf("check, %s: %v, want bad input at kbook.yaml:4", name, err)
		}
	}
}

// TestCheckPageError: a macro error on an MkDocs page that is no runbook
// (kbook run does not read it) is one page-error finding at its line,
// bad input, beside the runbooks' findings; kbook check goes on to check
// the runbooks and the links instead of stopping at it.
func TestCheckPageError(t *testing.T) {
	dir := t.TempDir()
	testfile.Write(t, dir, "mkdocs.yml", "site_name: Macros\nplugins:\n  - macros:\n      on_undefined: strict\n      on_error_fail: true\n")
	testfile.Write(t, dir, "docs/index.md", "# Home\n\n[gone](gone.md)\n")
	testfile.Write(t, dir, "docs/bad.md", "# Bad\n\nValue: {{ no_such_variable }}\n")
	testfile.Write(t, dir, "docs/book.md", "# Book\n\n```testscript\nexec true\n```\n")
	t.Chdir(dir)
	rep, err := Check(context.Background(), Options{Paths: []string{"."}})
	if err != nil {
		t.Fatalf("kbook check: %v, want findings", err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, filepath.ToSlash(f.File), f.Line))
	}
	slices.Sort(got)
	if want := []string{sitelinks.RuleBrokenLink + " docs/index.md:3", RulePageError + " docs/bad.md:3"}; !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	if code := Registry.ExitCode(rep); code != findings.ExitBadInput {
		t.Errorf("exit code %d, want %d (bad input)", code, findings.ExitBadInput)
	}
	if !strings.Contains(rep.Detail.Summary(0, 0, 0), "checked 1 runbook") {
		t.Errorf("summary %q: the runbook was not checked", rep.Detail.Summary(0, 0, 0))
	}
}
