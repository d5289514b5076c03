package site

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/docs/scaffold"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"go.yaml.in/yaml/v3"
)

// The test of kbook init's repository lives here, with the renderer it
// ends in, not in internal/docs/scaffold: that package writes files only,
// and its own tests then link no Hugo, no runner and no cluster code.

// TestDocsScaffoldBuilds: the repository kbook init writes
// (internal/docs/scaffold) loads, has no broken link, its
// runbook passes and its site builds; a second init writes nothing.
func TestDocsScaffoldBuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme-docs")
	names, err := scaffold.Write(scaffold.Options{Dir: dir, KbookVersion: "v0.3.0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 5 {
		t.Errorf("files = %v", names)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.Title != "acme-docs" {
		t.Errorf("title = %q", p.Config.Title)
	}
	if fs := CheckLinks(p, ""); len(fs) > 0 {
		t.Errorf("broken links: %v", fs)
	}
	rbs, err := runbook.Load(p.RunbookPaths())
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(runner.Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep := r.Run(context.Background(), rbs)
	if s := rep.Summary(); s.Passed != 1 {
		t.Fatalf("first runbook: %+v", rep.Runbooks[0])
	}
	if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p, Results: rep}}, Options{Out: filepath.Join(dir, "public")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "public", "index.html")); err != nil {
		t.Errorf("the site has no home page: %v", err)
	}
	wf, err := os.ReadFile(filepath.Join(dir, ".github", "workflows", "docs.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(wf, &doc); err != nil {
		t.Fatalf("docs.yml: %v", err)
	}
	for _, want := range []string{"kbook@v0.3.0", "kbook build --all-versions --out public", "${{ github.sha }}", "actions/deploy-pages", "fetch-depth: 0"} {
		if !strings.Contains(string(wf), want) {
			t.Errorf("docs.yml lacks %q", want)
		}
	}
	if _, err := scaffold.Write(scaffold.Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second init: %v", err)
	}
}
