package scaffold

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/site"
	"go.yaml.in/yaml/v3"
)

// TestScaffoldBuilds: the new repository loads, has no broken link, its
// runbook passes and its site builds; a second init writes nothing.
func TestScaffoldBuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme-docs")
	names, err := Write(dir, Options{KbookVersion: "v0.3.0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 5 {
		t.Errorf("files = %v", names)
	}
	p, err := site.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.Title != "acme-docs" {
		t.Errorf("title = %q", p.Config.Title)
	}
	if fs := site.CheckLinks(p, ""); len(fs) > 0 {
		t.Errorf("broken links: %v", fs)
	}
	rep, err := p.RunRunbooks(context.Background(), runner.Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Summary(); s.Passed != 1 {
		t.Fatalf("first runbook: %+v", rep.Runbooks[0])
	}
	if _, err := site.Build(context.Background(), []*site.Version{{Name: "next", Project: p, Results: rep}}, site.Options{Out: filepath.Join(dir, "public")}); err != nil {
		t.Fatal(err)
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
	if _, err := Write(dir, Options{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second init: %v", err)
	}
}
