package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/spf13/cobra"
)

// TestSiteRunOptionsPerProjectCRDs: each version kbook build runs uses
// its own kbook.yaml run.crds, unless --crds is given (--all-versions once
// ran every version after the first with the first one's).
func TestSiteRunOptionsPerProjectCRDs(t *testing.T) {
	project := func(crd string) *site.Project {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{crd: "# a CRD file\n"})
		return &site.Project{Dir: dir, Config: &site.Config{Runbooks: "runbooks",
			Run: site.RunConfig{CRDs: []string{crd, "crds/missing.yaml"}}}}
	}
	a, b := project("crds/a.yaml"), project("crds/b.yaml")
	given := filepath.Join(t.TempDir(), "given.yaml")
	for _, tc := range []struct {
		name  string
		args  []string
		wantA []string
		wantB []string
	}{
		{"kbook.yaml run.crds", nil, []string{filepath.Join(a.Dir, "crds/a.yaml")}, []string{filepath.Join(b.Dir, "crds/b.yaml")}},
		{"--crds", []string{"--crds", given}, []string{given}, []string{given}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := &cobra.Command{}
			var rf runFlags
			rf.registerRun(cmd)
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			for _, v := range []struct {
				p    *site.Project
				want []string
			}{{a, tc.wantA}, {b, tc.wantB}, {a, tc.wantA}} {
				o, err := siteRunOptions(cmd, v.p, &rf, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := o.Cluster.Options.CRDs; !slices.Equal(got, v.want) {
					t.Errorf("project %s: CRDs %q, want %q", v.p.Dir, got, v.want)
				}
				if want := filepath.Join(v.p.Dir, "runbooks"); !slices.Equal(o.Paths, []string{want}) {
					t.Errorf("paths %q, want [%s]", o.Paths, want)
				}
			}
		})
	}
}

// TestAllVersionsInterruptedExits130: an interrupted --all-versions build
// exits 130, as a single version's does, not as a failure.
func TestAllVersionsInterruptedExits130(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	t.Setenv(cache.EnvDir, t.TempDir())
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{
		"kbook.yaml":        "title: Docs\nversions:\n  - name: v0.1\n  - name: next\n",
		"content/_index.md": "---\ntitle: Home\n---\n\nHello.\n",
	})
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "docs"}, {"tag", "v0.1"}} {
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		c.Dir = repo
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	out := filepath.Join(t.TempDir(), "public")
	if code := execute(ctx, []string{"build", "--all-versions", "--no-search", "--out", out, repo}); code != findings.ExitInterrupted {
		t.Errorf("exit %d, want %d", code, findings.ExitInterrupted)
	}
	if _, err := os.Stat(filepath.Join(out, "next")); err == nil {
		t.Errorf("%s/next written by an interrupted build", out)
	}
}
