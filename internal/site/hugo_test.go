package site

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
)

// renderFailTree copies testdata/renderfail with n copies of its page,
// every one failing in Hugo's page rendering.
func renderFailTree(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "docs")
	if err := os.CopyFS(dir, os.DirFS("testdata/renderfail")); err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(dir, "page.md.in"))
	for i := range n {
		if err := writeFile(filepath.Join(dir, "content", "many", fmt.Sprintf("p%03d.md", i)), []byte(page)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// renderFailProject loads renderFailTree(n) and opens a process registry
// for builds in a child process.
func renderFailProject(t *testing.T, n int) (*Project, *proc.Registry) {
	t.Helper()
	p, err := Load(renderFailTree(t, n))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := proc.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	return p, reg
}

// TestBuildFailingInHugoReturns is the regression test of Hugo's hang: a
// build whose pages fail in rendering (more than the ten errors after
// which Hugo stops its workers, more pages than its queue holds) returns
// its error, 20 times in a row, in-process and in a child process alike.
func TestBuildFailingInHugoReturns(t *testing.T) {
	runs := 20
	if testing.Short() {
		runs = 3
	}
	p, reg := renderFailProject(t, 120)
	for _, tc := range []struct {
		name     string
		children ChildStarter
	}{{"in-process", nil}, {"child", reg}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.children == nil {
				// In-process, Hugo reads its workers from this process's
				// environment, which the caller owns (hugoInProcess).
				t.Setenv(workersEnv, strconv.Itoa(renderWorkers(2*120)))
			}
			for i := range runs {
				out := filepath.Join(t.TempDir(), "public")
				_, err := Render(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: out, Children: tc.children, HugoTimeout: 5 * time.Minute})
				var se *findings.InputError
				if !asError(err, &se) {
					t.Fatalf("run %d: err = %v, want the shortcode's error", i+1, err)
				}
				if se.File != "site/layouts/_shortcodes/boom.html" || se.Line != 2 || !strings.Contains(se.Err.Error(), "divide") {
					t.Fatalf("run %d: err = %s:%d: %s", i+1, se.File, se.Line, se.Err.Error())
				}
				if strings.Contains(se.Error(), ".kbook-build-") || strings.Contains(se.Error(), os.TempDir()) {
					t.Fatalf("run %d: the error names a temporary path: %v", i+1, se)
				}
				if _, err := os.Stat(filepath.Join(out, "next")); err == nil {
					t.Fatalf("run %d: a failed build wrote %s", i+1, out)
				}
			}
		})
	}
}

// TestBuildHugoTimeout: a build that does not end within its timeout is
// stopped with an error that says so (a timeout shorter than any build).
func TestBuildHugoTimeout(t *testing.T) {
	p, reg := renderFailProject(t, 5)
	_, err := Render(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: filepath.Join(t.TempDir(), "public"), Children: reg, HugoTimeout: time.Nanosecond})
	if err == nil || !strings.Contains(err.Error(), "did not end within 1ns") {
		t.Fatalf("err = %v, want the timeout", err)
	}
}

