package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/cluster"
)

// TestForProjectCRDs: each version kbook build runs uses its own
// kbook.yaml run.crds (those that exist), unless --crds is given
// (--all-versions once ran every version after the first with the first
// one's).
func TestForProjectCRDs(t *testing.T) {
	type project struct {
		Dir  string
		CRDs []string
	}
	newProject := func(crd string) project {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "crds"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, crd), []byte("# a CRD file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return project{Dir: dir, CRDs: []string{crd, "crds/missing.yaml"}}
	}
	a, b := newProject("crds/a.yaml"), newProject("crds/b.yaml")
	given := filepath.Join(t.TempDir(), "given.yaml")
	for _, tc := range []struct {
		name         string
		crds         []string
		given        bool
		wantA, wantB []string
	}{
		{"kbook.yaml run.crds", nil, false, []string{filepath.Join(a.Dir, "crds/a.yaml")}, []string{filepath.Join(b.Dir, "crds/b.yaml")}},
		{"--crds", []string{given}, true, []string{given}, []string{given}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := Options{Cluster: Cluster{Options: cluster.Options{CRDs: tc.crds}}}
			for _, v := range []struct {
				p    project
				want []string
			}{{a, tc.wantA}, {b, tc.wantB}, {a, tc.wantA}} {
				o := ForProject(base, v.p.Dir, v.p.CRDs, []string{filepath.Join(v.p.Dir, "runbooks")}, tc.given, nil)
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

// TestForSite: a failed runbook is a result, not an error; an interrupted
// run is the context's cause.
func TestForSite(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"pass.md": "exec true", "fail.md": "exec false"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# T\n\n```testscript\n"+body+"\n```\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stop := errors.New("stopped")
	for _, tc := range []struct {
		name       string
		file       string
		cancel     bool
		wantFailed bool
		wantErr    error
	}{
		{"passed", "pass.md", false, false, nil},
		{"failed", "fail.md", false, true, nil},
		{"interrupted", "pass.md", true, false, stop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if tc.cancel {
				cancel(stop)
			}
			o := Options{Paths: []string{filepath.Join(dir, tc.file)}, Timeout: time.Minute, NoCache: true, Cluster: Cluster{None: true}}
			rep, failed, err := ForSite(ctx, o)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err == nil && (rep == nil || failed != tc.wantFailed) {
				t.Errorf("report %v, failed %v, want failed %v", rep, failed, tc.wantFailed)
			}
		})
	}
}
