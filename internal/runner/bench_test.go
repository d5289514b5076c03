package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/rogpeppe/go-internal/testscript"
)

const benchSteps = 10

// benchRunbook writes a runbook of benchSteps steps, each one exec and
// two builtin checks, and the same script as a plain testscript file.
func benchRunbook(b *testing.B, dir, name string) (md, txtar string) {
	var mdSrc, script strings.Builder
	mdSrc.WriteString("```text file=want.txt\nhello\n```\n\n")
	for i := range benchSteps {
		fmt.Fprintf(&mdSrc, "## Step %d\n\n```testscript\nexec echo hello\nstdout hello\ncmp stdout want.txt\n```\n\n", i)
		script.WriteString("exec echo hello\nstdout hello\ncmp stdout want.txt\n")
	}
	script.WriteString("-- want.txt --\nhello\n")
	md = filepath.Join(dir, name+".md")
	txtar = filepath.Join(dir, name+".txtar")
	if err := os.WriteFile(md, []byte(mdSrc.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(txtar, []byte(script.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return md, txtar
}

// BenchmarkStepOverhead compares kbook running a runbook with plain
// testscript running the same commands: the difference is kbook's cost
// per step (markers, capture, reports).
func BenchmarkStepOverhead(b *testing.B) {
	dir := b.TempDir()
	md, txtar := benchRunbook(b, dir, "overhead")
	b.Run("kbook", func(b *testing.B) {
		rbs, err := runbook.Load([]string{md})
		if err != nil {
			b.Fatal(err)
		}
		r, err := New(Options{Parallel: 1})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			rep := r.Run(context.Background(), rbs)
			if rep.Summary().Passed != 1 {
				b.Fatalf("runbook did not pass: %+v", rep.Runbooks[0])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchSteps), "ns/step")
	})
	b.Run("testscript", func(b *testing.B) {
		for b.Loop() {
			t := &scriptT{}
			testscript.RunT(t, testscript.Params{Files: []string{txtar}, WorkdirRoot: b.TempDir()})
			if log, failed, _, _ := t.result(); failed {
				b.Fatalf("script failed:\n%s", log)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchSteps), "ns/step")
	})
}

// BenchmarkCache20 re-runs 20 unchanged runbooks: "cached" answers all
// from the cache, "uncached" runs them, for the ratio.
func BenchmarkCache20(b *testing.B) {
	dir := b.TempDir()
	var paths []string
	for i := range 20 {
		md, _ := benchRunbook(b, dir, fmt.Sprintf("rb%02d", i))
		paths = append(paths, md)
	}
	rbs, err := runbook.Load(paths)
	if err != nil {
		b.Fatal(err)
	}
	c, err := cache.Open(filepath.Join(dir, "cache"))
	if err != nil {
		b.Fatal(err)
	}
	cached, err := New(Options{Cache: c, KbookID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	cached.Run(context.Background(), rbs) // warm
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			rep := cached.Run(context.Background(), rbs)
			if s := rep.Summary(); s.Cached != 20 {
				b.Fatalf("%d of 20 from cache", s.Cached)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		r, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if s := r.Run(context.Background(), rbs).Summary(); s.Passed != 20 {
				b.Fatalf("%d of 20 passed", s.Passed)
			}
		}
	})
}
