package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/k0rdent/kbook/internal/clidocs"
)

// TestGeneratedDocsUpToDate fails when the CLI reference pages in
// content/reference/cli differ from what the commands generate: run
// `make docs` after changing a command.
func TestGeneratedDocsUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := clidocs.Commands(newRootCmd(), dir); err != nil {
		t.Fatal(err)
	}
	const committed = "../../content/reference/cli"
	gen, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	for _, g := range gen {
		want, _ := os.ReadFile(g)
		got, err := os.ReadFile(filepath.Join(committed, filepath.Base(g)))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s/%s is out of date: run make docs", committed, filepath.Base(g))
		}
	}
	if got, _ := os.ReadFile("../../content/templates/rules.md"); string(got) != string(clidocs.TemplateRules()) {
		t.Errorf("content/templates/rules.md is out of date: run make docs")
	}
	if got, _ := os.ReadFile("../../content/upgrades/rules.md"); string(got) != string(clidocs.UpgradeRules()) {
		t.Errorf("content/upgrades/rules.md is out of date: run make docs")
	}
	if got, _ := os.ReadFile("../../content/providers/rules.md"); string(got) != string(clidocs.ProviderRules()) {
		t.Errorf("content/providers/rules.md is out of date: run make docs")
	}
	have, _ := filepath.Glob(filepath.Join(committed, "kbook*.md"))
	if len(have) != len(gen) {
		t.Errorf("%s has %d command pages, the commands generate %d: run make docs", committed, len(have), len(gen))
	}
}
