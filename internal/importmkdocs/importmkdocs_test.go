package importmkdocs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/testfile"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/site"
)

// TestImport: the import is a kbook docs repository that loads,
// with the nav's titles and weights in front matter, _index.md section
// pages, the runbook in runbooks/ and the image beside the pages.
func TestImport(t *testing.T) {
	dir := testfile.Copy(t, "../site/testdata/mkdocs/basic", "basic")
	out := filepath.Join(t.TempDir(), "imported")
	rep, err := importTo(dir, out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 4 || rep.Runbooks != 1 || rep.Assets != 1 {
		t.Errorf("report %+v", rep)
	}
	testfile.MustContain(t, "notes", strings.Join(rep.Notes, "\n"), "git-revision-date-localized", "nav links to https://github.com/acme")
	testfile.MustContain(t, "second", testfile.Read(t, filepath.Join(out, "content", "guide", "second.md")), "title: Second steps\n", "weight: 3\n", "aliases:\n    - /old-guide/\n", "description: What to do next.")
	testfile.MustContain(t, "section", testfile.Read(t, filepath.Join(out, "content", "guide", "_index.md")), "title: Getting started\n", "weight: 2\n")
	testfile.MustContain(t, "kbook.yaml", testfile.Read(t, filepath.Join(out, "kbook.yaml")), "title: Acme Docs", "anchors: warn")
	if _, err := os.Stat(filepath.Join(out, "content", "img", "logo.svg")); err != nil {
		t.Error(err)
	}
	p, err := site.Load(out)
	if err != nil {
		t.Fatalf("the import does not load as a kbook docs repository: %v", err)
	}
	if p.MkDocs != nil || len(p.Runbooks) != 1 || p.Runbooks[0].Path != "runbooks/try.md" || p.Runbooks[0].Meta.Title != "Try it" {
		t.Errorf("imported project: mkdocs %v, runbooks %v", p.MkDocs != nil, p.Runbooks)
	}
}

func TestImportErrors(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "mkdocs.yml"), []byte("site_name: x\nnav: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, dir, out, want string }{
		{"out not empty", testfile.Copy(t, "../site/testdata/mkdocs/basic", "basic"), full, "exists and is not empty"},
		{"bad mkdocs.yml", bad, "", "mkdocs.yml:2:"},
		{"no project", t.TempDir(), "", "no mkdocs.yml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.out
			if out == "" {
				out = filepath.Join(t.TempDir(), "out")
			}
			_, err := importTo(tc.dir, out)
			var se *findings.InputError
			if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a located %q", err, tc.want)
			}
			if tc.out == "" {
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s written on failure", out)
				}
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".kbook-import-*"))
			if len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestImportOptions: Import writes to Dir's name + "-kbook" in the working
// directory when Out is empty, and a done context imports nothing.
func TestImportOptions(t *testing.T) {
	dir := testfile.Copy(t, "../site/testdata/mkdocs/basic", "basic")
	wd := t.TempDir()
	t.Chdir(wd)
	rep, err := Import(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Out != "basic-kbook" {
		t.Errorf("wrote %s, want basic-kbook", rep.Out)
	}
	if _, err := os.Stat(filepath.Join(wd, "basic-kbook", "kbook.yaml")); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped")
	cancel(stop)
	out := filepath.Join(t.TempDir(), "never")
	if _, err := Import(ctx, Options{Dir: dir, Out: out}); !errors.Is(err, stop) {
		t.Errorf("done context: %v, want its cause", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("done context wrote %s: %v", out, err)
	}
}