// TestThemeSectionWithoutPages: a section with no pages of its own
// ordered before one with pages renders (the theme's reading order used
// to append the empty section's empty list as a page), and a theme error
// is reported at the page, never in the build's temporary folder.
func TestThemeSectionWithoutPages(t *testing.T) {
	p := loadCopy(t, "testdata/emptysection")
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Render(context.Background(), []*Version{{Name: "next", Project: p}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	page := read(t, filepath.Join(out, "next", "b", "p", "index.html"))
	mustContain(t, "b/p", page, `rel="prev"`, "A page of B.")
	mustContain(t, "a/", read(t, filepath.Join(out, "next", "a", "index.html")), "Nothing below.", `rel="next"`)
}

// TestHugoErrorPositions: a Hugo error is reported at a file of the docs
// repository when Hugo names one (innermost first), else at the page
// being rendered with the theme file named by its place in the theme;
// never at a path of the build's temporary folder.
func TestHugoErrorPositions(t *testing.T) {
	g := &generated{dir: "/tmp/x/.kbook-build-1", roots: []string{"/home/u/docs/"},
		pages: map[string]sourceRef{"/tmp/x/.kbook-build-1/gen/next/content/runbooks/r.md": {file: "runbooks/r.md", offset: -2}},
		byURL: map[string]string{"a/b": "content/a/b.md"}}
	theme := "/tmp/x/.kbook-build-1/themes/kbook/layouts/_partials/toc.html"
	for _, tc := range []struct {
		name   string
		f      hugoFailure
		file   string
		line   int
		msgHas string
	}{
		{"user shortcode", hugoFailure{Msg: `render of "/home/u/docs/content/a/b.md" failed: x`, Cause: "boom",
			Positions: []hugoPos{{theme, 3}, {"/home/u/docs/site/layouts/_shortcodes/s.html", 4}}}, "site/layouts/_shortcodes/s.html", 4, "boom"},
		{"generated runbook page", hugoFailure{Msg: "x", Cause: "bad",
			Positions: []hugoPos{{"/tmp/x/.kbook-build-1/gen/next/content/runbooks/r.md", 10}}}, "runbooks/r.md", 12, "bad"},
		{"theme, page by file", hugoFailure{Msg: `render of "/home/u/docs/content/a/b.md" failed: ` + theme + `:3:1: nil`, Cause: "can't evaluate field X",
			Positions: []hugoPos{{theme, 3}}}, "content/a/b.md", 1, "theme layouts/_partials/toc.html:3"},
		{"theme, page by path", hugoFailure{Msg: `render of "/a/b" failed`, Cause: "nil pointer",
			Positions: []hugoPos{{theme, 3}}}, "content/a/b.md", 1, "theme layouts/_partials/toc.html:3: nil pointer"},
		{"theme only", hugoFailure{Msg: "template failed", Cause: "nil pointer",
			Positions: []hugoPos{{theme, 3}}}, "theme layouts/_partials/toc.html", 3, "nil pointer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var se *findings.InputError
			if err := g.hugoError(&tc.f); !asError(err, &se) {
				t.Fatalf("err = %v", err)
			}
			if se.File != tc.file || se.Line != tc.line || !strings.Contains(se.Err.Error(), tc.msgHas) || strings.Contains(se.Error(), ".kbook-build-") {
				t.Fatalf("got %s:%d: %s; want %s:%d: ...%s...", se.File, se.Line, se.Err.Error(), tc.file, tc.line, tc.msgHas)
			}
		})
	}
}

// TestReservedFrontMatter: kbook: is kbook's own page parameter (the theme
// reads runbook results from it); a page that sets it is told so at its
// line before anything is built.
func TestReservedFrontMatter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	if err := os.CopyFS(dir, os.DirFS("testdata/emptysection")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "content", "b", "p.md"), []byte("---\ntitle: P\nkbook: 3\n---\n\nText.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	var se *findings.InputError
	if !asError(err, &se) || se.File != "content/b/p.md" || se.Line != 3 {
		t.Fatalf("err = %v", err)
	}
}

// TestInterruptedInProcessBuildWritesNothingAfter is the regression test
// of an interrupted build that went on writing into its staging folder
// (public/.kbook-build-*/public/...) after Render returned and the folder
// was removed: Hugo, in-process, takes no context. The build is
// interrupted at its first write into the staging folder; when Render has
// returned, the output folder is as before - the published version kept,
// no staging folder - and stays so once the abandoned Hugo build has
// ended (WaitInProcessBuilds: an event, not a time).
func TestInterruptedInProcessBuildWritesNothingAfter(t *testing.T) {
	p := loadCopy(t, "testdata/emptysection")
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Render(context.Background(), []*Version{{Name: "v1", Project: p}}, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, out)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		once    sync.Once
		touched atomic.Int32
	)
	hook := func(name string) {
		if strings.HasPrefix(name, out+string(filepath.Separator)) {
			touched.Add(1)
			once.Do(cancel) // interrupted while Hugo writes the site
		}
	}
	testHookHugoWrote.Store(&hook)
	defer testHookHugoWrote.Store(nil)
	_, err := Render(ctx, []*Version{{Name: "v2", Project: p}}, Options{Out: out})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if touched.Load() == 0 {
		t.Fatal("the build was not interrupted while Hugo wrote: the test proves nothing")
	}
	if got := listTree(t, out); got != before {
		t.Errorf("after the interrupted build returned, %s holds:\n%s\nwant (as before):\n%s", out, got, before)
	}
	WaitInProcessBuilds()
	if got := listTree(t, out); got != before {
		t.Errorf("after the abandoned Hugo build ended, %s holds:\n%s\nwant (as before):\n%s", out, got, before)
	}
}

// loadCopy loads a copy of the docs project fixture (a folder under
// testdata), so that nothing a test does touches testdata.
func loadCopy(t *testing.T, fixture string) *Project {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "docs")
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// listTree lists every file and folder under dir with its size, sorted.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %d\n", rel, fi.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
