package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/testfile"

	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/site"
)

// TestLiveRerun: a saved runbook whose source has no result is run once in
// the background; meanwhile its page says so, afterwards it shows the new
// result; saving it again unchanged runs nothing.
func TestLiveRerun(t *testing.T) {
	dir := testfile.Copy(t, "../site/testdata/docs", "docs")
	p, err := site.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	ran := make(chan []string, 4)
	rebuilt := make(chan struct{}, 4)
	live := &Live{Dir: dir, Out: t.TempDir(),
		Run: func(ctx context.Context, files []string) (*report.Report, error) {
			ran <- files
			<-release
			return RunInProcess(runner.Options{Parallel: 1, Version: "test"})(ctx, files)
		},
		Rebuild: func() { rebuilt <- struct{}{} },
	}
	first, err := RunInProcess(runner.Options{Parallel: 1, Version: "test"})(context.Background(), p.RunbookPaths())
	if err != nil {
		t.Fatal(err)
	}
	live.SetResults(first)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); live.Wait() }()
	page := filepath.Join(live.Out, "next", "runbooks", "hello", "index.html")

	if err := live.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	testfile.MustContain(t, "the first page", testfile.Read(t, page), "kb-badge-verified", ">hello<")

	file := filepath.Join(dir, "runbooks", "hello.md")
	src := testfile.Read(t, file)
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(src, "hello\n", "goodbye\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := live.Build(ctx, []string{file, filepath.Join(dir, "content", "guide", "intro.md")}); err != nil {
		t.Fatal(err)
	}
	select {
	case files := <-ran:
		if len(files) != 1 || files[0] != file {
			t.Errorf("ran %v, want only %s", files, file)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the changed runbook was not run")
	}
	testfile.MustContain(t, "the page while it runs", testfile.Read(t, page), "kb-badge-unverified", "changed since its last result", "kbook serve is running it now")

	close(release)
	select {
	case <-rebuilt:
	case <-time.After(30 * time.Second):
		t.Fatal("no rebuild was asked for after the run")
	}
	if err := live.Build(ctx, []string{file}); err != nil {
		t.Fatal(err)
	}
	got := testfile.Read(t, page)
	testfile.MustContain(t, "the page after the run", got, "kb-badge-verified", ">goodbye<")
	if strings.Contains(got, "running it now") {
		t.Error("the page still says the runbook is running")
	}
	select {
	case files := <-ran:
		t.Errorf("an unchanged runbook ran again: %v", files)
	case <-time.After(200 * time.Millisecond):
	}
}
